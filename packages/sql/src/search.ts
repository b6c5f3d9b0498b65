import type { JsonNarrowing, PushdownCondition } from '@mdstore/core';
import { FILES } from './records.js';

/** What differs between engines in a search's WHERE clause. */
export interface SearchSqlDialect {
  /** The placeholder of the next parameter, which takes `value`. */
  param(value: unknown): string;
  /** `column` starts with the string parameter `param`, compared exactly (no LIKE wildcards). */
  startsWith(column: string, param: string): string;
  /** `column` contains the string parameter `param`, exactly. */
  contains(column: string, param: string): string;
  /** `column` equals one element of the array `values` (of text or numbers). */
  inList(column: string, values: readonly (string | number)[]): string;
}

const COMPARISON = { eq: '=', ne: '<>', lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;

/** The file column of each fixed filter field, from the shared description of `files`. */
const column = (field: PushdownCondition['field']): string => {
  const name = {
    filename: 'filename',
    size_bytes: 'sizeBytes',
    revision: 'revision',
    created_date: 'createdAt',
    updated_date: 'updatedAt',
  }[field];
  return FILES.columns.find((entry) => entry.field === name)!.name;
};

/**
 * The pushed-down conditions of a filter (`planFilter`) as SQL on the files table aliased `alias`:
 * exact, strings compared in code-point order (the filename column's binary collation), numbers as
 * numbers. Every value is a parameter.
 */
export function pushdownSql(
  conditions: readonly PushdownCondition[],
  alias: string,
  dialect: SearchSqlDialect,
): string[] {
  return conditions.map((condition) => {
    const target = `${alias}.${column(condition.field)}`;
    switch (condition.op) {
      case 'in':
        return dialect.inList(target, condition.value);
      case 'prefix':
        return dialect.startsWith(target, dialect.param(condition.value));
      case 'contains':
        return dialect.contains(target, dialect.param(condition.value));
      default:
        return `${target} ${COMPARISON[condition.op]} ${dialect.param(condition.value)}`;
    }
  });
}

/**
 * How an engine tests a JSON value stored as text in `column` at the object `keys` (`planFilter`'s
 * narrowing). Each test must hold for every value the reference accepts (JsonNarrowing); it may hold
 * for more.
 */
export interface JsonSqlDialect {
  /** The placeholder of the next parameter, which takes `value`. */
  param(value: unknown): string;
  equalsAny(column: string, keys: readonly string[], values: readonly (string | number | boolean)[]): string;
  contains(column: string, keys: readonly string[], value: string): string;
  startsWith(column: string, keys: readonly string[], value: string): string;
  exists(column: string, keys: readonly string[]): string;
}

const jsonColumn = (root: JsonNarrowing['root']): string =>
  FILES.columns.find((entry) => entry.field === (root === 'metadata' ? 'metadataJson' : 'frontmatterJson'))!
    .name;

/** The narrowing of a filter (`planFilter`) as SQL on the files table aliased `alias`. */
export function narrowingSql(
  narrowing: readonly JsonNarrowing[],
  alias: string,
  dialect: JsonSqlDialect,
): string[] {
  return narrowing.map((condition) => {
    const column = `${alias}.${jsonColumn(condition.root)}`;
    switch (condition.kind) {
      case 'equals':
        return dialect.equalsAny(column, condition.keys, condition.values);
      case 'contains':
        return dialect.contains(column, condition.keys, condition.value);
      case 'prefix':
        return dialect.startsWith(column, condition.keys, condition.value);
      default:
        return dialect.exists(column, condition.keys);
    }
  });
}
