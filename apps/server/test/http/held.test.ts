import type { RecordsRepository } from '@mdstore/core';
import { describe, expect, vi } from 'vitest';
import { type AdapterFactory, selectedAdapters } from '../support/adapters.js';
import { type HttpHarness, serverTest } from '../support/http-harness.js';

/**
 * Held change reads (extensions §7: long polls and SSE streams) and their fair share (issue 34,
 * findings 6 and 7): a revoked or expired key gets nothing more, however long its request was held;
 * the keys of held requests are read once per key per interval, whatever the number of requests; and
 * the key, the account (all its keys) and the instance each have a bound on held requests. Work is
 * counted (store key reads, open held requests), never timed.
 */

/** The store's reads of one key (`findApiKeyById`), counted across the test's adapters. */
const keyReads = { count: 0 };

const countingKeyReads: AdapterFactory = async () => {
  const adapters = await selectedAdapters()();
  const records = new Proxy(adapters.records, {
    get(target, name) {
      const value = Reflect.get(target, name) as unknown;
      if (typeof value !== 'function') return value;
      if (name !== 'findApiKeyById') return value.bind(target);
      return (...args: Parameters<RecordsRepository['findApiKeyById']>) => {
        keyReads.count++;
        return target.findApiKeyById(...args);
      };
    },
  });
  return { ...adapters, records, close: () => adapters.close() };
};

/** No interval check runs by itself during a test (an hour): `h.keyChecks.tick()` runs one. */
const HOUR_MS = 3_600_000;
const test = serverTest({ adapters: countingKeyReads, changes: { keyCheckMs: HOUR_MS } });
const boundedTest = serverTest({
  adapters: countingKeyReads,
  changes: { keyCheckMs: HOUR_MS, maxStreamsPerAccount: 3, maxStreams: 5 },
});

const lastSeq = async (h: HttpHarness, key: string): Promise<number> =>
  ((await (await h.fetch('/api/changes?limit=1000', { key })).json()) as { next_since: number }).next_since;

/** Waits until the server holds `count` streams and polls (admitted: past every bound check). */
const heldOpen = (h: HttpHarness, count: number) =>
  vi.waitFor(() => expect(h.held.open).toBe(count), { timeout: 5000, interval: 10 });

const poll = (h: HttpHarness, key: string, since: number) =>
  h.fetch(`/api/changes?since=${since}&wait=60`, { key });

const stream = (h: HttpHarness, key: string, since: number) =>
  h.fetch(`/api/changes?since=${since}`, { key, headers: { Accept: 'text/event-stream' } });

/** The whole body of a stream, read until the server ends it (or 10 s, so a failure is quick). */
async function untilEnd(response: Response): Promise<string> {
  const timeout = AbortSignal.timeout(10_000);
  const cancel = () => void response.body?.cancel().catch(() => undefined);
  timeout.addEventListener('abort', cancel, { once: true });
  try {
    return await response.text().catch(() => '(cut off)');
  } finally {
    timeout.removeEventListener('abort', cancel);
  }
}

async function keyOf(h: HttpHarness, accountId: string, expiresDate?: string) {
  return h.store.apiKeys.create({ account: accountId, role: 'read', ...(expiresDate && { expiresDate }) });
}

describe('a held request of a revoked or expired key delivers nothing more', () => {
  test('a long poll revoked while held answers 401, not the event committed after', async (h) => {
    const { accountId, apiKey: admin, defaultProjectId } = await h.account();
    const reader = await keyOf(h, accountId);
    const since = await lastSeq(h, admin);
    const held = poll(h, reader.apiKey, since);
    await heldOpen(h, 1);
    expect((await h.fetch(`/api/keys/${reader.keyId}`, { method: 'DELETE', key: admin })).status).toBe(204);
    await h.uploadFile(admin, defaultProjectId, 'after-revocation.md', 'x');
    const answer = await held;
    expect(answer.status).toBe(401);
    expect(await answer.json()).toEqual({ detail: 'Invalid authentication credentials' });
  });

  test('a long poll whose key expired while held answers 401 API key expired', async (h) => {
    const { accountId, apiKey: admin, defaultProjectId } = await h.account();
    const reader = await keyOf(h, accountId, new Date(h.clock.now() + 86_400_000).toISOString());
    const since = await lastSeq(h, admin);
    const held = poll(h, reader.apiKey, since);
    await heldOpen(h, 1);
    h.clock.advance(2 * 86_400_000);
    await h.uploadFile(admin, defaultProjectId, 'after-expiry.md', 'x');
    const answer = await held;
    expect(answer.status).toBe(401);
    expect(await answer.json()).toEqual({ detail: 'API key expired' });
  });

  test('a stream revoked while open ends without the event committed after', async (h) => {
    const { accountId, apiKey: admin, defaultProjectId } = await h.account();
    const reader = await keyOf(h, accountId);
    const since = await lastSeq(h, admin);
    const response = await stream(h, reader.apiKey, since);
    expect(response.status).toBe(200);
    await heldOpen(h, 1);
    await h.store.apiKeys.revoke({ keyId: reader.keyId });
    await h.uploadFile(admin, defaultProjectId, 'after-revocation.md', 'x');
    const text = await untilEnd(response);
    expect(text).not.toContain('after-revocation.md');
    expect(text).not.toMatch(/^id: /m);
    await heldOpen(h, 0);
  });

  test('the interval check ends idle streams and polls of a revoked key (401), not the others', async (h) => {
    const { accountId, apiKey: admin, defaultProjectId } = await h.account();
    const [revoked, kept] = [await keyOf(h, accountId), await keyOf(h, accountId)];
    const since = await lastSeq(h, admin);
    const streams = [await stream(h, revoked.apiKey, since), await stream(h, kept.apiKey, since)];
    const polls = [poll(h, revoked.apiKey, since), poll(h, kept.apiKey, since)];
    await heldOpen(h, 4);
    await h.store.apiKeys.revoke({ keyId: revoked.keyId });
    await h.keyChecks.tick();
    expect((await polls[0]!).status).toBe(401);
    expect(await untilEnd(streams[0]!)).not.toMatch(/^id: /m);
    await heldOpen(h, 2);
    // The other key's requests are still held, and get the next event.
    await h.uploadFile(admin, defaultProjectId, 'next.md', 'x');
    const answer = await polls[1]!;
    expect(answer.status).toBe(200);
    expect(JSON.stringify(await answer.json())).toContain('next.md');
    await streams[1]!.body!.cancel();
  });
});

