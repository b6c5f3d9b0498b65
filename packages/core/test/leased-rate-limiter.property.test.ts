import { createLeasedRateLimiter, type LeasedRateLimiter, type RateLimitDecision } from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createBudgetModel } from './support/shared-budget-model.js';

/**
 * Several leased limiters (as several processes) on one shared budget, their calls to it interleaved in
 * every order fast-check's scheduler picks, with requests arriving in bursts and idle sweeps in between.
 */

const RUNS = Number(process.env.MDSTORE_PBT_RUNS) || 500;
const WINDOW = 1_000;
const T0 = 50_000;

interface Burst {
  readonly instance: number;
  readonly key: 'a' | 'b';
  readonly count: number;
  /** Milliseconds after the previous burst. */
  readonly after: number;
  /** Run an idle sweep on this instance before the burst. */
  readonly sweep: boolean;
  /** Calls into the shared budget released before the next burst arrives. */
  readonly release: number;
}

const scenario = (o: { instances: number; maxAfter: number }) =>
  fc.record({
    allOrNothing: fc.boolean(),
    limit: fc.integer({ min: 1, max: 400 }),
    policy: fc.record({
      maxLease: fc.constantFrom(1, 4, 64),
      divisor: fc.constantFrom(1, 8, 64),
      idleReturnMs: fc.constant(0),
    }),
    instances: fc.integer({ min: 1, max: o.instances }),
    bursts: fc.array(
      fc.record({
        instance: fc.nat(),
        key: fc.constantFrom('a' as const, 'b' as const),
        count: fc.integer({ min: 1, max: 40 }),
        after: fc.integer({ min: 0, max: o.maxAfter }),
        sweep: fc.boolean(),
        release: fc.nat({ max: 4 }),
      }),
      { minLength: 1, maxLength: 12 },
    ),
  });

interface Seen {
  readonly instance: number;
  readonly key: string;
  readonly decision: RateLimitDecision;
}

/** Runs the bursts; every call into the shared budget is released in the scheduler's order. */
async function run(
  s: fc.Scheduler,
  o: {
    allOrNothing: boolean;
    limit: number;
    policy: { maxLease: number; divisor: number; idleReturnMs: number };
    instances: number;
    bursts: Burst[];
  },
) {
  const model = createBudgetModel({
    allOrNothing: o.allOrNothing,
    defer: (task) => s.schedule(Promise.resolve()).then(task),
  });
  const limiters: LeasedRateLimiter[] = Array.from({ length: o.instances }, () =>
    createLeasedRateLimiter(model.shared, o.policy),
  );
  const seen: Seen[] = [];
  const pending: Promise<unknown>[] = [];
  let now = T0;
  for (const burst of o.bursts) {
    now += burst.after;
    const instance = burst.instance % o.instances;
    const limiter = limiters[instance]!;
    if (burst.sweep) pending.push(limiter.returnIdle());
    for (let i = 0; i < burst.count; i++) {
      pending.push(
        limiter
          .consume({ key: burst.key, limit: o.limit, windowMs: WINDOW, now })
          .then((decision) => seen.push({ instance, key: burst.key, decision })),
      );
    }
    // Let some of the scheduled calls run before the next burst arrives.
    await s.waitNext(Math.min(burst.release, s.count()));
  }
  await s.waitFor(Promise.all(pending));
  return { model, limiters, seen };
}

const allowedByWindow = (seen: readonly Seen[]) => {
  const windows = new Map<string, number[]>();
  for (const { key, decision } of seen) {
    if (!decision.allowed) continue;
    const id = `${key}@${decision.resetAt}`;
    windows.set(id, [...(windows.get(id) ?? []), decision.used]);
  }
  return windows;
};

describe('leased rate limiters sharing one budget', () => {
  it('never allow more than the limit per key and window together, each unit spent once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), scenario({ instances: 3, maxAfter: 700 }), async (s, o) => {
        const { seen } = await run(s, o);
        for (const used of allowedByWindow(seen).values()) {
          expect(used.length).toBeLessThanOrEqual(o.limit);
          expect(used.every((position) => position >= 1 && position <= o.limit)).toBe(true);
          // Positions are units of the shared count: distinct, unless units given back by one limiter were
          // taken again by another (then `remaining` repeats a value; the count is still right).
          if (!o.bursts.some((burst) => burst.sweep)) expect(new Set(used).size).toBe(used.length);
        }
        for (const { decision } of seen) {
          expect(decision.remaining).toBe(decision.allowed ? o.limit - decision.used : 0);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('alone, behave exactly as one exact counter: refusals only once the limit is spent', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), scenario({ instances: 1, maxAfter: 0 }), async (s, o) => {
        const { seen, model } = await run(s, { ...o, instances: 1 });
        for (const key of ['a', 'b']) {
          const decisions = seen.filter((entry) => entry.key === key).map((entry) => entry.decision);
          const allowed = decisions.filter((d) => d.allowed).length;
          expect(allowed).toBe(Math.min(o.limit, decisions.length));
          // Remaining told the truth: the lowest one is what the window has left.
          if (allowed > 0) {
            const lowest = Math.min(...decisions.filter((d) => d.allowed).map((d) => d.remaining));
            expect(lowest).toBe(o.limit - allowed);
          }
          if (decisions.length > 0) expect(model.windows.get(key)!.used).toBeGreaterThanOrEqual(allowed);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('hold at most maxLease - 1 units each when idle, refuse at most that early, and lose none at close', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), scenario({ instances: 3, maxAfter: 0 }), async (s, o) => {
        const { seen, model, limiters } = await run(s, o);
        for (const key of ['a', 'b']) {
          const decisions = seen.filter((entry) => entry.key === key).map((entry) => entry.decision);
          const allowed = decisions.filter((d) => d.allowed).length;
          const held = limiters.map((limiter) => limiter.held(key));
          for (const units of held) expect(units).toBeLessThanOrEqual(o.policy.maxLease - 1);
          const count = model.windows.get(key)?.used ?? 0;
          // Every unit taken is spent or held: none lost, none spent twice.
          expect(count).toBe(allowed + held.reduce((sum, units) => sum + units, 0));
          // A refusal came with the count at the limit: what was not spent was held elsewhere.
          if (decisions.some((d) => !d.allowed)) {
            expect(allowed).toBeGreaterThanOrEqual(o.limit - (o.instances - 1) * (o.policy.maxLease - 1));
          }
        }
        await s.waitFor(Promise.all(limiters.map((limiter) => limiter.close())));
        for (const key of ['a', 'b']) {
          const allowed = seen.filter((entry) => entry.key === key && entry.decision.allowed).length;
          expect(model.windows.get(key)?.used ?? 0).toBe(allowed);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
