import type { Row, SqlExecutor } from '@mdstore/sql';
import type { Statement } from 'better-sqlite3';
import type { Db } from '../connections.js';

/** Prepared statements kept per connection; search statements vary with the query, hence a bound. */
const MAX_CACHED_STATEMENTS = 500;

/** Prepares each distinct SQL text once on `db` and keeps it (the statement cache of a connection). */
export function statementCache(db: Db): (sql: string) => Statement<unknown[], Row> {
  const cache = new Map<string, Statement<unknown[], Row>>();
  return (sql) => {
    let statement = cache.get(sql);
    if (statement === undefined) {
      statement = db.prepare<unknown[], Row>(sql);
      // The oldest shape goes first: constant statements are prepared again at once if ever needed.
      if (cache.size >= MAX_CACHED_STATEMENTS) cache.delete(cache.keys().next().value!);
      cache.set(sql, statement);
    }
    return statement;
  };
}

/**
 * The executor of the shared records implementation on one better-sqlite3 connection (its `statementCache`).
 * Statements run
 * synchronously, inside `guard` (which translates errors and refuses calls on a closed store or an
 * ended transaction); the promise each method returns is already settled.
 */
export function sqliteExecutor(
  prepared: (sql: string) => Statement<unknown[], Row>,
  guard: <R>(call: () => R) => R,
): SqlExecutor {
  return {
    all: async (sql, params) => guard(() => prepared(sql).all(params as unknown[])),
    get: async (sql, params) => guard(() => prepared(sql).get(params as unknown[])),
    run: async (sql, params) => guard(() => prepared(sql).run(params as unknown[]).changes),
    write: async (sql, params) => {
      guard(() => prepared(sql).run(params as unknown[]));
    },
  };
}
