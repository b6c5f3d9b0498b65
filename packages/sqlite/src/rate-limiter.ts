import {
  type BudgetGrant,
  createLeasedRateLimiter,
  DEFAULT_LEASE_POLICY,
  type LeasedRateLimiter,
  type LeasePolicy,
  type SharedBudget,
  StoreUnavailableError,
} from '@mdstore/core';
import {
  type Db,
  enableWal,
  openConnection,
  retryOnBusy,
  type WriteLockSignal,
  waitForWriteLockAsynchronously,
} from './connections.js';
import { applyMigrations } from './migrations.js';
import type { Migration } from './schema.js';

type TakeRequest = Parameters<SharedBudget['take']>[0];

/**
 * The schema of the rate limiter's own database file, versioned by that file's `user_version` apart from
 * the records schema. The table has the shape of the records schema's `rate_limits`, which the limiter
 * no longer uses (its counts live here since schema 1 of this file).
 */
export const RATE_LIMIT_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'fixed-window counters',
    sql: `CREATE TABLE IF NOT EXISTS rate_limits (
      key TEXT NOT NULL PRIMARY KEY COLLATE BINARY,
      used INTEGER NOT NULL,
      reset_at INTEGER NOT NULL
    ) STRICT, WITHOUT ROWID;`,
  },
];

/**
 * The shared count on a `rate_limits` table reached through `db`, a connection of its own opened with
 * `synchronous=NORMAL`: in WAL mode a commit is then not fsynced, so a power loss may forget the last
 * instants of counting (a few requests become free again), which is harmless, while an fsync per take
 * would cost more than the request itself. WAL frames are still synced before any checkpoint.
 */
export function createSqliteSharedBudget(c: {
  db: Db;
  busyTimeoutMs: number;
  /** Says when another connection of this process gives the write lock back (same file as records). */
  lockSignal?: WriteLockSignal;
}): SharedBudget {
  const { db, busyTimeoutMs, lockSignal } = c;
  const selectWindow = db.prepare<[string], { used: number; resetAt: number }>(
    'SELECT used, reset_at AS resetAt FROM rate_limits WHERE key = ?',
  );
  const saveWindow = db.prepare<[{ key: string; used: number; resetAt: number }]>(
    `INSERT INTO rate_limits (key, used, reset_at) VALUES (@key, @used, @resetAt)
     ON CONFLICT (key) DO UPDATE SET used = excluded.used, reset_at = excluded.reset_at`,
  );
  const returnUnits = db.prepare<[{ key: string; units: number; resetAt: number }]>(
    'UPDATE rate_limits SET used = used - @units WHERE key = @key AND reset_at = @resetAt AND used >= @units',
  );

  // Read, decide and write under one write lock, so that takes in any process never pass the limit.
  // Run with `.immediate()`: a deferred read-then-write upgrade could fail at once.
  const take = db.transaction((r: TakeRequest): BudgetGrant => {
    const stored = selectWindow.get(r.key);
    const open = stored !== undefined && r.now < stored.resetAt;
    const used = open ? stored.used : 0;
    const resetAt = open ? stored.resetAt : r.now + r.windowMs;
    const granted = Math.max(0, Math.min(r.want, r.limit - used));
    // Taking nothing counts nothing and opens no window.
    if (granted === 0) return { granted, used, resetAt };
    saveWindow.run({ key: r.key, used: used + granted, resetAt });
    return { granted, used: used + granted, resetAt };
  });

  let closed = false;
  const locked = <T>(attempt: () => T): Promise<T> =>
    retryOnBusy(
      () => {
        // Checked on every attempt: `close()` may come while a busy attempt waits.
        if (closed) throw new StoreUnavailableError('SQLite rate limiter is closed');
        return attempt();
      },
      lockSignal ? { busyTimeoutMs, lockSignal } : { busyTimeoutMs },
    );

  return {
    take: (r) => locked(() => take.immediate(r)),
    async giveBack(r) {
      // `.run()` steps the statement to its end, so SQLite's automatic checkpoint can run.
      await locked(() => returnUnits.run(r));
    },
    async close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}

export interface SqliteRateLimiterOptions {
  /** The limiter's database file (created when missing), apart from the records file. */
  readonly path: string;
  readonly busyTimeoutMs: number;
  readonly leases?: LeasePolicy;
}

/**
 * Opens the rate limiter on its own database file, shared by every process that uses the same file.
 * Keeping the counts out of the records file matters for speed: a count commit there changed the records
 * WAL, which made the records reader drop its page cache, and queued behind the records writer's lock.
 */
export async function openSqliteRateLimiter(
  o: SqliteRateLimiterOptions,
): Promise<{ limiter: LeasedRateLimiter; db: Db }> {
  const db = openConnection({ path: o.path, busyTimeoutMs: o.busyTimeoutMs, synchronous: 'NORMAL' });
  try {
    await enableWal(db, o.busyTimeoutMs);
    await applyMigrations(db, { busyTimeoutMs: o.busyTimeoutMs, migrations: RATE_LIMIT_MIGRATIONS });
    waitForWriteLockAsynchronously(db);
    const shared = createSqliteSharedBudget({ db, busyTimeoutMs: o.busyTimeoutMs });
    return { limiter: createLeasedRateLimiter(shared, o.leases ?? DEFAULT_LEASE_POLICY), db };
  } catch (error) {
    db.close();
    throw error;
  }
}
