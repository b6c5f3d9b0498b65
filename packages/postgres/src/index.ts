import {
  type ChangeNotifier,
  type LeasePolicy,
  type RateLimiter,
  type RecordsArchive,
  type RecordsRepository,
  StoreUnavailableError,
} from '@mdstore/core';
import type pg from 'pg';
import { postgresArchive } from './archive.js';
import { POSTGRES_RECORDS } from './dialect.js';
import { translateError } from './errors.js';
import { postgresExecutor, type Query } from './executor.js';
import { migrate } from './migrations.js';
import { listenForChanges } from './notices.js';
import { assertSchemaName, createPool } from './pool.js';
import { createRateLimiter } from './rate-limiter.js';
import { runTransaction } from './transaction.js';

export { POSTGRES_SCHEMA_VERSION } from './archive.js';
export { MIGRATIONS } from './migrations.js';

export interface PostgresStoreOptions {
  /** e.g. `postgres://user:password@host:5432/database`. */
  readonly connectionString: string;
  /** Everything lives in this schema, created if missing. Default: the server's search_path (`public`). */
  readonly schema?: string;
  /** Connections in the pool. Default 10. */
  readonly poolMax?: number;
  /** How long to wait for a connection (new or from the pool) before failing. Default 5 s. */
  readonly connectTimeoutMs?: number;
  /** Server-side limit of one statement. Default 10 s. */
  readonly statementTimeoutMs?: number;
  /** The server ends a session left idle inside a transaction this long. Default 15 s. */
  readonly idleInTransactionTimeoutMs?: number;
  /** How the rate limiter takes units from the shared count ahead of demand (`DEFAULT_LEASE_POLICY`). */
  readonly rateLimitLeases?: LeasePolicy;
}

export interface PostgresStore {
  readonly records: RecordsRepository;
  readonly rateLimiter: RateLimiter;
  /** Backups and restore (extensions §16). */
  readonly archive: RecordsArchive;
  /** Notices of change events committed by any instance on this database (`LISTEN/NOTIFY`, extensions §7). */
  readonly changeNotices: ChangeNotifier;
  /** The last error the pool reported about an idle connection (for health reports); never thrown. */
  lastPoolError(): Error | undefined;
  /** Closes the pool. Idempotent; `records.close()` plus `rateLimiter.close()` do the same. */
  close(): Promise<void>;
}

const DEFAULTS = {
  poolMax: 10,
  connectTimeoutMs: 5_000,
  statementTimeoutMs: 10_000,
  idleInTransactionTimeoutMs: 15_000,
};

/**
 * Opens the pool, migrates the schema (exactly once across instances starting together) and returns the
 * records repository and the rate limiter, which share the pool.
 */
export const openPostgresStore = async (options: PostgresStoreOptions): Promise<PostgresStore> => {
  const schema = options.schema === undefined ? undefined : assertSchemaName(options.schema);
  const managed = createPool({
    connectionString: options.connectionString,
    schema,
    poolMax: options.poolMax ?? DEFAULTS.poolMax,
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs,
    statementTimeoutMs: options.statementTimeoutMs ?? DEFAULTS.statementTimeoutMs,
    idleInTransactionTimeoutMs: options.idleInTransactionTimeoutMs ?? DEFAULTS.idleInTransactionTimeoutMs,
  });
  try {
    await migrateOnce({ pool: managed.pool, schema });
  } catch (error) {
    await managed.pool.end().catch(() => undefined);
    throw translateError(error);
  }
  const notices = listenForChanges({ connectionString: options.connectionString, schema });
  const store = assembleStore(managed.pool, managed.lastError, options.rateLimitLeases);
  return {
    ...store,
    changeNotices: notices,
    async close() {
      await notices.close();
      await store.close();
    },
  };
};

const migrateOnce = async (o: { pool: pg.Pool; schema: string | undefined }): Promise<void> => {
  const client = await o.pool.connect();
  let failure: Error | undefined;
  try {
    await migrate({ client, schema: o.schema });
  } catch (error) {
    failure = error instanceof Error ? error : new Error(String(error));
    throw error;
  } finally {
    client.release(failure);
  }
};

/** The pool ends when its last user (records, rate limiter) is closed, or when the store is. */
const assembleStore = (
  pool: pg.Pool,
  lastPoolError: () => Error | undefined,
  leases: LeasePolicy | undefined,
): Omit<PostgresStore, 'changeNotices'> => {
  let ending: Promise<void> | undefined;
  const endPool = (): Promise<void> => {
    ending ??= pool.end().catch(() => undefined);
    return ending;
  };
  const users = new Set<'records' | 'rateLimiter'>(['records', 'rateLimiter']);
  const closeUser = (user: 'records' | 'rateLimiter') => async (): Promise<void> => {
    users.delete(user);
    if (users.size === 0) await endPool();
  };
  const guardedQuery =
    (user: 'records' | 'rateLimiter'): Query =>
    async (text, values) => {
      if (!users.has(user)) throw new StoreUnavailableError(`The PostgreSQL ${user} store is closed`);
      try {
        return await pool.query(text, values);
      } catch (error) {
        throw translateError(error);
      }
    };

  const records: RecordsRepository = {
    ...POSTGRES_RECORDS.reader(postgresExecutor(guardedQuery('records'))),
    supports: { durable: true, sharedBetweenProcesses: true },
    withTransaction(work) {
      if (!users.has('records')) {
        return Promise.reject(new StoreUnavailableError('The PostgreSQL records store is closed'));
      }
      return runTransaction(pool, (statements) =>
        work(POSTGRES_RECORDS.transaction(postgresExecutor(statements.query, statements))),
      );
    },
    close: closeUser('records'),
  };
  const rateLimiter = createRateLimiter({
    query: guardedQuery('rateLimiter'),
    close: closeUser('rateLimiter'),
    ...(leases && { leases }),
  });
  return {
    records,
    rateLimiter,
    archive: postgresArchive(pool, guardedQuery('records')),
    lastPoolError,
    async close() {
      // The limiter first: it gives its unspent units back to the shared count.
      await rateLimiter.close();
      users.clear();
      await endPool();
    },
  };
};
