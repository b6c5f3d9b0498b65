import type {
  ChangeNotifier,
  LeasePolicy,
  RateLimiter,
  RecordsArchive,
  RecordsRepository,
  StoreUnavailableError,
} from '@mdstore/core';
import { openSqliteArchive, type SqliteArchive } from './archive.js';
import { type Checkpointer, startCheckpointer, WRITER_AUTOCHECKPOINT_PAGES } from './checkpointer.js';
import {
  type Db,
  DEFAULT_BUSY_TIMEOUT_MS,
  enableWal,
  openConnection,
  waitForWriteLockAsynchronously,
} from './connections.js';
import { applyMigrations } from './migrations.js';
import { type SqliteChangeNotices, watchChangeNotices } from './notices.js';
import { openSqliteRateLimiter } from './rate-limiter.js';
import { createSqliteRecords } from './records/repository.js';
import { openWalSync, type WalSync, withSyncedCommits } from './wal-sync.js';

export interface SqliteStoreOptions {
  /** The database file, created with the latest schema when missing. Not `:memory:` (see below). */
  readonly path: string;
  /** How long a write waits for another connection's lock before `StoreUnavailableError`. Default 5 s. */
  readonly busyTimeoutMs?: number;
  /**
   * The rate limiter's own database file, created when missing. Default: `path` + `.rate-limits`. Every
   * process sharing the records file must use the same one: it holds the shared request counts.
   */
  readonly rateLimitPath?: string;
  /** How the rate limiter takes units from the shared count ahead of demand (`DEFAULT_LEASE_POLICY`). */
  readonly rateLimitLeases?: LeasePolicy;
  /**
   * Called once if syncing the WAL fails. From then on the store refuses all work, and the commits that
   * sync was to cover are never acknowledged (their fate is unknown until a restart reconciles them):
   * a server should stop its process here rather than hold those requests open.
   */
  readonly onDurabilityLost?: (error: StoreUnavailableError) => void;
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
  /** Notices of change events committed by any process on this file (extensions §7; `notices.ts`). */
  readonly changeNotices: ChangeNotifier;
  /** Backups and restore (extensions §16), on connections of its own. */
  readonly archive: RecordsArchive;
  /** The settings of the three connections (records writer, records reader, rate limiter on its file). */
  connectionSettings(): Record<'writer' | 'reader' | 'rateLimiter', ConnectionSettings>;
  /** Closes every connection, after the running transaction if any. Idempotent. */
  close(): Promise<void>;
}

/**
 * Opens the SQLite database at `path`, creating it or migrating its schema, and returns the records
 * repository, and the rate limiter on its own file next to it (`rateLimitPath`). Several stores (in one or
 * several processes) may open the same files: SQLite's locks serialise their writes. The store uses three
 * connections, hence real files.
 */
export async function openSqliteStore(options: SqliteStoreOptions): Promise<SqliteStore> {
  const path = checkedPath(options.path);
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  const opened: Db[] = [];
  let wal: WalSync | undefined;
  let checkpointer: Checkpointer | undefined;
  try {
    // NORMAL: a COMMIT writes the WAL without syncing it, on the event loop; `wal` syncs it off the loop,
    // and the transaction is acknowledged only after that (withSyncedCommits).
    const writer = openConnection({ path, busyTimeoutMs, synchronous: 'NORMAL' });
    opened.push(writer);
    await enableWal(writer, busyTimeoutMs);
    await applyMigrations(writer, { busyTimeoutMs });
    // Checkpoints run in a worker thread; the writer's own only past a much larger WAL (a safety net).
    writer.pragma(`wal_autocheckpoint = ${WRITER_AUTOCHECKPOINT_PAGES}`);
    const background = startCheckpointer(path);
    checkpointer = background;
    wal = await openWalSync(path, {
      afterSync: () => background.committed(),
      ...(options.onDurabilityLost && { onFailure: options.onDurabilityLost }),
    });
    await wal.sync(); // what the migrations committed
    const reader = openConnection({ path, busyTimeoutMs, synchronous: 'NORMAL', readonly: true });
    opened.push(reader);
    const { limiter, db: limiterDb } = await openSqliteRateLimiter({
      path: options.rateLimitPath ?? `${path}.rate-limits`,
      busyTimeoutMs,
      ...(options.rateLimitLeases && { leases: options.rateLimitLeases }),
    });
    opened.push(limiterDb);
    waitForWriteLockAsynchronously(writer);
    return assemble({
      records: createSqliteRecords({ writer, reader, busyTimeoutMs }),
      notices: watchChangeNotices({ path, busyTimeoutMs }),
      wal,
      checkpointer,
      rateLimiter: limiter,
      connections: { writer, reader, rateLimiter: limiterDb },
      archive: openSqliteArchive({ path, busyTimeoutMs }),
    });
  } catch (error) {
    for (const db of opened.reverse()) db.close();
    await Promise.allSettled([wal?.close(), checkpointer?.close()]);
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
  notices: SqliteChangeNotices;
  wal: WalSync;
  checkpointer: Checkpointer;
  rateLimiter: RateLimiter;
  connections: Record<'writer' | 'reader' | 'rateLimiter', Db>;
  archive: SqliteArchive;
}): SqliteStore {
  const { records, notices, wal, checkpointer, rateLimiter, connections, archive } = parts;
  let closing: Promise<void> | undefined;
  return {
    records: withSyncedCommits(records, wal),
    rateLimiter,
    changeNotices: notices,
    archive,
    connectionSettings: () => ({
      writer: settingsOf(connections.writer),
      reader: settingsOf(connections.reader),
      rateLimiter: settingsOf(connections.rateLimiter),
    }),
    close() {
      // The WAL's last sync follows the writer's last COMMIT (closing the records commits a pending batch).
      notices.close();
      archive.close();
      closing ??= Promise.all([
        checkpointer.close(),
        records.close().then(() => wal.close()),
        rateLimiter.close(),
      ]).then(() => undefined);
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
