import { compareCodePoints } from '../../validation/text.js';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * JSON equality, type-strict: `1` ≠ `"1"`, `1` = `1.0` (numbers as IEEE 754 doubles, so `0` = `-0`),
 * objects equal whatever their key order, arrays element by element in order.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, index) => jsonEqual(item, b[index]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]))
    );
  }
  return false;
}

/**
 * Orders two values when they can be ordered: numbers with numbers, strings with strings (code-point
 * order). Any other pair gives undefined, and the comparison does not match.
 */
export function jsonCompare(a: unknown, b: unknown): number | undefined {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return compareCodePoints(a, b);
  return undefined;
}

/** The value at `keys` below `root`, stepping only into objects' own members (never arrays). */
export function lookupPath(
  root: unknown,
  keys: readonly string[],
): { readonly present: true; readonly value: unknown } | { readonly present: false } {
  let current: unknown = root;
  if (!isObject(current)) return { present: false };
  for (const key of keys) {
    if (!isObject(current) || !Object.hasOwn(current, key)) return { present: false };
    current = current[key];
  }
  return { present: true, value: current };
}
