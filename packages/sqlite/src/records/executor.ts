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

/** What an executor does around each statement: refuse it (a closed store, an ended transaction), translate its error. */
export interface StatementGuard {
  /** Throws when no statement may run now. */
  check(): void;
  /** The error to throw for a statement's failure (translated; a transaction also remembers it). */
  failed(error: unknown): unknown;
}

/**
 * The executor of the shared records implementation on one better-sqlite3 connection (its
 * `statementCache`). Statements run synchronously and each call returns its value itself, no promise
 * (the shared code awaits it all the same).
 */
export function sqliteExecutor(
  prepared: (sql: string) => Statement<unknown[], Row>,
  guard: StatementGuard,
): SqlExecutor {
  return {
    all(sql, params) {
      guard.check();
      try {
        return prepared(sql).all(params as unknown[]);
      } catch (error) {
        throw guard.failed(error);
      }
    },
    get(sql, params) {
      guard.check();
      try {
        return prepared(sql).get(params as unknown[]);
      } catch (error) {
        throw guard.failed(error);
      }
    },
    run(sql, params) {
      guard.check();
      try {
        return prepared(sql).run(params as unknown[]).changes;
      } catch (error) {
        throw guard.failed(error);
      }
    },
    write(sql, params) {
      guard.check();
      try {
        prepared(sql).run(params as unknown[]);
      } catch (error) {
        throw guard.failed(error);
      }
    },
  };
}
