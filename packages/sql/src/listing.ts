import { type FilePageQuery, type FileSortField, type ProjectKeyset, prefixUpperBound } from '@mdstore/core';
import type { Dialect } from './table.js';

/** A statement and its parameters, in the dialect's placeholders. */
export interface Statement {
  readonly sql: string;
  readonly params: unknown[];
}

const SORT_COLUMNS: Readonly<Record<FileSortField, string | null>> = {
  filename: null,
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  sizeBytes: 'size_bytes',
};

/** Collects parameters and hands out their placeholders, numbered in order. */
function parameters(dialect: Dialect) {
  const params: unknown[] = [];
  return { params, p: (value: unknown) => dialect.placeholder(params.push(value)) };
}

/**
 * `project_id = ? AND filename >= prefix AND filename < bound(prefix)`: a prefix as an index range of
 * `(project_id, filename)` (or a filter on the other indexes), the same on every SQL store.
 */
function projectPrefixWhere(p: (value: unknown) => string, projectId: string, prefix: string): string {
  const where = [`project_id = ${p(projectId)}`];
  if (prefix !== '') {
    where.push(`filename >= ${p(prefix)}`);
    const upper = prefixUpperBound(prefix);
    if (upper !== null) where.push(`filename < ${p(upper)}`);
  }
  return where.join(' AND ');
}

/**
 * The keyset page of the records port (`listFilePage`) as one statement: a row-value comparison with the
 * position and `ORDER BY <sort>, filename LIMIT n`, which both engines answer with a range scan of the
 * index `(project_id, <sort>, filename)` (or the unique `(project_id, filename)`), forwards or backwards.
 */
export function filePageStatement(columns: string, dialect: Dialect, q: FilePageQuery): Statement {
  const { params, p } = parameters(dialect);
  const where = [projectPrefixWhere(p, q.projectId, q.prefix)];
  const column = SORT_COLUMNS[q.sort];
  if (q.after !== undefined) {
    const op = (q.descending ? '<' : '>') + (q.inclusive ? '=' : '');
    where.push(
      column === null
        ? `filename ${op} ${p(q.after.filename)}`
        : `(${column}, filename) ${op} (${p(q.after.value ?? 0)}, ${p(q.after.filename)})`,
    );
  }
  const direction = q.descending ? ' DESC' : '';
  const order = [...(column === null ? [] : [`${column}${direction}`]), `filename${direction}`];
  const sql = `SELECT ${columns} FROM files WHERE ${where.join(' AND ')} ORDER BY ${order.join(', ')} LIMIT ${p(q.limit)}`;
  return { sql, params };
}

/**
 * The counts of `countFiles`: `files`, `size_bytes`, `folders`. With `delimiter` a file is at the level
 * when its name has no `/` after the prefix (`pos` 0); the others are counted by their distinct folder,
 * the prefix and the name up to that `/`. Lengths are in characters (code points) on both engines.
 */
export function fileCountsStatement(
  dialect: Dialect,
  q: { projectId: string; prefix: string; delimiter: boolean },
): Statement {
  const { params, p } = parameters(dialect);
  if (!q.delimiter) {
    const range = projectPrefixWhere(p, q.projectId, q.prefix);
    return {
      sql: `SELECT COUNT(*) AS files, COALESCE(SUM(size_bytes), 0) AS size_bytes, 0 AS folders FROM files WHERE ${range}`,
      params,
    };
  }
  // Placeholders are made in the order they appear in the text (SQLite's `?` are positional).
  const length = [...q.prefix].length;
  const folder = `substr(filename, 1, ${p(length)} + pos)`;
  const position = dialect.indexOf(`substr(filename, ${p(length + 1)})`, "'/'");
  const range = projectPrefixWhere(p, q.projectId, q.prefix);
  const sql = `SELECT
    COALESCE(SUM(CASE WHEN pos = 0 THEN 1 ELSE 0 END), 0) AS files,
    COALESCE(SUM(CASE WHEN pos = 0 THEN size_bytes ELSE 0 END), 0) AS size_bytes,
    COUNT(DISTINCT CASE WHEN pos > 0 THEN ${folder} END) AS folders
    FROM (SELECT filename, size_bytes, ${position} AS pos FROM files WHERE ${range}) level`;
  return { sql, params };
}

/** `listProjectPage`: the account's projects after a keyset, on the index `(account_id, created_at, id)`. */
export function projectPageStatement(
  columns: string,
  dialect: Dialect,
  q: { accountId: string; after?: ProjectKeyset; limit: number },
): Statement {
  const { params, p } = parameters(dialect);
  const where = [`account_id = ${p(q.accountId)}`];
  if (q.after !== undefined) where.push(`(created_at, id) > (${p(q.after.createdAt)}, ${p(q.after.id)})`);
  return {
    sql: `SELECT ${columns} FROM projects WHERE ${where.join(' AND ')} ORDER BY created_at, id LIMIT ${p(q.limit)}`,
    params,
  };
}
