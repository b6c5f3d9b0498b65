import { jsonEqual, keyWinner, unionKeys } from './equal.js';
import type { JsonObject, MetadataMerge } from './types.js';

/**
 * Metadata objects merged key by key (top-level keys; a key's value is compared whole): a key changed
 * on one side only takes that side (a deletion too); both sides giving the same value is fine; two
 * different changes of one key conflict. The result keeps current's key order, proposed's new keys after.
 */
export function mergeMetadata(base: JsonObject, current: JsonObject, proposed: JsonObject): MetadataMerge {
  if (jsonEqual(current, base)) return { kind: 'clean', value: proposed, merged: false };
  if (jsonEqual(proposed, base) || jsonEqual(proposed, current))
    return { kind: 'clean', value: current, merged: false };
  const value: Record<string, unknown> = {};
  const conflicts: string[] = [];
  for (const key of unionKeys(current, proposed, base)) {
    const at = (object: JsonObject) => (Object.hasOwn(object, key) ? object[key] : undefined);
    const winner = keyWinner(at(base), at(current), at(proposed));
    if (winner === 'conflict') conflicts.push(key);
    else {
      const chosen = at(winner === 'current' ? current : proposed);
      if (chosen !== undefined) value[key] = chosen;
    }
  }
  return conflicts.length > 0
    ? { kind: 'conflict', keys: conflicts }
    : { kind: 'clean', value, merged: true };
}
