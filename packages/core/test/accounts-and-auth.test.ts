import { createHash } from 'node:crypto';
import {
  constantTimeEqual,
  createMdStore,
  LAST_USED_WRITE_INTERVAL_MS,
  RateLimitedError,
  RequestRateLimitedError,
} from '@mdstore/core';
import { createMemoryBlobStore, createMemoryRateLimiter } from '@mdstore/memory';
import { describe, expect, it } from 'vitest';
import { anAccount, codeOf, createFixture, overriding } from './support/fixture.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('accounts and API keys', () => {
  it('notes a key’s last use at most every 30 s per instance, not on every request', async () => {
    const { store, records, clock } = createFixture();
    const alice = await anAccount(store, 'alice');
    const stored = async () => (await records.findApiKeyById({ keyId: alice.principal.keyId }))?.lastUsedAt;
    const first = await stored();
    expect(first).toBe(clock.now());
    let writes = 0;
    const counting = createMdStore({
      records: overriding(records, {
        withTransaction: (work) => {
          writes++;
          return records.withTransaction(work);
        },
      }),
      blobs: createMemoryBlobStore(),
      rateLimiter: createMemoryRateLimiter(),
      clock,
    });
    for (let i = 0; i < 20; i++) {
      clock.advance(1_000);
      await counting.authenticate({ apiKey: alice.apiKey });
    }
    // 20 s after the last write: nothing written yet.
    expect(writes).toBe(0);
    expect(await stored()).toBe(first);
    clock.advance(LAST_USED_WRITE_INTERVAL_MS);
    await counting.authenticate({ apiKey: alice.apiKey });
    await counting.authenticate({ apiKey: alice.apiKey });
    expect(writes).toBe(1);
    expect(await stored()).toBe(clock.now());
  });

  it('creates an account with a default project and a key that authenticates', async () => {
    const { store } = createFixture();
    const created = await store.accounts.create({ name: 'alice' });
    expect(created.account).toMatchObject({ name: 'alice', tier: 'standard' });
    expect(created.defaultProject).toMatchObject({ name: 'Default', isDefault: true, isActive: true });
    const principal = await store.authenticate({ apiKey: created.apiKey.apiKey });
    // Extensions §8: the account's first key is admin of every project and never expires.
    expect(principal).toEqual({
      accountId: created.account.id,
      keyId: created.apiKey.keyId,
      tier: 'standard',
      role: 'admin',
      projectIds: null,
      pathPrefixes: null,
      expiresAt: null,
    });
    expect(await codeOf(() => store.accounts.create({ name: 'alice' }))).toBe('ACCOUNT_NAME_TAKEN');
  });

  it('issues keys with at least 256 bits of randomness and stores only their hash', async () => {
    const { store, records } = createFixture();
    const alice = await anAccount(store, 'alice');
    const second = await store.apiKeys.create({ account: 'alice' });
    expect(second.apiKey).not.toBe(alice.apiKey);
    // 43 base64url characters carry 258 bits.
    expect(second.apiKey).toMatch(/^mds_[A-Za-z0-9_-]{43}$/);

    const stored = await records.listApiKeys({ accountId: alice.accountId });
    expect(stored.map((key) => key.keyHash).sort()).toEqual(
      [sha256(alice.apiKey), sha256(second.apiKey)].sort(),
    );
    const everything = JSON.stringify({
      keys: stored,
      accounts: await records.listAccounts(),
      projects: await records.listProjects({ accountId: alice.accountId }),
    });
    for (const secret of [alice.apiKey, second.apiKey]) {
      expect(everything).not.toContain(secret);
      expect(everything).not.toContain(secret.slice(4));
    }
  });

  it('lists keys by account id or name, without secrets', async () => {
    const { store } = createFixture();
    const alice = await anAccount(store, 'alice');
    await store.apiKeys.create({ account: alice.accountId });
    const byName = await store.apiKeys.list({ account: 'alice' });
    const byId = await store.apiKeys.list({ account: alice.accountId.toUpperCase() });
    expect(byName).toHaveLength(2);
    expect(byId).toEqual(byName);
    for (const key of byName)
      expect(Object.keys(key).sort()).toEqual([
        'accountId',
        'createdAt',
        'expiresAt',
        'keyId',
        'lastUsedAt',
        'name',
        'pathPrefixes',
        'projectIds',
        'revokedAt',
        'role',
      ]);
    expect(await codeOf(() => store.apiKeys.list({ account: 'nobody' }))).toBe('ACCOUNT_NOT_FOUND');
  });

  it('refuses a revoked key at once and keeps the other keys working', async () => {
    const { store, clock } = createFixture();
    const alice = await anAccount(store, 'alice');
    const spare = await store.apiKeys.create({ account: 'alice' });
    clock.advance(5000);
    const revoked = await store.apiKeys.revoke({ keyId: alice.principal.keyId });
    expect(revoked).toMatchObject({ keyId: alice.principal.keyId, revokedAt: clock.now() });

    expect(await codeOf(() => store.authenticate({ apiKey: alice.apiKey }))).toBe('UNAUTHENTICATED');
    expect((await store.authenticate({ apiKey: spare.apiKey })).keyId).toBe(spare.keyId);
    const listed = await store.apiKeys.list({ account: 'alice' });
    expect(listed.find((key) => key.keyId === alice.principal.keyId)?.revokedAt).toBe(clock.now());

    expect(await codeOf(() => store.apiKeys.revoke({ keyId: alice.principal.keyId }))).toBe(
      'API_KEY_NOT_FOUND',
    );
    expect(await codeOf(() => store.apiKeys.revoke({ keyId: 'not-a-key' }))).toBe('API_KEY_NOT_FOUND');
    expect(await codeOf(() => store.apiKeys.revoke({ keyId: crypto.randomUUID() }))).toBe(
      'API_KEY_NOT_FOUND',
    );
  });

  it('refuses missing, empty and unknown keys', async () => {
    const { store } = createFixture();
    const alice = await anAccount(store, 'alice');
    for (const apiKey of [undefined, '', 'mds_unknown', `${alice.apiKey}x`, alice.apiKey.slice(0, -1)]) {
      expect(await codeOf(() => store.authenticate({ apiKey }))).toBe('UNAUTHENTICATED');
    }
  });
});