describe('the keys of held requests are checked once per key', () => {
  test('an interval reads each key once, whatever its number of streams and polls', async (h) => {
    const { accountId, apiKey: admin } = await h.account();
    const [one, two] = [await keyOf(h, accountId), await keyOf(h, accountId)];
    const since = await lastSeq(h, admin);
    const streams = await Promise.all([
      ...Array.from({ length: 5 }, () => stream(h, one.apiKey, since)),
      ...Array.from({ length: 3 }, () => stream(h, two.apiKey, since)),
    ]);
    const polls = Array.from({ length: 2 }, () => poll(h, two.apiKey, since));
    await heldOpen(h, 10);
    keyReads.count = 0;
    await h.keyChecks.tick();
    expect(keyReads.count).toBe(2);
    await h.keyChecks.tick();
    expect(keyReads.count).toBe(4);
    for (const response of streams) await response.body!.cancel();
    await h.store.apiKeys.revoke({ keyId: two.keyId });
    await h.keyChecks.tick();
    for (const answer of await Promise.all(polls)) expect(answer.status).toBe(401);
  });

  test('requests of one key woken by one commit share the check before delivery', async (h) => {
    const { accountId, apiKey: admin, defaultProjectId } = await h.account();
    const reader = await keyOf(h, accountId);
    const since = await lastSeq(h, admin);
    const polls = Array.from({ length: 5 }, () => poll(h, reader.apiKey, since));
    await heldOpen(h, 5);
    keyReads.count = 0;
    await h.uploadFile(admin, defaultProjectId, 'shared.md', 'x');
    for (const answer of await Promise.all(polls)) expect(answer.status).toBe(200);
    // At most one read per poll (no sharing) would be 5; the commit's wave shares one or a few.
    expect(keyReads.count).toBeGreaterThanOrEqual(1);
    expect(keyReads.count).toBeLessThan(5);
  });
});

describe('fair share of held requests', () => {
  boundedTest('past the account’s bound 429, past the instance’s 503, both with Retry-After', async (h) => {
    const a = await h.account();
    const keys = [await keyOf(h, a.accountId), await keyOf(h, a.accountId), await keyOf(h, a.accountId)];
    const since = await lastSeq(h, a.apiKey);
    const held = keys.map((key) => poll(h, key.apiKey, since));
    await heldOpen(h, 3);
    // A fourth key of the same account: the account holds its bound (3) across its keys.
    const refused = await poll(h, a.apiKey, since);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.json()).toEqual({ detail: 'Too many open change streams for this account' });
    const streamRefused = await stream(h, a.apiKey, since);
    expect(streamRefused.status).toBe(429);
    await streamRefused.body?.cancel();
    // Other accounts still get in, up to the instance's bound (5).
    const b = await h.account();
    const bSince = await lastSeq(h, b.apiKey);
    const bHeld = [poll(h, b.apiKey, bSince), poll(h, b.apiKey, bSince)];
    await heldOpen(h, 5);
    const c = await h.account();
    const full = await poll(h, c.apiKey, await lastSeq(h, c.apiKey));
    expect(full.status).toBe(503);
    expect(full.headers.get('retry-after')).toBe('5');
    expect(((await full.json()) as { detail: string }).detail).toMatch(/^Service Unavailable/);
    expect(h.held.open).toBe(5);
    // Answered polls give their places back.
    await h.uploadFile(a.apiKey, a.defaultProjectId, 'a.md', 'x');
    for (const answer of await Promise.all(held)) expect(answer.status).toBe(200);
    await h.uploadFile(b.apiKey, b.defaultProjectId, 'b.md', 'x');
    for (const answer of await Promise.all(bHeld)) expect(answer.status).toBe(200);
    await heldOpen(h, 0);
    const admitted = poll(h, c.apiKey, await lastSeq(h, c.apiKey));
    await heldOpen(h, 1);
    await h.uploadFile(c.apiKey, c.defaultProjectId, 'c.md', 'x');
    expect((await admitted).status).toBe(200);
  });
});
