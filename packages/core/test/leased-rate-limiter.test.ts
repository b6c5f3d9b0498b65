import {
  createLeasedRateLimiter,
  type LeasedRateLimiter,
  type LeasePolicy,
  type RateLimitDecision,
} from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { createBudgetModel } from './support/shared-budget-model.js';

const T0 = 1_000_000;
const HOUR = 3_600_000;
const POLICY: LeasePolicy = { maxLease: 64, divisor: 64, idleReturnMs: 0 };

const consumeMany = async (limiter: LeasedRateLimiter, count: number, o: { limit: number; key?: string }) => {
  const decisions: RateLimitDecision[] = [];
  for (let i = 0; i < count; i++) {
    decisions.push(await limiter.consume({ key: o.key ?? 'k', limit: o.limit, windowMs: HOUR, now: T0 + i }));
  }
  return decisions;
};

describe('leased rate limiter', () => {
  it('takes blocks of up to maxLease units and spends them locally, in order', async () => {
    const model = createBudgetModel();
    const limiter = createLeasedRateLimiter(model.shared, POLICY);
    const decisions = await consumeMany(limiter, 100, { limit: 10_000 });
    expect(model.takes.map((take) => take.want)).toEqual([64, 64]);
    expect(decisions.map((d) => d.used)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(
      decisions.every((d) => d.allowed && d.remaining === 10_000 - d.used && d.resetAt === T0 + HOUR),
    ).toBe(true);
    expect(limiter.held('k')).toBe(28);
    expect(model.windows.get('k')?.used).toBe(128);
  });

  it('shrinks its blocks as the budget runs out: one unit per take in the last `divisor` units', async () => {
    const model = createBudgetModel();
    const limiter = createLeasedRateLimiter(model.shared, POLICY);
    const decisions = await consumeMany(limiter, 520, { limit: 500 });
    for (const take of model.takes) {
      expect(take.want).toBeLessThanOrEqual(
        Math.max(1, Math.floor((500 - take.usedBefore) / POLICY.divisor)),
      );
    }
    expect(model.takes.filter((take) => take.usedBefore >= 500 - 64).every((take) => take.want === 1)).toBe(
      true,
    );
    // One process alone is exact: 500 allowed, positions 1…500, then refusals.
    expect(decisions.filter((d) => d.allowed).map((d) => d.used)).toEqual(
      Array.from({ length: 500 }, (_, i) => i + 1),
    );
    expect(decisions.slice(500).every((d) => !d.allowed && d.used === 500 && d.remaining === 0)).toBe(true);
  });

  it('serves the requests waiting for a take with that take (batching), holding nothing for later', async () => {
    const model = createBudgetModel();
    const limiter = createLeasedRateLimiter(model.shared, POLICY);
    const decisions = await Promise.all(
      Array.from({ length: 10 }, () => limiter.consume({ key: 'k', limit: 20, windowMs: HOUR, now: T0 })),
    );
    expect(model.takes.map((take) => take.want)).toEqual([1, 9]);
    expect(decisions.map((d) => d.used).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(limiter.held('k')).toBe(0);
  });

  it('refuses the requests that waited for a take that found the window full, without a take each', async () => {
    const model = createBudgetModel();
    const limiter = createLeasedRateLimiter(model.shared, POLICY);
    const decisions = await Promise.all(
      Array.from({ length: 5 }, () => limiter.consume({ key: 'k', limit: 1, windowMs: HOUR, now: T0 })),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(1);
    expect(decisions.filter((d) => !d.allowed)).toEqual(
      Array.from({ length: 4 }, () => ({ allowed: false, used: 1, remaining: 0, resetAt: T0 + HOUR })),
    );
    expect(model.takes).toHaveLength(2);
  });

  it('never spends a held unit past a lowered limit, and gives the rest back', async () => {
    const model = createBudgetModel();
    const limiter = createLeasedRateLimiter(model.shared, POLICY);
    await consumeMany(limiter, 2, { limit: 10_000 });
    expect(limiter.held('k')).toBe(62);
    const lowered = await consumeMany(limiter, 4, { limit: 5 });
    expect(lowered.map((d) => [d.allowed, d.used, d.remaining])).toEqual([
      [true, 3, 2],
      [true, 4, 1],
      [true, 5, 0],
      [false, 5, 0],
    ]);
    expect(model.givenBack).toEqual([{ key: 'k', units: 59, resetAt: T0 + HOUR }]);
    expect(model.windows.get('k')?.used).toBe(5);
  });

  it('drops the units of a window that has ended and opens a new window at `now`', async () => {
    const model = createBudgetModel();
    const limiter = createLeasedRateLimiter(model.shared, POLICY);
    await consumeMany(limiter, 3, { limit: 10_000 });
    const next = await limiter.consume({ key: 'k', limit: 10_000, windowMs: HOUR, now: T0 + HOUR });
    expect(next).toEqual({ allowed: true, used: 1, remaining: 9_999, resetAt: T0 + 2 * HOUR });
    expect(model.givenBack).toEqual([]);
  });

  it('never spends units of an ended window in the next one, even after a refusal there', async () => {
    const model = createBudgetModel();
    const policy = { ...POLICY, divisor: 1 };
    const [first, second] = [
      createLeasedRateLimiter(model.shared, policy),
      createLeasedRateLimiter(model.shared, policy),
    ];
    const at = (limiter: LeasedRateLimiter, now: number) =>
      limiter.consume({ key: 'k', limit: 2, windowMs: HOUR, now });
    await at(first, T0); // a block of 2: one spent, one held
    expect(first.held('k')).toBe(1);
    // The next window, filled by the other limiter.
    expect((await Promise.all([at(second, T0 + HOUR), at(second, T0 + HOUR)])).every((d) => d.allowed)).toBe(
      true,
    );
    expect(await at(first, T0 + HOUR)).toMatchObject({ allowed: false, used: 2 });
    expect(await at(first, T0 + HOUR + 1)).toMatchObject({ allowed: false, used: 2 });
    expect(first.held('k')).toBe(0);
  });

  it('gives back the units of keys not spent from for a whole sweep interval', async () => {
    const model = createBudgetModel();
    const limiter = createLeasedRateLimiter(model.shared, POLICY);
    await consumeMany(limiter, 3, { limit: 10_000, key: 'idle' });
    await consumeMany(limiter, 3, { limit: 10_000, key: 'busy' });
    await limiter.returnIdle(); // both were spent from since the start: kept
    expect(model.givenBack).toEqual([]);
    await consumeMany(limiter, 1, { limit: 10_000, key: 'busy' });
    await limiter.returnIdle();
    expect(model.givenBack).toEqual([{ key: 'idle', units: 61, resetAt: T0 + HOUR }]);
    expect(limiter.held('idle')).toBe(0);
    expect(limiter.held('busy')).toBe(60);
    expect(model.windows.get('idle')?.used).toBe(3);
  });

  it('gives every held unit back at close, waiting for a take in flight, and refuses to consume after', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const model = createBudgetModel({
      defer: async (run) => {
        await gate;
        return run();
      },
    });
    const limiter = createLeasedRateLimiter(model.shared, POLICY);
    const inFlight = limiter.consume({ key: 'k', limit: 10_000, windowMs: HOUR, now: T0 });
    const closing = limiter.close();
    release();
    await expect(inFlight).resolves.toMatchObject({ allowed: true, used: 1 });
    await closing;
    expect(model.windows.get('k')?.used).toBe(1);
    await expect(limiter.consume({ key: 'k', limit: 10, windowMs: HOUR, now: T0 })).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
    });
  });

  it('fails only the request whose take failed; the ones waiting for it take again', async () => {
    const model = createBudgetModel();
    model.failNext.push('take');
    const limiter = createLeasedRateLimiter(model.shared, POLICY);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 3 }, () => limiter.consume({ key: 'k', limit: 100, windowMs: HOUR, now: T0 })),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect(model.windows.get('k')?.used).toBe(2);
  });

  it('keeps units whose give-back failed counted (the safe side) and carries on', async () => {
    const model = createBudgetModel();
    const limiter = createLeasedRateLimiter(model.shared, POLICY);
    await consumeMany(limiter, 1, { limit: 10_000 });
    model.failNext.push('giveBack');
    await limiter.returnIdle();
    await limiter.returnIdle();
    expect(limiter.held('k')).toBe(0);
    expect(model.windows.get('k')?.used).toBe(64);
    expect((await consumeMany(limiter, 1, { limit: 10_000 }))[0]).toMatchObject({ allowed: true, used: 65 });
  });

  it('rejects a policy that is not whole numbers', () => {
    const { shared } = createBudgetModel();
    expect(() => createLeasedRateLimiter(shared, { ...POLICY, maxLease: 0 })).toThrow(RangeError);
    expect(() => createLeasedRateLimiter(shared, { ...POLICY, divisor: 1.5 })).toThrow(RangeError);
  });
});
