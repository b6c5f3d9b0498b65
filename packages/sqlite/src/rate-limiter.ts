import type { RateLimitDecision, RateLimiter } from '@mdstore/core';
import { StoreUnavailableError } from '@mdstore/core';
import { type Db, retryOnBusy, type WriteLockSignal } from './connections.js';

type ConsumeRequest = Parameters<RateLimiter['consume']>[0];

/**
 * The fixed-window rate limiter on the `rate_limits` table, shared by every process using the file.
 *
 * It owns its connection, opened with `synchronous=NORMAL`: in WAL mode a commit is then not fsynced, so a
 * power loss may forget the last instants of counting (a few requests become free again), which is
 * harmless, while an fsync on every request would cost more than the request itself. The records
 * connection keeps FULL; WAL frames are still synced before any checkpoint, so corruption is not possible.
 */
export function createSqliteRateLimiter(c: {
  db: Db;
  busyTimeoutMs: number;
  /** Says when this process's records writer gives the write lock back (see `createSqliteRecords`). */
  lockSignal?: WriteLockSignal;
}): RateLimiter {
  const { db, busyTimeoutMs, lockSignal } = c;

  const selectWindow = db.prepare<[string], { used: number; resetAt: number }>(
    'SELECT used, reset_at AS resetAt FROM rate_limits WHERE key = ?',
  );
  const saveWindow = db.prepare<[{ key: string; used: number; resetAt: number }]>(
    `INSERT INTO rate_limits (key, used, reset_at) VALUES (@key, @used, @resetAt)
     ON CONFLICT (key) DO UPDATE SET used = excluded.used, reset_at = excluded.reset_at`,
  );

  // Read, decide and write under one write lock, so that concurrent callers in any process never
  // exceed the limit. It is run with `.immediate()`: a deferred read-then-write upgrade could fail at once.
  const decide = db.transaction((request: ConsumeRequest): RateLimitDecision => {
    const stored = selectWindow.get(request.key);
    const window =
      stored && request.now < stored.resetAt ? stored : { used: 0, resetAt: request.now + request.windowMs };
    if (window.used >= request.limit) {
      // Refused requests are not counted, and do not open a window either.
      return { allowed: false, used: window.used, remaining: 0, resetAt: window.resetAt };
    }
    const used = window.used + 1;
    saveWindow.run({ key: request.key, used, resetAt: window.resetAt });
    return { allowed: true, used, remaining: Math.max(0, request.limit - used), resetAt: window.resetAt };
  });

  let closed = false;
  return {
    async consume(request) {
      const attempt = () => {
        // Checked on every attempt: `close()` may come while a busy attempt waits.
        if (closed) throw new StoreUnavailableError('SQLite rate limiter is closed');
        return decide.immediate(request);
      };
      return retryOnBusy(attempt, lockSignal ? { busyTimeoutMs, lockSignal } : { busyTimeoutMs });
    },
    async close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}
