import { compareCodePoints } from '../../validation/text.js';
import type { Filter, FilterCondition, FixedField, JsonRoot } from './ast.js';
import { jsonEqual, lookupPath } from './json.js';

type Comparison = 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte';
export type NumericField = Exclude<FixedField, 'filename'>;

/**
 * A condition a SQL store can evaluate exactly on its own columns. Filenames compare in code-point
 * order (UTF-8 bytes: `COLLATE "C"`, SQLite's BINARY); `prefix` and `contains` are on the raw filename
 * (escape LIKE wildcards). Date fields are epoch milliseconds, maybe with a fraction.
 */
export type PushdownCondition =
  | { readonly field: 'filename'; readonly op: Comparison | 'prefix' | 'contains'; readonly value: string }
  | { readonly field: 'filename'; readonly op: 'in'; readonly value: readonly string[] }
  | { readonly field: NumericField; readonly op: Comparison; readonly value: number }
  | { readonly field: NumericField; readonly op: 'in'; readonly value: readonly number[] };

/**
 * A necessary condition on a `metadata`/`frontmatter` value, from a condition of the filter's top-level
 * conjunction: every file that matches the filter satisfies it, so a store may leave out the
 * candidates that fail it (never one that holds it), or ignore it. It is not exact (the condition also
 * stays in the residual filter): SQL engines compare JSON values their own way, so a narrowing is made
 * only where every engine's answer is a superset of the reference's: keys free of `"`, `\` and control
 * characters (SQLite's JSON paths quote them), strings without U+0000 or lone surrogates, numbers
 * below 2⁵³ in magnitude.
 * - `equals`: the value at `keys` equals one of `values` (strings, numbers, booleans);
 * - `contains`: the value is an array with the string `value` as an element, or a string containing it;
 * - `prefix`: the value is a string starting with `value`;
 * - `exists`: the key is present (its value may be `null`).
 */
export type JsonNarrowing =
  | {
      readonly kind: 'equals';
      readonly root: JsonRoot;
      readonly keys: readonly string[];
      readonly values: readonly (string | number | boolean)[];
    }
  | {
      readonly kind: 'contains' | 'prefix';
      readonly root: JsonRoot;
      readonly keys: readonly string[];
      readonly value: string;
    }
  | { readonly kind: 'exists'; readonly root: JsonRoot; readonly keys: readonly string[] };

/**
 * A filter split for a SQL store: a file matches exactly when `matchesNothing` is false, every
 * `pushdown` condition holds, and `residual` (if any) holds by `evaluateFilter`. Every match also
 * satisfies each `narrowing` (which the residual decides exactly).
 */
export interface FilterPlan {
  readonly pushdown: readonly PushdownCondition[];
  readonly residual: Filter | null;
  readonly matchesNothing: boolean;
  readonly narrowing: readonly JsonNarrowing[];
}

const ALWAYS = 'always' as const;
const NEVER = 'never' as const;

/**
 * Splits the top-level conjunction (nested `and`s flattened) into the conditions on `filename`,
 * `size_bytes`, the dates and `revision` (pushed down, with the kinds that cannot match resolved: such
 * a condition is always true for `ne` and `exists: true`, never true otherwise) and the rest.
 */
export function planFilter(filter: Filter | null): FilterPlan {
  const pushdown: PushdownCondition[] = [];
  const narrowing: JsonNarrowing[] = [];
  const rest: Filter[] = [];
  let matchesNothing = false;
  const pending: Filter[] = filter ? [filter] : [];
  while (pending.length > 0) {
    const node = pending.shift()!;
    if (node.kind === 'and') {
      pending.unshift(...node.filters);
      continue;
    }
    const pushed = node.kind === 'condition' && node.field.kind === 'fixed' ? translate(node) : undefined;
    const narrowed = node.kind === 'condition' ? narrow(node) : undefined;
    if (narrowed !== undefined) narrowing.push(narrowed);
    if (pushed === undefined) rest.push(node);
    else if (pushed === NEVER) matchesNothing = true;
    else if (pushed !== ALWAYS) pushdown.push(pushed);
  }
  const residual =
    rest.length === 0 ? null : rest.length === 1 ? rest[0]! : { kind: 'and' as const, filters: rest };
  return { pushdown, residual, matchesNothing, narrowing };
}

