import { StoreUnavailableError } from '@mdstore/core';
import Database from 'better-sqlite3';
import { isBusyError, toStoreError } from './errors.js';

export type Db = Database.Database;

export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

export interface ConnectionOptions {
  readonly path: string;
  readonly busyTimeoutMs: number;
  /** FULL: every commit is fsynced. NORMAL: WAL commits are not (may lose the last ones on power loss). */
  readonly synchronous: 'FULL' | 'NORMAL';
  readonly readonly?: boolean;
}

/**
 * Opens one connection and sets its per-connection pragmas, `busy_timeout` included: while opening, a
 * statement may meet another process's exclusive lock (switching the file to WAL, WAL recovery), and
 * SQLite's own wait is right there. WAL is a property of the file, set once (see `enableWal`).
 */
export function openConnection(options: ConnectionOptions): Db {
  let db: Db;
  try {
    const readonly = options.readonly ?? false;
    db = new Database(options.path, { readonly, fileMustExist: readonly });
  } catch (error) {
    throw toStoreError(error);
  }
  try {
    db.pragma(`busy_timeout = ${Math.trunc(options.busyTimeoutMs)}`);
    db.pragma(`synchronous = ${options.synchronous}`);
    db.pragma('foreign_keys = ON');
    return db;
  } catch (error) {
    db.close();
    throw toStoreError(error);
  }
}

/**
 * For a connection that takes the write lock, once open: `busy_timeout` makes SQLite sleep, synchronously,
 * inside the call that met the lock. In this single-threaded process the holder of the write lock may be
 * another connection of ours, waiting on the event loop to reach its COMMIT, and sleeping inside SQLite
 * would block that loop until the timeout expired (then fail). So these connections fail at once with
 * SQLITE_BUSY, and `retryOnBusy` waits between attempts, honouring the same timeout without blocking.
 * Only `BEGIN IMMEDIATE` meets that lock: in WAL mode statements inside the transaction never wait.
 */
export function waitForWriteLockAsynchronously(db: Db): void {
  db.pragma('busy_timeout = 0');
}

/** Switches the file to WAL (persistent; a no-op when it already is). Needs an exclusive lock once. */
export async function enableWal(db: Db, busyTimeoutMs: number): Promise<void> {
  const mode = await retryOnBusy(() => db.pragma('journal_mode = WAL', { simple: true }), { busyTimeoutMs });
  if (String(mode).toLowerCase() !== 'wal') {
    throw new StoreUnavailableError(`SQLite: cannot enable WAL journal mode (got '${String(mode)}')`);
  }
}

/** Delays between attempts, after SQLite's own busy handler; the first retry only yields the loop. */
const BACKOFF_MS = [0, 1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100];

/**
 * Tells the connections of this process waiting for the write lock that another of its connections has
 * given it back, so that they retry at once instead of at their next backoff step.
 */
export interface WriteLockSignal {
  released(): void;
  /** Settles at the next `released()`. */
  nextRelease(): Promise<void>;
}

export function createWriteLockSignal(): WriteLockSignal {
  let next: { promise: Promise<void>; resolve: () => void } | undefined;
  return {
    released() {
      next?.resolve();
      next = undefined;
    },
    nextRelease() {
      if (!next) {
        let resolve!: () => void;
        const promise = new Promise<void>((settle) => {
          resolve = settle;
        });
        next = { promise, resolve };
      }
      return next.promise;
    },
  };
}

export interface RetryOptions {
  readonly busyTimeoutMs: number;
  /** Ends a wait early: the lock holder is in this process and says when it is done. */
  readonly lockSignal?: WriteLockSignal;
}

/**
 * Runs `attempt` (a synchronous call that takes a lock) until it does not fail with SQLITE_BUSY or
 * `busyTimeoutMs` has passed, waiting asynchronously in between. Other errors are translated and thrown.
 */
export async function retryOnBusy<T>(attempt: () => T, o: RetryOptions): Promise<T> {
  const deadline = performance.now() + o.busyTimeoutMs;
  for (let round = 0; ; round += 1) {
    try {
      return attempt();
    } catch (error) {
      const remaining = deadline - performance.now();
      if (!isBusyError(error) || remaining <= 0) throw toStoreError(error);
      const delay = BACKOFF_MS[Math.min(round, BACKOFF_MS.length - 1)] ?? 100;
      await pause(Math.min(delay, remaining), o.lockSignal);
    }
  }
}

/** Waits `ms` (0: one turn of the event loop), or less when `signal` reports a release first. */
function pause(ms: number, signal: WriteLockSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (ms === 0) {
      setImmediate(resolve);
      return;
    }
    const timer = setTimeout(resolve, ms);
    signal?.nextRelease().then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
