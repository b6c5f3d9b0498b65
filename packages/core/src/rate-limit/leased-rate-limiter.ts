import { StoreUnavailableError } from '../errors.js';
import type { BudgetGrant, RateLimitDecision, RateLimiter, SharedBudget } from '../ports/rate-limiter.js';

/** How far ahead of demand a leased limiter takes units from the shared budget. */
export interface LeasePolicy {
  /** The most units one block may take ahead of demand. 1: no blocks, only the requests waiting. */
  readonly maxLease: number;
  /** A block is at most the budget left divided by `divisor`, so blocks shrink to 1 near the limit. */
  readonly divisor: number;
  /** Every `idleReturnMs`, units held but not spent from since the previous sweep go back. 0: no sweep. */
  readonly idleReturnMs: number;
}

/** Chosen by `bench/support/rate-limiter-options.ts` (docs/performance.md). */
export const DEFAULT_LEASE_POLICY: LeasePolicy = { maxLease: 64, divisor: 64, idleReturnMs: 1_000 };

export interface LeasedRateLimiter extends RateLimiter {
  /** Gives back the units of every block that nothing was spent from since the previous call. */
  returnIdle(): Promise<void>;
  /** Units this limiter holds unspent for `key` (diagnostics and tests). */
  held(key: string): number;
}

interface KeyState {
  /** End of the window the block belongs to. */
  resetAt: number;
  /** Position of the next unit to spend in the window; nothing is held when `next > last`. */
  next: number;
  last: number;
  /** The window's shared count as the last take saw it. */
  seen: number;
  spentSinceSweep: boolean;
  /** The take in flight for this key: its grant, or undefined when it failed (waiters then retry). */
  taking: Promise<BudgetGrant | undefined> | undefined;
  /** Requests of this process waiting for that take. */
  waiting: number;
}

type ConsumeRequest = Parameters<RateLimiter['consume']>[0];

const refusal = (grant: BudgetGrant): RateLimitDecision => ({
  allowed: false,
  used: grant.used,
  remaining: 0,
  resetAt: grant.resetAt,
});
const closedError = () => new StoreUnavailableError('The rate limiter is closed');
const noop = () => {};

/**
 * A `RateLimiter` on a `SharedBudget` that takes units in blocks and spends them locally, so that most
 * requests cost no shared write. The promise of the port holds: every unit spent was taken from the
 * shared count, which never passes the limit, so all processes together never allow more than the limit.
 *
 * - Each request spends the next unit of its key's block; its `used` is that unit's position in the
 *   window and `remaining` is `limit - used`. With one process this is exact. With several it is the
 *   budget left as this process last saw the shared count (at its last take), so it lags by what the
 *   others took since, and it counts units the others hold unspent as gone.
 * - A block ahead of demand is `(limit - seen) / divisor` units at most, and `maxLease`: the blocks shrink
 *   as the budget runs out and are 1 unit in the last `divisor` units of a window (then every request is
 *   one exact shared take). Requests of this process that wait for a take are served by that take too
 *   (batching): their units are spent at once, never held.
 * - Another process may therefore be refused while this one holds unspent units: at most
 *   `maxLease - 1` per other process and key, until they are spent or given back. Units not spent from
 *   for one sweep interval are given back (a process that stops receiving a key's requests returns its
 *   units within two intervals), and so are all units at `close()`. A crash loses the held units until
 *   the window ends (the count stays on the safe side).
 * - Units of a window that has ended are void; a block is never spent past a (lowered) `limit`.
 */
