import type { RateLimitDecision, RateLimiter } from '@mdstore/core';
import type { Query } from './records.js';

/**
 * One statement decides and counts, atomically, whatever the number of instances on the database: the
 * upsert either opens a new window (no row yet, or the window has ended), or counts one more request
 * when the window still has room; otherwise its WHERE refuses the update and it returns no row.
 * Concurrent callers on one key queue on the row lock and each re-evaluates the WHERE on the latest row,
 * so the count can never pass `limit`.
 *
 * `set_config('synchronous_commit', 'off', true)` is `SET LOCAL` for the statement's own (implicit)
 * transaction: its commit does not wait for the WAL flush. Losing the last few counts in a database crash
 * only lets a client a few requests more; an fsync per API request would cost far more. It is joined from
 * the outer side so that it runs whether or not the upsert returns a row.
 */
export const CONSUME_SQL = `
  WITH settings AS (SELECT set_config('synchronous_commit', 'off', true) AS synchronous_commit),
  counted AS (
    INSERT INTO rate_limits AS r (key, used, window_ends_at) VALUES ($1, 1, $2::bigint + $3::bigint)
    ON CONFLICT (key) DO UPDATE SET
      used = CASE WHEN $2::bigint >= r.window_ends_at THEN 1 ELSE r.used + 1 END,
      window_ends_at = CASE WHEN $2::bigint >= r.window_ends_at THEN $2::bigint + $3::bigint
                            ELSE r.window_ends_at END
      WHERE $2::bigint >= r.window_ends_at OR r.used < $4::integer
    RETURNING r.used, r.window_ends_at
  )
  SELECT counted.used, counted.window_ends_at FROM settings LEFT JOIN counted ON true`;

const CURRENT_WINDOW_SQL = 'SELECT used, window_ends_at FROM rate_limits WHERE key = $1';

interface WindowRow {
  used: number | null;
  window_ends_at: number | null;
}

const decision = (o: {
  allowed: boolean;
  used: number;
  limit: number;
  resetAt: number;
}): RateLimitDecision => ({
  allowed: o.allowed,
  used: o.used,
  remaining: Math.max(0, o.limit - o.used),
  resetAt: o.resetAt,
});

const assertWholeNumber = (name: string, value: number, min: number): void => {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`${name} must be a whole number of at least ${min}, got ${value}`);
  }
};

export const createRateLimiter = (o: { query: Query; close: () => Promise<void> }): RateLimiter => ({
  async consume({ key, limit, windowMs, now }) {
    assertWholeNumber('limit', limit, 0);
    assertWholeNumber('windowMs', windowMs, 1);
    assertWholeNumber('now', now, 0);
    if (limit === 0) return refuse({ query: o.query, key, limit, now, windowMs });
    const { rows } = await o.query<WindowRow>(CONSUME_SQL, [key, now, windowMs, limit]);
    const row = rows[0];
    if (row?.used != null && row.window_ends_at != null) {
      return decision({ allowed: true, used: row.used, limit, resetAt: row.window_ends_at });
    }
    return refuse({ query: o.query, key, limit, now, windowMs });
  },
  close: o.close,
});

/**
 * Describes a refusal with the window as it stands now (a separate read; the refusal itself was decided
 * atomically above). Without a window (a limit of zero on a fresh key) the budget would be restored by a
 * window opened now.
 */
const refuse = async (o: {
  query: Query;
  key: string;
  limit: number;
  now: number;
  windowMs: number;
}): Promise<RateLimitDecision> => {
  const { rows } = await o.query<WindowRow>(CURRENT_WINDOW_SQL, [o.key]);
  const row = rows[0];
  const open = row?.used != null && row.window_ends_at != null && o.now < row.window_ends_at;
  return open
    ? decision({ allowed: false, used: row.used!, limit: o.limit, resetAt: row.window_ends_at! })
    : decision({ allowed: false, used: 0, limit: o.limit, resetAt: o.now + o.windowMs });
};
