import { compareCodePoints } from '../../validation/text.js';
import type { Filter, FilterCondition, FixedField } from './ast.js';

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
 * A filter split for a SQL store: a file matches exactly when `matchesNothing` is false, every
 * `pushdown` condition holds, and `residual` (if any) holds by `evaluateFilter`.
 */
export interface FilterPlan {
  readonly pushdown: readonly PushdownCondition[];
  readonly residual: Filter | null;
  readonly matchesNothing: boolean;
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
    if (pushed === undefined) rest.push(node);
    else if (pushed === NEVER) matchesNothing = true;
    else if (pushed !== ALWAYS) pushdown.push(pushed);
  }
  const residual =
    rest.length === 0 ? null : rest.length === 1 ? rest[0]! : { kind: 'and' as const, filters: rest };
  return { pushdown, residual, matchesNothing };
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