describe('authentication failure throttling', () => {
  const settings = { authFailureLimit: 3, authFailureWindowMs: 60_000 };

  it('answers RATE_LIMITED once an address exceeds its failures, even for a valid key', async () => {
    const { store, clock } = createFixture({ settings });
    const alice = await anAccount(store, 'alice');
    const from = (clientAddress: string, apiKey: string) => () =>
      store.authenticate({ apiKey, clientAddress });

    for (let i = 0; i < 3; i++) expect(await codeOf(from('10.0.0.1', 'wrong'))).toBe('UNAUTHENTICATED');
    const refused = await store.authenticate({ apiKey: 'wrong', clientAddress: '10.0.0.1' }).catch((e) => e);
    expect(refused).toBeInstanceOf(RateLimitedError);
    expect(refused.retryAfterSeconds).toBe(60);
    expect(await codeOf(from('10.0.0.1', alice.apiKey))).toBe('RATE_LIMITED');

    // Another address is not affected.
    expect(await codeOf(from('10.0.0.2', alice.apiKey))).toBe('OK');
    expect(await codeOf(from('10.0.0.2', 'wrong'))).toBe('UNAUTHENTICATED');

    clock.advance(30_000);
    const later = await store
      .authenticate({ apiKey: alice.apiKey, clientAddress: '10.0.0.1' })
      .catch((e) => e);
    expect(later.retryAfterSeconds).toBe(30);

    clock.advance(30_000);
    expect(await codeOf(from('10.0.0.1', alice.apiKey))).toBe('OK');
    expect(await codeOf(from('10.0.0.1', 'wrong'))).toBe('UNAUTHENTICATED');
  });

  it('does not count successful authentications, nor throttle callers without an address', async () => {
    const { store } = createFixture({ settings });
    const alice = await anAccount(store, 'alice');
    for (let i = 0; i < 10; i++) {
      expect(
        await codeOf(() => store.authenticate({ apiKey: alice.apiKey, clientAddress: '10.0.0.1' })),
      ).toBe('OK');
      expect(await codeOf(() => store.authenticate({ apiKey: 'wrong' }))).toBe('UNAUTHENTICATED');
    }
  });
});

