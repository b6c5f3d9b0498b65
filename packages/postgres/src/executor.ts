import type { SqlExecutor } from '@mdstore/sql';
import type pg from 'pg';

/** Runs one statement; errors come out already translated (see `errors.ts`). */
export type Query = <R extends pg.QueryResultRow>(
  text: string,
  values?: unknown[],
) => Promise<pg.QueryResult<R>>;

/**
 * The executor of the shared records implementation on Postgres: each call is one statement sent on
 * `query` (the pool outside a transaction, the transaction's client inside one).
 */
export function postgresExecutor(query: Query): SqlExecutor {
  return {
    all: async (sql, params) => (await query(sql, params as unknown[])).rows,
    get: async (sql, params) => (await query(sql, params as unknown[])).rows[0],
    run: async (sql, params) => (await query(sql, params as unknown[])).rowCount ?? 0,
  };
}
