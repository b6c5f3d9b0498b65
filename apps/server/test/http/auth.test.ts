import { describe, expect } from 'vitest';
import { parseRawResponse, serverTest } from '../support/http-harness.js';

const test = serverTest();
const UNAUTHENTICATED = { detail: 'Invalid authentication credentials' };

async function expect401(response: Response) {
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toBe('Bearer');
  expect(response.headers.get('x-ratelimit-limit')).toBeNull();
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(await response.json()).toEqual(UNAUTHENTICATED);
}

describe('authentication', () => {
  test('a missing Authorization header is 401 with WWW-Authenticate: Bearer', async (h) => {
    await expect401(await h.fetch('/api/projects'));
  });

  test('another scheme, an empty key and an unknown key are 401', async (h) => {
    const { apiKey } = await h.account();
    await expect401(await h.fetch('/api/projects', { headers: { Authorization: `Basic ${apiKey}` } }));
    await expect401(await h.fetch('/api/projects', { headers: { Authorization: 'Bearer' } }));
    await expect401(await h.fetch('/api/projects', { headers: { Authorization: 'Bearer ' } }));
    await expect401(await h.fetch('/api/projects', { key: 'mds_not-a-real-key' }));
    await expect401(await h.fetch('/api/projects', { headers: { Authorization: apiKey } }));
  });

  test('the scheme word is case-insensitive', async (h) => {
    const { apiKey } = await h.account();
    for (const scheme of ['bearer', 'BEARER', 'bEaReR']) {
      const response = await h.fetch('/api/projects', { headers: { Authorization: `${scheme} ${apiKey}` } });
      expect(response.status).toBe(200);
    }
  });

  test('a revoked key is refused at once', async (h) => {
    const { apiKey, accountId } = await h.account();
    expect((await h.fetch('/api/projects', { key: apiKey })).status).toBe(200);
    const [key] = await h.store.apiKeys.list({ account: accountId });
    await h.store.apiKeys.revoke({ keyId: key!.keyId });
    await expect401(await h.fetch('/api/projects', { key: apiKey }));
  });

  test('a second key of the account works beside the first', async (h) => {
    const { apiKey, accountId } = await h.account();
    const second = await h.store.apiKeys.create({ account: accountId });
    expect((await h.fetch('/api/projects', { key: second.apiKey })).status).toBe(200);
    expect((await h.fetch('/api/projects', { key: apiKey })).status).toBe(200);
  });

  test('two Authorization headers are refused even when both hold the valid key', async (h) => {
    const { apiKey } = await h.account();
    const raw = await h.raw(
      'GET /api/projects HTTP/1.1\r\nHost: localhost\r\n' +
        `Authorization: Bearer ${apiKey}\r\nAuthorization: Bearer ${apiKey}\r\nConnection: close\r\n\r\n`,
    );
    const response = parseRawResponse(raw);
    expect(response.status).toBe(401);
    expect(JSON.parse(response.body)).toEqual(UNAUTHENTICATED);
  });

  test('authentication comes before routing: unknown paths and wrong methods under /api are 401', async (h) => {
    await expect401(await h.fetch('/api/nothing-here'));
    await expect401(await h.fetch('/api'));
    await expect401(await h.fetch('/api/projects', { method: 'PATCH' }));
    await expect401(await h.fetch('/api/projects/not-a-uuid'));
    await expect401(await h.fetch('/api/projects/%E0%A4%A/files'));
    await expect401(
      await h.fetch('/api/projects', {
        method: 'POST',
        headers: { 'Content-Type': 'text/plain' },
        body: '{',
      }),
    );
  });

  test('with a valid key, unknown paths are 404 and wrong methods 405', async (h) => {
    const { apiKey } = await h.account();
    const unknown = await h.fetch('/api/nothing-here', { key: apiKey });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ detail: 'Not Found' });
    expect(unknown.headers.get('x-ratelimit-limit')).toBe('1000');
  });

  test('/healthz needs no key', async (h) => {
    const response = await h.fetch('/healthz');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });
});

describe('rate limiting', () => {
  serverTest({ settings: { rateLimits: { standard: 3, premium: 5 } } })(
    'every authenticated answer carries the budget; past the limit 429 with Retry-After',
    async (h) => {
      const { apiKey } = await h.account();
      const before = Math.floor(Date.now() / 1000);
      const remaining: string[] = [];
      for (const path of ['/api/projects', '/api/nothing', '/api/projects/not-a-uuid']) {
        const response = await h.fetch(path, { key: apiKey });
        expect(response.headers.get('x-ratelimit-limit')).toBe('3');
        remaining.push(response.headers.get('x-ratelimit-remaining')!);
        const reset = Number(response.headers.get('x-ratelimit-reset'));
        expect(Number.isInteger(reset)).toBe(true);
        expect(reset).toBeGreaterThan(before);
        expect(reset).toBeLessThanOrEqual(before + 3600 + 1);
      }
      expect(remaining).toEqual(['2', '1', '0']);

      const refused = await h.fetch('/api/projects', { key: apiKey });
      expect(refused.status).toBe(429);
      const retryAfter = refused.headers.get('retry-after');
      expect(retryAfter).toMatch(/^[1-9]\d*$/);
      expect(await refused.json()).toEqual({
        detail: `Rate limit exceeded. Try again in ${retryAfter} seconds.`,
      });
      expect(refused.headers.get('x-ratelimit-limit')).toBe('3');
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(refused.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
    },
  );

  serverTest({ settings: { rateLimits: { standard: 1, premium: 3 } } })(
    'the limit follows the tier of the account and is counted per key',
    async (h) => {
      const { apiKey, accountId } = await h.account();
      await h.store.accounts.setTier({ account: accountId, tier: 'premium' });
      const first = await h.fetch('/api/projects', { key: apiKey });
      expect(first.headers.get('x-ratelimit-limit')).toBe('3');
      const other = await h.account();
      expect((await h.fetch('/api/projects', { key: other.apiKey })).status).toBe(200);
      expect((await h.fetch('/api/projects', { key: other.apiKey })).status).toBe(429);
      expect((await h.fetch('/api/projects', { key: apiKey })).status).toBe(200);
    },
  );

  serverTest({ settings: { authFailureLimit: 2 } })(
    'an address that keeps failing authentication gets 429 with Retry-After',
    async (h) => {
      await expect401(await h.fetch('/api/projects', { key: 'wrong-1' }));
      await expect401(await h.fetch('/api/projects', { key: 'wrong-2' }));
      const blocked = await h.fetch('/api/projects', { key: 'wrong-3' });
      expect(blocked.status).toBe(429);
      const retryAfter = blocked.headers.get('retry-after');
      expect(retryAfter).toMatch(/^[1-9]\d*$/);
      expect(await blocked.json()).toEqual({
        detail: `Rate limit exceeded. Try again in ${retryAfter} seconds.`,
      });
    },
  );
});