/** U+0000, a lone surrogate: what a SQL engine's JSON functions may not give back as they are. */
const UNSAFE_STRING = /\u0000|\p{Cs}/u;
/** What SQLite's quoted JSON path labels cannot hold, and control characters. */
const UNSAFE_KEY = /["\\\u0000-\u001f]|\p{Cs}/u;

const narrowable = (value: unknown): value is string | number | boolean =>
  typeof value === 'boolean' ||
  (typeof value === 'number' && Math.abs(value) < 2 ** 53) ||
  (typeof value === 'string' && !UNSAFE_STRING.test(value));

/** The narrowing a JSON condition gives, when every engine can give a superset of its matches. */
function narrow(condition: FilterCondition): JsonNarrowing | undefined {
  const { field, op, value } = condition;
  if (field.kind !== 'json' || field.keys.some((key) => key === '' || UNSAFE_KEY.test(key))) return undefined;
  const { root, keys } = field;
  switch (op) {
    case 'eq':
      return narrowable(value) ? { kind: 'equals', root, keys, values: [value] } : undefined;
    case 'in':
      return Array.isArray(value) && value.length > 0 && value.every(narrowable)
        ? { kind: 'equals', root, keys, values: value }
        : undefined;
    case 'contains':
    case 'prefix':
      return typeof value === 'string' && narrowable(value) ? { kind: op, root, keys, value } : undefined;
    case 'exists':
      return value === true ? { kind: 'exists', root, keys } : undefined;
    default:
      return undefined;
  }
}

function translate(condition: FilterCondition): PushdownCondition | typeof ALWAYS | typeof NEVER {
  const { op, value } = condition;
  const field = (condition.field as { name: FixedField }).name;
  if (op === 'exists') return value === true ? ALWAYS : NEVER;
  if (field === 'filename') {
    if (op === 'in') {
      const strings = (value as readonly unknown[]).filter(
        (item): item is string => typeof item === 'string',
      );
      return strings.length === 0 ? NEVER : { field, op, value: strings };
    }
    if (typeof value === 'string') return { field, op, value };
    return op === 'ne' ? ALWAYS : NEVER;
  }
  if (op === 'contains' || op === 'prefix') return NEVER;
  // Date conditions carry their instants; the numeric fields compare with number values only.
  const numbers = (condition.instants ?? (op === 'in' ? (value as readonly unknown[]) : [value])).filter(
    (item): item is number => typeof item === 'number',
  );
  if (op === 'in') return numbers.length === 0 ? NEVER : { field, op, value: numbers };
  const [number] = numbers;
  if (number === undefined) return op === 'ne' ? ALWAYS : NEVER;
  return { field, op, value: number };
}

/** The columns a pushed-down condition reads. */
export interface PushdownColumns {
  readonly filename: string;
  readonly sizeBytes: number;
  readonly revision: number;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/**
 * What a SQL store does with a pushed-down condition, for stores without SQL (the memory adapter):
 * strings compare by code point, numbers as numbers.
 */
export function holdsPushdown(condition: PushdownCondition, file: PushdownColumns): boolean {
  const column = {
    filename: file.filename,
    size_bytes: file.sizeBytes,
    revision: file.revision,
    created_date: file.createdAt,
    updated_date: file.updatedAt,
  }[condition.field];
  const { op, value } = condition;
  if (op === 'in') return (value as readonly unknown[]).includes(column);
  if (op === 'prefix') return (column as string).startsWith(value as string);
  if (op === 'contains') return (column as string).includes(value as string);
  const order =
    typeof column === 'string' ? compareCodePoints(column, value as string) : column - (value as number);
  return { eq: order === 0, ne: order !== 0, lt: order < 0, lte: order <= 0, gt: order > 0, gte: order >= 0 }[
    op
  ];
}

/**
 * What a narrowing asks, by the filter language's own rules: a store without SQL (the memory adapter)
 * applies it as it is; a SQL store must keep at least every file it holds for.
 */
export function holdsNarrowing(
  narrowing: JsonNarrowing,
  file: { readonly metadataJson: string | null; readonly frontmatterJson: string | null },
): boolean {
  const json = narrowing.root === 'metadata' ? file.metadataJson : file.frontmatterJson;
  const found = lookupPath(json === null ? null : JSON.parse(json), narrowing.keys);
  if (!found.present) return false;
  const { value } = found;
  switch (narrowing.kind) {
    case 'exists':
      return true;
    case 'equals':
      return narrowing.values.some((wanted) => jsonEqual(value, wanted));
    case 'contains':
      return Array.isArray(value)
        ? value.some((item) => jsonEqual(item, narrowing.value))
        : typeof value === 'string' && value.includes(narrowing.value);
    case 'prefix':
      return typeof value === 'string' && value.startsWith(narrowing.value);
  }
}
