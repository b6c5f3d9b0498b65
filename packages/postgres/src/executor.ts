import type { SqlExecutor } from '@mdstore/sql';
import type pg from 'pg';
import type { TransactionStatements } from './transaction.js';

/** Runs one statement; errors come out already translated (see `errors.ts`). */
export type Query = <R extends pg.QueryResultRow>(
  text: string,
  values?: unknown[],
) => Promise<pg.QueryResult<R>>;

/**
 * The executor of the shared records implementation on Postgres: outside a transaction each call is
 * one statement on the pool; inside one (`statements`), writes nobody reads the answer of are deferred
 * and go with the next statement or the COMMIT (`transaction.ts`).
 */
export function postgresExecutor(query: Query, statements?: TransactionStatements): SqlExecutor {
  return {
    all: async (sql, params) => (await query(sql, params as unknown[])).rows,
    get: async (sql, params) => (await query(sql, params as unknown[])).rows[0],
    run: async (sql, params) => (await query(sql, params as unknown[])).rowCount ?? 0,
    write: statements
      ? async (sql, params) => statements.defer(sql, params)
      : async (sql, params) => {
          await query(sql, params as unknown[]);
        },
  };
}
