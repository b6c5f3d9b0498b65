import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { RateLimiter } from '../ports/rate-limiter.js';
import { BASE_TIME } from './builders.js';
import { testWithHarness } from './harness.js';

export interface RateLimiterHarness {
  limiter: RateLimiter;
  /** A second limiter on the same shared store, as another process would open it. */
  openSecond?(): Promise<RateLimiter>;
  /** Closes every limiter the harness opened and removes the store. */
  cleanup(): Promise<void>;
}

const WINDOW = 3_600_000;
const aKey = () => `key-${randomUUID()}`;

/** A small seeded generator (mulberry32), so that a failing interleaving can be replayed. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * The compliance suite of `RateLimiter`. Every call passes an explicit `now`; the wall clock is never
 * read. Shared-store behaviour is tested when the harness provides `openSecond`.
 */
export function describeRateLimiterContract(
  adapterName: string,
  open: () => Promise<RateLimiterHarness>,
): void {
  const test = testWithHarness(open);

  describe(`RateLimiter contract: ${adapterName}`, () => {
    test('allows up to the limit, then refuses', async ({ limiter }) => {
      const key = aKey();
      const decisions = [];
      for (let index = 0; index < 4; index += 1) {
        decisions.push(await limiter.consume({ key, limit: 3, windowMs: WINDOW, now: BASE_TIME + index }));
      }
      expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, true, false]);
    });

    test('reports used and remaining', async ({ limiter }) => {
      const key = aKey();
      const seen = [];
      for (let index = 0; index < 5; index += 1) {
        const { used, remaining } = await limiter.consume({
          key,
          limit: 3,
          windowMs: WINDOW,
          now: BASE_TIME,
        });
        seen.push([used, remaining]);
      }
      expect(seen).toEqual([
        [1, 2],
        [2, 1],
        [3, 0],
        [3, 0],
        [3, 0],
      ]);
    });

    test('resetAt is the first request time plus windowMs', async ({ limiter }) => {
      const key = aKey();
      const first = await limiter.consume({ key, limit: 10, windowMs: 60_000, now: BASE_TIME });
      const later = await limiter.consume({ key, limit: 10, windowMs: 60_000, now: BASE_TIME + 45_000 });
      expect(first.resetAt).toBe(BASE_TIME + 60_000);
      expect(later.resetAt).toBe(BASE_TIME + 60_000);
    });

    test('refused requests are not counted', async ({ limiter }) => {
      const key = aKey();
      const consume = (now: number) => limiter.consume({ key, limit: 2, windowMs: 1_000, now });
      await consume(BASE_TIME);
      await consume(BASE_TIME + 10);
      for (const now of [BASE_TIME + 20, BASE_TIME + 500, BASE_TIME + 999]) {
        expect(await consume(now)).toEqual({
          allowed: false,
          used: 2,
          remaining: 0,
          resetAt: BASE_TIME + 1_000,
        });
      }
      // Had the refusals counted (or moved the window), this request would still be refused.
      expect(await consume(BASE_TIME + 1_000)).toEqual({
        allowed: true,
        used: 1,
        remaining: 1,
        resetAt: BASE_TIME + 2_000,
      });
    });

    test('a request exactly at resetAt opens a new window', async ({ limiter }) => {
      const key = aKey();
      const first = await limiter.consume({ key, limit: 1, windowMs: 1_000, now: BASE_TIME });
      const atReset = await limiter.consume({ key, limit: 1, windowMs: 1_000, now: first.resetAt });
      expect(atReset).toEqual({ allowed: true, used: 1, remaining: 0, resetAt: first.resetAt + 1_000 });
    });

    test('a request after resetAt opens a new window starting at that request', async ({ limiter }) => {
      const key = aKey();
      for (let index = 0; index < 3; index += 1) {
        await limiter.consume({ key, limit: 3, windowMs: 1_000, now: BASE_TIME });
      }
      const later = BASE_TIME + 5_432;
      expect(await limiter.consume({ key, limit: 3, windowMs: 1_000, now: later })).toEqual({
        allowed: true,
        used: 1,
        remaining: 2,
        resetAt: later + 1_000,
      });
    });

    test('keys have independent budgets', async ({ limiter }) => {
      const [first, second] = [aKey(), aKey()];
      await limiter.consume({ key: first, limit: 1, windowMs: WINDOW, now: BASE_TIME });
      expect(
        (await limiter.consume({ key: first, limit: 1, windowMs: WINDOW, now: BASE_TIME })).allowed,
      ).toBe(false);
      const other = await limiter.consume({ key: second, limit: 1, windowMs: WINDOW, now: BASE_TIME + 7 });
      expect(other).toEqual({ allowed: true, used: 1, remaining: 0, resetAt: BASE_TIME + 7 + WINDOW });
    });

    test('concurrent consumes never exceed the limit', async ({ limiter }) => {
      const key = aKey();
      const decisions = await Promise.all(
        Array.from({ length: 50 }, () =>
          limiter.consume({ key, limit: 20, windowMs: WINDOW, now: BASE_TIME }),
        ),
      );
      const allowed = decisions.filter((decision) => decision.allowed);
      expect(allowed).toHaveLength(20);
      expect(allowed.map((decision) => decision.used).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 20 }, (_, index) => index + 1),
      );
    });

    test('spends a large budget exactly, each unit once, with remaining = limit - used', async ({
      limiter,
    }) => {
      const key = aKey();
      const limit = 1_000;
      const consume = () => limiter.consume({ key, limit, windowMs: WINDOW, now: BASE_TIME });
      const decisions = [];
      for (let index = 0; index < 900; index += 1) decisions.push(await consume());
      // The rest in concurrent bursts, past the limit.
      for (let burst = 0; burst < 10; burst += 1) {
        decisions.push(...(await Promise.all(Array.from({ length: 15 }, consume))));
      }
      const allowed = decisions.filter((decision) => decision.allowed);
      expect(allowed.map((decision) => decision.used).sort((a, b) => a - b)).toEqual(
        Array.from({ length: limit }, (_, index) => index + 1),
      );
      expect(allowed.every((decision) => decision.remaining === limit - decision.used)).toBe(true);
      expect(decisions.filter((decision) => !decision.allowed)).toHaveLength(50);
      expect(await consume()).toEqual({
        allowed: false,
        used: limit,
        remaining: 0,
        resetAt: BASE_TIME + WINDOW,
      });
    });

    test('two handles racing in random bursts never allow more than the limit together', async (harness, {
      skip,
    }) => {
      if (!harness.openSecond) return skip(`${adapterName} has no shared store`);
      const handles = [harness.limiter, await harness.openSecond()];
      for (const seed of [1, 2, 3]) {
        const random = seededRandom(seed);
        const key = aKey();
        const limit = 300;
        const decisions = [];
        while (decisions.length < 2 * limit) {
          const burst = Array.from({ length: 1 + Math.floor(random() * 20) }, () =>
            handles[random() < 0.5 ? 0 : 1]!.consume({ key, limit, windowMs: WINDOW, now: BASE_TIME }),
          );
          decisions.push(...(await Promise.all(burst)));
        }
        const used = decisions.filter((decision) => decision.allowed).map((decision) => decision.used);
        expect(used.length, `seed ${seed}`).toBeLessThanOrEqual(limit);
        expect(new Set(used).size, `seed ${seed}: a unit spent twice`).toBe(used.length);
        expect(used.every((position) => position >= 1 && position <= limit)).toBe(true);
        // Units may be held by the other handle for a while (leases), but most of the budget is served.
        expect(used.length, `seed ${seed}`).toBeGreaterThanOrEqual(limit / 2);
      }
    });

    test('two handles on one store share one budget', async (harness, { skip }) => {
      if (!harness.openSecond) return skip(`${adapterName} has no shared store`);
      const second = await harness.openSecond();
      const key = aKey();
      const through = (limiter: RateLimiter) =>
        limiter.consume({ key, limit: 3, windowMs: WINDOW, now: BASE_TIME });
      expect(await through(harness.limiter)).toMatchObject({ allowed: true, used: 1 });
      expect(await through(second)).toMatchObject({ allowed: true, used: 2 });
      expect(await through(harness.limiter)).toMatchObject({ allowed: true, used: 3 });
      expect(await through(second)).toMatchObject({ allowed: false, used: 3 });

      const concurrentKey = aKey();
      const decisions = await Promise.all(
        Array.from({ length: 50 }, (_, index) =>
          (index % 2 === 0 ? harness.limiter : second).consume({
            key: concurrentKey,
            limit: 20,
            windowMs: WINDOW,
            now: BASE_TIME,
          }),
        ),
      );
      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(20);
    });
  });
}
