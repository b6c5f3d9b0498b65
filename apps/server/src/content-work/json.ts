/**
 * Parsing a large JSON request body in a worker (pool.ts `parseJson`, http/body.ts `readJsonBody`):
 * UTF-8 decoding and `JSON.parse` of up to the changeset's 81 MiB off the thread serving requests.
 * What comes back is rebuilt on that thread (structured clone), at a cost per value: a body of more
 * values than `JSON_MAX_VALUES` is refused in the worker instead. Strings cost a copy, not a parse, so
 * a changeset's contents come back cheaply; a million values is about what a 2 MiB body of small values
 * holds, and more than any changeset of 1 000 operations (100 edits each) needs.
 */
export const JSON_MAX_VALUES = 1_000_000;

export type JsonParseAnswer =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly code: 'JSON_INVALID' | 'JSON_TOO_MANY_VALUES' };

/** The JSON value of `bytes` (UTF-8), or why not. Pure: runs in a worker. */
export function parseJsonTask(bytes: Uint8Array): JsonParseAnswer {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return { ok: false, code: 'JSON_INVALID' };
  }
  if (valueCountAbove(value, JSON_MAX_VALUES)) return { ok: false, code: 'JSON_TOO_MANY_VALUES' };
  return { ok: true, value };
}

/** Whether `value` holds more than `max` values (itself, array items, object members), counted iteratively. */
export function valueCountAbove(value: unknown, max: number): boolean {
  let count = 1;
  const stack: unknown[] = [value];
  const add = (item: unknown): boolean => {
    if (++count > max) return true;
    if (typeof item === 'object' && item !== null) stack.push(item);
    return false;
  };
  while (stack.length > 0) {
    const next = stack.pop();
    if (Array.isArray(next)) {
      for (const item of next) if (add(item)) return true;
    } else if (typeof next === 'object' && next !== null) {
      for (const key in next) if (add((next as Record<string, unknown>)[key])) return true;
    }
  }
  return false;
}