describe('the blocked addresses', () => {
  it('keep at most 10 000 addresses: blocking one more frees the oldest', async () => {
    const { store } = createFixture({ settings: { authFailureLimit: 1, authFailureWindowMs: 60_000 } });
    const alice = await anAccount(store, 'alice');
    const block = async (address: string) => {
      await codeOf(() => store.authenticate({ apiKey: 'wrong', clientAddress: address }));
      expect(await codeOf(() => store.authenticate({ apiKey: 'wrong', clientAddress: address }))).toBe(
        'RATE_LIMITED',
      );
    };
    for (let i = 0; i < 10_000; i++) await block(`10.${i >> 8}.${i & 255}.1`);
    const withKey = (address: string) => () =>
      store.authenticate({ apiKey: alice.apiKey, clientAddress: address });
    expect(await codeOf(withKey('10.0.0.1'))).toBe('RATE_LIMITED');
    await block('192.168.0.1');
    // The 10 001st blocked address pushed out the first; the second and the newest stay blocked.
    expect(await codeOf(withKey('10.0.0.1'))).toBe('OK');
    expect(await codeOf(withKey('10.0.1.1'))).toBe('RATE_LIMITED');
    expect(await codeOf(withKey('192.168.0.1'))).toBe('RATE_LIMITED');
  });
});

describe('constantTimeEqual', () => {
  it('is true for equal strings only, whatever position differs', () => {
    expect(constantTimeEqual('', '')).toBe(true);
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('xbc', 'abc')).toBe(false);
    expect(constantTimeEqual('abc', 'ab')).toBe(false);
    expect(constantTimeEqual('ab', 'abc')).toBe(false);
    // Characters whose codes differ in one bit only, and characters above one byte.
    expect(constantTimeEqual('a', 'c')).toBe(false);
    expect(constantTimeEqual('é', 'è')).toBe(false);
  });
});

describe('request budget', () => {
  const settings = { rateLimits: { standard: 3, premium: 5 }, rateLimitWindowMs: 3_600_000 };

  it('counts requests per key and refuses the one over the limit with the time to wait', async () => {
    const { store, clock } = createFixture({ settings });
    const alice = await anAccount(store, 'alice');
    const resetAtSeconds = Math.ceil((clock.now() + 3_600_000) / 1000);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push(await store.consumeRequestBudget(alice.principal));
    expect(statuses).toEqual([2, 1, 0].map((remaining) => ({ limit: 3, remaining, resetAtSeconds })));

    clock.advance(600_000);
    const refused = await store.consumeRequestBudget(alice.principal).catch((e) => e);
    expect(refused).toBeInstanceOf(RequestRateLimitedError);
    expect(refused.code).toBe('RATE_LIMITED');
    expect(refused.retryAfterSeconds).toBe(3000);
    expect(refused.message).toBe('Rate limit exceeded. Try again in 3000 seconds.');
    expect(refused.status).toEqual({ limit: 3, remaining: 0, resetAtSeconds });

    // Refused requests are not counted: the window still ends at the same time and then restores the budget.
    clock.advance(3_000_000);
    expect(await store.consumeRequestBudget(alice.principal)).toMatchObject({ remaining: 2 });
  });

  it('gives each key its own budget and uses the limit of the account tier', async () => {
    const { store } = createFixture({ settings });
    const alice = await anAccount(store, 'alice');
    for (let i = 0; i < 3; i++) await store.consumeRequestBudget(alice.principal);
    expect(await codeOf(() => store.consumeRequestBudget(alice.principal))).toBe('RATE_LIMITED');

    const second = await store.apiKeys.create({ account: 'alice' });
    const secondPrincipal = await store.authenticate({ apiKey: second.apiKey });
    expect(await store.consumeRequestBudget(secondPrincipal)).toMatchObject({ limit: 3, remaining: 2 });

    await store.accounts.setTier({ account: 'alice', tier: 'premium' });
    const third = await store.apiKeys.create({ account: 'alice' });
    const premium = await store.authenticate({ apiKey: third.apiKey });
    expect(premium.tier).toBe('premium');
    expect(await store.consumeRequestBudget(premium)).toMatchObject({ limit: 5, remaining: 4 });
  });
});
