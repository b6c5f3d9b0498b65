import {
  type BudgetGrant,
  createLeasedRateLimiter,
  DEFAULT_LEASE_POLICY,
  type LeasedRateLimiter,
  type LeasePolicy,
  type SharedBudget,
} from '@mdstore/core';
import type { Query } from './executor.js';

/**
 * Takes `$5` units in one statement, atomically, whatever the number of instances on the database: the
 * upsert either opens a new window (no row yet, or the window has ended), or adds the units when the
 * window still has room for all of them; otherwise its WHERE refuses the update and it returns no row.
 * Concurrent callers on one key queue on the row lock and each re-evaluates the WHERE on the latest row,
 * so the count can never pass `limit`. All or nothing, so that the caller knows what it obtained
 * (PostgreSQL 15's RETURNING sees only the new row).
 *
 * `set_config('synchronous_commit', 'off', true)` is `SET LOCAL` for the statement's own (implicit)
 * transaction: its commit does not wait for the WAL flush. Losing the last few counts in a database crash
 * only lets a client a few requests more; an fsync per take would cost far more. It is joined from
 * the outer side so that it runs whether or not the upsert returns a row.
 */
export const TAKE_SQL = `
  WITH settings AS (SELECT set_config('synchronous_commit', 'off', true) AS synchronous_commit),
  counted AS (
    INSERT INTO rate_limits AS r (key, used, window_ends_at) VALUES ($1, $5::integer, $2::bigint + $3::bigint)
    ON CONFLICT (key) DO UPDATE SET
      used = CASE WHEN $2::bigint >= r.window_ends_at THEN $5::integer ELSE r.used + $5::integer END,
      window_ends_at = CASE WHEN $2::bigint >= r.window_ends_at THEN $2::bigint + $3::bigint
                            ELSE r.window_ends_at END
      WHERE $2::bigint >= r.window_ends_at OR r.used + $5::integer <= $4::integer
    RETURNING r.used, r.window_ends_at
  )
  SELECT counted.used, counted.window_ends_at FROM settings LEFT JOIN counted ON true`;

const CURRENT_WINDOW_SQL = 'SELECT used, window_ends_at FROM rate_limits WHERE key = $1';

/** Conditional on the window, so that units of an ended window never flow into the next one. */
const GIVE_BACK_SQL = `UPDATE rate_limits SET used = used - $3::integer
  WHERE key = $1 AND window_ends_at = $2::bigint AND used >= $3::integer`;

interface WindowRow {
  used: number | null;
  window_ends_at: number | null;
}

const assertWholeNumber = (name: string, value: number, min: number): void => {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`${name} must be a whole number of at least ${min}, got ${value}`);
  }
};

/** The shared count on the `rate_limits` table; the caller's pool serves the statements. */
export const createPostgresSharedBudget = (o: { query: Query; close: () => Promise<void> }): SharedBudget => {
  const takeUnits = async (
    r: { key: string; now: number; windowMs: number; limit: number },
    want: number,
  ) => {
    const { rows } = await o.query<WindowRow>(TAKE_SQL, [r.key, r.now, r.windowMs, r.limit, want]);
    const row = rows[0];
    return row?.used != null && row.window_ends_at != null
      ? { granted: want, used: row.used, resetAt: row.window_ends_at }
      : undefined;
  };
  return {
    async take(r): Promise<BudgetGrant> {
      assertWholeNumber('limit', r.limit, 0);
      assertWholeNumber('windowMs', r.windowMs, 1);
      assertWholeNumber('now', r.now, 0);
      assertWholeNumber('want', r.want, 1);
      if (r.limit === 0) return refuse(o.query, r);
      const want = Math.min(r.want, r.limit);
      // A block that no longer fits falls back to one unit (the exact, per-request take).
      const grant = (await takeUnits(r, want)) ?? (want > 1 ? await takeUnits(r, 1) : undefined);
      return grant ?? refuse(o.query, r);
    },
    async giveBack({ key, units, resetAt }) {
      assertWholeNumber('units', units, 1);
      await o.query(GIVE_BACK_SQL, [key, resetAt, units]);
    },
    close: o.close,
  };
};

/**
 * Describes a refusal with the window as it stands now (a separate read; the refusal itself was decided
 * atomically above). Without a window (a limit of zero on a fresh key) the budget would be restored by a
 * window opened now.
 */
const refuse = async (
  query: Query,
  r: { key: string; now: number; windowMs: number },
): Promise<BudgetGrant> => {
  const { rows } = await query<WindowRow>(CURRENT_WINDOW_SQL, [r.key]);
  const row = rows[0];
  const open = row?.used != null && row.window_ends_at != null && r.now < row.window_ends_at;
  return open
    ? { granted: 0, used: row.used!, resetAt: row.window_ends_at! }
    : { granted: 0, used: 0, resetAt: r.now + r.windowMs };
};

/** The rate limiter of a PostgreSQL store: blocks of units taken from the shared count (see the core). */
export const createRateLimiter = (o: {
  query: Query;
  close: () => Promise<void>;
  leases?: LeasePolicy;
}): LeasedRateLimiter =>
  createLeasedRateLimiter(createPostgresSharedBudget(o), o.leases ?? DEFAULT_LEASE_POLICY);
