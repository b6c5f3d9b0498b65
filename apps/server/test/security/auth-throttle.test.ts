import { describe, expect } from 'vitest';
import { exchange, expectHealthy, head, hostileTest, sleep } from '../hostile/support.js';

const LIMIT = 5;
const test = hostileTest({ settings: { authFailureLimit: LIMIT, authFailureWindowMs: 2500 } });

describe('failed authentication is throttled per client address', () => {
  test('the failure after the limit is 429 with Retry-After, even for a valid key, until the window ends', async (ctx) => {
    const path = `/api/projects/${ctx.account.defaultProjectId}`;
    const wrong = (forwardedFor: string) =>
      exchange(ctx, head(ctx, 'GET', path, { 'X-Forwarded-For': forwardedFor }, 'wrong-key'));
    for (let i = 0; i < LIMIT; i++) {
      // A forged X-Forwarded-For (no trusted proxy) does not give each attempt a new address.
      const { response } = await wrong(`10.0.0.${i}`);
      expect(response?.status).toBe(401);
      expect(response?.headers.get('www-authenticate')).toBe('Bearer');
    }
    const blocked = (await wrong('10.0.0.99')).response;
    expect(blocked?.status).toBe(429);
    const retryAfter = Number(blocked?.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3);
    expect(JSON.parse(blocked!.body).detail).toBe(`Rate limit exceeded. Try again in ${retryAfter} seconds.`);

    // By design a valid key from the blocked address is refused too: the key is not even looked at.
    const validButBlocked = (await exchange(ctx, head(ctx, 'GET', path))).response;
    expect(validButBlocked?.status).toBe(429);
    expect(validButBlocked?.headers.get('retry-after')).toBeTruthy();

    // Another address is not affected.
    const elsewhere = (await exchange(ctx, head(ctx, 'GET', path), { localAddress: '127.0.0.2' })).response;
    expect(elsewhere?.status).toBe(200);

    // Health needs no key and is never throttled.
    expect((await ctx.h.fetch('/healthz')).status).toBe(200);

    // Once the window has ended, the address may authenticate again.
    await sleep(retryAfter * 1000 + 100);
    const later = (await exchange(ctx, head(ctx, 'GET', path))).response;
    expect(later?.status).toBe(200);
    await expectHealthy(ctx);
  });
});
