import type { RateLimiter, RecordsRepository } from '@mdstore/core';
import {
  createWriteLockSignal,
  type Db,
  DEFAULT_BUSY_TIMEOUT_MS,
  enableWal,
  openConnection,
  waitForWriteLockAsynchronously,
} from './connections.js';
import { applyMigrations } from './migrations.js';
import { createSqliteRateLimiter } from './rate-limiter.js';
import { createSqliteRecords } from './records/repository.js';

export interface SqliteStoreOptions {
  /** The database file, created with the latest schema when missing. Not `:memory:` (see below). */
  readonly path: string;
  /** How long a write waits for another connection's lock before `StoreUnavailableError`. Default 5 s. */
  readonly busyTimeoutMs?: number;
}

/** The pragmas in effect on one connection, for diagnostics and tests. */
export interface ConnectionSettings {
  readonly journalMode: string;
  /** 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA. */
  readonly synchronous: number;
  readonly busyTimeoutMs: number;
  readonly foreignKeys: boolean;
  readonly readonly: boolean;
}

export interface SqliteStore {
  readonly records: RecordsRepository;
  readonly rateLimiter: RateLimiter;
  /** The settings of the three connections (records writer, records reader, rate limiter). */
  connectionSettings(): Record<'writer' | 'reader' | 'rateLimiter', ConnectionSettings>;
  /** Closes every connection, after the running transaction if any. Idempotent. */
  close(): Promise<void>;
}

/**
 * Opens the SQLite database at `path`, creating it or migrating its schema, and returns the records
 * repository and the rate limiter on it. Several stores (in one or several processes) may open the same
 * file: SQLite's locks serialise their writes. The store uses three connections, hence a real file.
 */
export async function openSqliteStore(options: SqliteStoreOptions): Promise<SqliteStore> {
  const path = checkedPath(options.path);
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  const opened: Db[] = [];
  try {
    const writer = openConnection({ path, busyTimeoutMs, synchronous: 'FULL' });
    opened.push(writer);
    await enableWal(writer, busyTimeoutMs);
    await applyMigrations(writer, { busyTimeoutMs });
    const reader = openConnection({ path, busyTimeoutMs, synchronous: 'FULL', readonly: true });
    opened.push(reader);
    const limiterDb = openConnection({ path, busyTimeoutMs, synchronous: 'NORMAL' });
    opened.push(limiterDb);
    waitForWriteLockAsynchronously(writer);
    waitForWriteLockAsynchronously(limiterDb);
    // The records writer holds the write lock across a group commit; the limiter retries as it ends.
    const lockSignal = createWriteLockSignal();
    return assemble({
      records: createSqliteRecords({
        writer,
        reader,
        busyTimeoutMs,
        onPhysicalTransactionEnd: () => lockSignal.released(),
      }),
      rateLimiter: createSqliteRateLimiter({ db: limiterDb, busyTimeoutMs, lockSignal }),
      connections: { writer, reader, rateLimiter: limiterDb },
    });
  } catch (error) {
    for (const db of opened.reverse()) db.close();
    throw error;
  }
}

function checkedPath(path: string): string {
  if (path === '' || path === ':memory:' || path.startsWith('file:')) {
    throw new TypeError(`openSqliteStore needs the path of a database file, not '${path}'`);
  }
  return path;
}

function assemble(parts: {
  records: RecordsRepository;
  rateLimiter: RateLimiter;
  connections: Record<'writer' | 'reader' | 'rateLimiter', Db>;
}): SqliteStore {
  const { records, rateLimiter, connections } = parts;
  let closing: Promise<void> | undefined;
  return {
    records,
    rateLimiter,
    connectionSettings: () => ({
      writer: settingsOf(connections.writer),
      reader: settingsOf(connections.reader),
      rateLimiter: settingsOf(connections.rateLimiter),
    }),
    close() {
      closing ??= Promise.all([records.close(), rateLimiter.close()]).then(() => undefined);
      return closing;
    },
  };
}

const settingsOf = (db: Db): ConnectionSettings => ({
  journalMode: String(db.pragma('journal_mode', { simple: true })),
  synchronous: Number(db.pragma('synchronous', { simple: true })),
  busyTimeoutMs: Number(db.pragma('busy_timeout', { simple: true })),
  foreignKeys: Number(db.pragma('foreign_keys', { simple: true })) === 1,
  readonly: db.readonly,
});
