/** Deep equality of JSON values (objects compared key by key, whatever their key order). */
export function jsonEqual(x: unknown, y: unknown): boolean {
  if (x === y) return true;
  if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
  if (Array.isArray(x) !== Array.isArray(y)) return false;
  if (Array.isArray(x) && Array.isArray(y))
    return x.length === y.length && x.every((item, i) => jsonEqual(item, y[i]));
  const xo = x as Record<string, unknown>;
  const yo = y as Record<string, unknown>;
  const keys = Object.keys(xo);
  if (keys.length !== Object.keys(yo).length) return false;
  return keys.every((key) => Object.hasOwn(yo, key) && jsonEqual(xo[key], yo[key]));
}

export type KeyWinner = 'current' | 'proposed' | 'conflict';

/**
 * The three-way rule for one key (`undefined`: absent): a side that left it as in base takes the other
 * side's value; both sides giving the same value is fine; two different changes conflict.
 */
export function keyWinner(base: unknown, current: unknown, proposed: unknown): KeyWinner {
  if (jsonEqual(current, base)) return 'proposed';
  if (jsonEqual(proposed, base) || jsonEqual(proposed, current)) return 'current';
  return 'conflict';
}

/** Keys of the three objects: current's order, then proposed's new keys, then base's (deleted) ones. */
export function unionKeys(...objects: Readonly<Record<string, unknown>>[]): string[] {
  const keys = new Set<string>();
  for (const object of objects) for (const key of Object.keys(object)) keys.add(key);
  return [...keys];
}
