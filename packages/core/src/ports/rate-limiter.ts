export interface RateLimitDecision {
  readonly allowed: boolean;
  /** Requests counted in the current window, this one included when allowed. */
  readonly used: number;
  /** `limit - used`, never below zero. */
  readonly remaining: number;
  /** Epoch milliseconds at which the current window ends and the budget is restored. */
  readonly resetAt: number;
}

/**
 * Fixed-window counter. A key's window opens at its first counted request and lasts `windowMs`;
 * a request at or after the window's end opens a new one. Refused requests are not counted.
 * `consume` is atomic: concurrent callers (in any process sharing the store) never exceed `limit`.
 * One process alone is exact. Across processes, a limiter that takes units in blocks
 * (`createLeasedRateLimiter`) may refuse a little before the limit while another process holds unspent
 * units, and its `remaining` is as of its last contact with the shared count.
 */
export interface RateLimiter {
  consume(o: { key: string; limit: number; windowMs: number; now: number }): Promise<RateLimitDecision>;
  close(): Promise<void>;
}

/** What one `SharedBudget.take` obtained. */
export interface BudgetGrant {
  /** Units taken, from 0 (the budget is spent) to the `want` asked for. */
  readonly granted: number;
  /**
   * The window's count after the take: units handed out to every holder, these included. The units taken
   * are the positions `used - granted + 1 … used` of the window. When nothing is granted and no window is
   * open, 0.
   */
  readonly used: number;
  /** Epoch milliseconds at which the window ends (a window that would open at `now` when none is open). */
  readonly resetAt: number;
}

/**
 * A fixed-window counter shared by every process on one store, from which a rate limiter takes units in
 * blocks (see `createLeasedRateLimiter`). Windows behave as `RateLimiter`'s: a window opens at the first
 * take that obtains units and lasts `windowMs`; a take at or after its end opens a new one. A take never
 * lets the count pass `limit` and opens no window when it obtains nothing.
 */
export interface SharedBudget {
  /** Atomically takes up to `want` units (`want` ≥ 1); an adapter may grant fewer, or nothing. */
  take(o: { key: string; want: number; limit: number; windowMs: number; now: number }): Promise<BudgetGrant>;
  /**
   * Returns `units` units never spent to the window ending at `resetAt`. Does nothing when that window is
   * no longer the key's (it ended: its units are void anyway) or holds fewer units than `units`.
   */
  giveBack(o: { key: string; units: number; resetAt: number }): Promise<void>;
  close(): Promise<void>;
}
