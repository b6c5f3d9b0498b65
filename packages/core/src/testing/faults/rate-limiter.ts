import type { RateLimiter } from '../../ports/rate-limiter.js';
import type { FaultPlan } from './plan.js';
import { createStriker, underFault } from './strike.js';

/** The rate limiter with faults injected by `plan` on `consume`. */
export function withRateLimiterFaults(inner: RateLimiter, plan: FaultPlan): RateLimiter {
  const striker = createStriker(plan, 'rateLimiter');
  return {
    consume: (o) => underFault(striker.decide('consume', striker.count('consume')), () => inner.consume(o)),
    close: () => inner.close(),
  };
}
