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
 */
export interface RateLimiter {
  consume(o: { key: string; limit: number; windowMs: number; now: number }): Promise<RateLimitDecision>;
  close(): Promise<void>;
}
