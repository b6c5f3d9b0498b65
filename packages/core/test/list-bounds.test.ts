import { KEY_LIMITS, type RecordsRepository, SHARE_LIMITS, WEBHOOK_LIMITS } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { anAccount, codeOf, createFixture } from './support/fixture.js';

/**
 * Issue 34: the listings of keys, shares and webhooks are bounded. An account holds at most
 * `KEY_LIMITS.maxActive` keys not revoked and `WEBHOOK_LIMITS.maxPerAccount` webhooks, a project at most
 * `SHARE_LIMITS.maxLivePerProject` live shares; past it a creation is 409 `COUNT_LIMIT_REACHED`, and
 * the listings read the store with that LIMIT (and only the live rows), whatever the history holds.
 */

/** Records that remember the queries of the two listings. */
function recordingLists(inner: RecordsRepository) {
  const keyQueries: unknown[] = [];
  const shareQueries: unknown[] = [];
  // A proxy, not a spread: the memory records are a class whose methods live on its prototype.
  const records = new Proxy(inner, {
    get(target, property, receiver) {
      if (property === 'listApiKeys') {
        return (q: Parameters<RecordsRepository['listApiKeys']>[0]) => {
          keyQueries.push(q);
          return target.listApiKeys(q);
        };
      }
      if (property === 'listShares') {
        return (q: Parameters<RecordsRepository['listShares']>[0]) => {
          shareQueries.push(q);
          return target.listShares(q);
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { records, keyQueries, shareQueries };
}

describe('bounded listings of keys, shares and webhooks (issue 34)', () => {
  it(`keys: at most ${KEY_LIMITS.maxActive} not revoked; a revoked one frees its place; the listing asks for that many`, async () => {
    let recorded: ReturnType<typeof recordingLists> | undefined;
    const { store } = createFixture({
      wrapRecords: (inner) => {
        recorded = recordingLists(inner);
        return recorded.records;
      },
    });
    const owner = await anAccount(store, 'owner');
    const create = (i: number) =>
      store.keys.create({ principal: owner.principal, body: { name: `k${i}`, role: 'read' } });
    // The account's first key counts: 999 more reach the bound.
    let last: Awaited<ReturnType<typeof create>> | undefined;
    for (let i = 1; i < KEY_LIMITS.maxActive; i++) last = await create(i);
    expect(await codeOf(() => create(-1))).toBe('COUNT_LIMIT_REACHED');
    recorded!.keyQueries.length = 0;
    expect(await store.keys.list({ principal: owner.principal })).toHaveLength(KEY_LIMITS.maxActive);
    expect(recorded!.keyQueries).toEqual([
      { accountId: owner.accountId, activeOnly: true, limit: KEY_LIMITS.maxActive },
    ]);
    await store.keys.revoke({ principal: owner.principal, keyId: last!.keyId });
    expect(await codeOf(() => create(-2))).toBe('OK');
    expect(await codeOf(() => create(-3))).toBe('COUNT_LIMIT_REACHED');
  });

  it(`shares: at most ${SHARE_LIMITS.maxLivePerProject} live per project; expired ones free their place and are not read`, async () => {
    let recorded: ReturnType<typeof recordingLists> | undefined;
    const { store, clock } = createFixture({
      wrapRecords: (inner) => {
        recorded = recordingLists(inner);
        return recorded.records;
      },
    });
    const owner = await anAccount(store, 'owner');
    const projectId = owner.defaultProjectId;
    const create = (seconds: number) =>
      store.shares.create({
        principal: owner.principal,
        projectId,
        body: { prefix: 'guides/', expires_in_seconds: seconds },
      });
    for (let i = 0; i < SHARE_LIMITS.maxLivePerProject; i++) await create(i < 10 ? 60 : 3_600);
    expect(await codeOf(() => create(60))).toBe('COUNT_LIMIT_REACHED');
    clock.advance(61_000);
    recorded!.shareQueries.length = 0;
    expect(await store.shares.list({ principal: owner.principal, projectId })).toHaveLength(
      SHARE_LIMITS.maxLivePerProject - 10,
    );
    expect(recorded!.shareQueries).toEqual([
      { projectId, liveAt: clock.now(), limit: SHARE_LIMITS.maxLivePerProject },
    ]);
    expect(await codeOf(() => create(60))).toBe('OK');
  });

  it(`webhooks: at most ${WEBHOOK_LIMITS.maxPerAccount} per account; a deleted one frees its place`, async () => {
    const { store } = createFixture();
    const owner = await anAccount(store, 'owner');
    const create = (i: number) =>
      store.webhooks.create({
        principal: owner.principal,
        body: { url: `https://hooks.example.com/${i}`, events: ['file.created'] },
      });
    let first: Awaited<ReturnType<typeof create>> | undefined;
    for (let i = 0; i < WEBHOOK_LIMITS.maxPerAccount; i++) {
      const created = await create(i);
      first ??= created;
    }
    expect(await codeOf(() => create(-1))).toBe('COUNT_LIMIT_REACHED');
    expect(await store.webhooks.list({ principal: owner.principal })).toHaveLength(
      WEBHOOK_LIMITS.maxPerAccount,
    );
    await store.webhooks.delete({ principal: owner.principal, webhookId: first!.id });
    expect(await codeOf(() => create(-2))).toBe('OK');
  });
});