export function createLeasedRateLimiter(shared: SharedBudget, policy: LeasePolicy): LeasedRateLimiter {
  checkPolicy(policy);
  const states = new Map<string, KeyState>();
  let closed = false;
  let closing: Promise<void> | undefined;

  const spend = (state: KeyState | undefined, r: ConsumeRequest): RateLimitDecision | undefined => {
    if (!state || r.now >= state.resetAt || state.next > state.last || state.next > r.limit) return undefined;
    const used = state.next;
    state.next += 1;
    state.spentSinceSweep = true;
    return { allowed: true, used, remaining: r.limit - used, resetAt: state.resetAt };
  };

  const wantFor = (state: KeyState, r: ConsumeRequest): number => {
    const left = r.now < state.resetAt ? r.limit - state.seen : r.limit;
    if (left <= 1) return 1;
    const ahead = Math.min(policy.maxLease, Math.floor(left / policy.divisor));
    return Math.min(Math.max(ahead, 1 + state.waiting), left);
  };

  const giveBack = (key: string, state: KeyState): Promise<void> => {
    const units = state.last - state.next + 1;
    if (units <= 0) return Promise.resolve();
    state.next = state.last + 1; // forgotten before the call: never spent, whatever the outcome
    // A failed give-back only leaves the units counted until the window ends: the safe side.
    return shared.giveBack({ key, units, resetAt: state.resetAt }).catch(noop);
  };

  const takeBlock = async (key: string, state: KeyState, r: ConsumeRequest): Promise<BudgetGrant> => {
    // Nothing usable is held here: units of this window past a lowered limit are returned before taking
    // more; those of a window that has ended are void, and must never count in the next one.
    if (r.now < state.resetAt) await giveBack(key, state);
    else state.next = state.last + 1;
    const grant = await shared.take({ ...r, want: wantFor(state, r) });
    state.resetAt = grant.resetAt;
    state.seen = grant.used;
    if (grant.granted > 0) {
      state.next = grant.used - grant.granted + 1;
      state.last = grant.used;
    }
    return grant;
  };

  const consume = async (r: ConsumeRequest): Promise<RateLimitDecision> => {
    for (;;) {
      if (closed) throw closedError();
      let state = states.get(r.key);
      if (state?.taking) {
        state.waiting += 1;
        const seen = await state.taking;
        state.waiting -= 1;
        const spent = spend(state, r);
        if (spent) return spent;
        // The take that ran while this request waited found the window full: so would this request's.
        if (seen && seen.granted === 0 && r.now < seen.resetAt && seen.used >= r.limit) return refusal(seen);
        continue;
      }
      const spent = spend(state, r);
      if (spent) return spent;
      if (!state) {
        state = {
          resetAt: -Infinity,
          next: 1,
          last: 0,
          seen: 0,
          spentSinceSweep: true,
          taking: undefined,
          waiting: 0,
        };
        states.set(r.key, state);
      }
      const taking = takeBlock(r.key, state, r);
      state.taking = taking.then(
        (grant) => grant,
        () => undefined,
      );
      let grant: BudgetGrant;
      try {
        grant = await taking;
      } finally {
        state.taking = undefined;
      }
      // The taker spends first: its continuation runs before the waiters'.
      const served = spend(state, r);
      if (served) return served;
      return refusal(grant);
    }
  };

  const returnIdle = async (): Promise<void> => {
    const returns: Promise<unknown>[] = [];
    for (const [key, state] of states) {
      if (state.taking) continue;
      if (state.spentSinceSweep) {
        state.spentSinceSweep = false;
      } else if (state.next > state.last) {
        states.delete(key);
      } else {
        // Requests for the key wait for the give-back like for a take, so that a take of theirs never
        // runs before it (in this process, a take then always sees the count without these units).
        const returning = giveBack(key, state).then(() => {
          state.taking = undefined;
          if (states.get(key) === state && state.waiting === 0 && state.next > state.last) states.delete(key);
          return undefined;
        });
        state.taking = returning;
        returns.push(returning);
      }
    }
    await Promise.all(returns);
  };

  const timer =
    policy.idleReturnMs > 0 ? setInterval(() => void returnIdle(), policy.idleReturnMs) : undefined;
  // Where timers can be unreferenced (Node), the sweep alone does not keep the process alive.
  (timer as { unref?: () => void } | undefined)?.unref?.();

  return {
    consume,
    returnIdle,
    held: (key) => {
      const state = states.get(key);
      return state ? Math.max(0, state.last - state.next + 1) : 0;
    },
    close() {
      closing ??= (async () => {
        closed = true;
        if (timer !== undefined) clearInterval(timer);
        // Takes in flight may still bring units; wait for them, then give every held unit back.
        await Promise.all([...states.values()].map((state) => state.taking));
        await Promise.all([...states].map(([key, state]) => giveBack(key, state)));
        states.clear();
        await shared.close();
      })();
      return closing;
    },
  };
}

function checkPolicy(policy: LeasePolicy): void {
  const whole = (name: string, value: number, min: number) => {
    if (!Number.isSafeInteger(value) || value < min) {
      throw new RangeError(`lease policy: ${name} must be a whole number of at least ${min}, got ${value}`);
    }
  };
  whole('maxLease', policy.maxLease, 1);
  whole('divisor', policy.divisor, 1);
  whole('idleReturnMs', policy.idleReturnMs, 0);
}
