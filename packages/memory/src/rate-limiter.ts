import type { RateLimitDecision, RateLimiter } from '@mdstore/core';

export interface MemoryRateLimiterOptions {
  /** Once this many keys are tracked, windows that have ended are dropped. Default 10 000. */
  sweepAbove?: number;
}

interface Window {
  used: number;
  readonly resetAt: number;
}

/**
 * Fixed-window counters in process memory. Each `consume` reads and writes its counter without
 * awaiting anything in between, which makes it atomic within the process.
 */
export function createMemoryRateLimiter(options: MemoryRateLimiterOptions = {}): RateLimiter {
  const sweepAbove = options.sweepAbove ?? 10_000;
  const windows = new Map<string, Window>();

  const sweep = (now: number) => {
    for (const [key, window] of windows) if (window.resetAt <= now) windows.delete(key);
  };

  return {
    async consume({ key, limit, windowMs, now }): Promise<RateLimitDecision> {
      let window = windows.get(key);
      if (!window || now >= window.resetAt) {
        // A refused request opens no window: only counted requests do.
        if (limit < 1) return { allowed: false, used: 0, remaining: 0, resetAt: now + windowMs };
        if (windows.size >= sweepAbove) sweep(now);
        window = { used: 0, resetAt: now + windowMs };
        windows.set(key, window);
      }
      const allowed = window.used < limit;
      if (allowed) window.used += 1;
      return {
        allowed,
        used: window.used,
        remaining: Math.max(0, limit - window.used),
        resetAt: window.resetAt,
      };
    },

    async close() {},
  };
}
