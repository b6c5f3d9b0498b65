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
  /** Key rows the store answered, by any read of keys by account or by id. */
  const keyRows = { read: 0 };
  // A proxy, not a spread: the memory records are a class whose methods live on its prototype.
  const records = new Proxy(inner, {
    get(target, property, receiver) {
      if (property === 'listApiKeys') {
        return async (q: Parameters<RecordsRepository['listApiKeys']>[0]) => {
          keyQueries.push(q);
          const keys = await target.listApiKeys(q);
          keyRows.read += keys.length;
          return keys;
        };
      }
      if (property === 'findApiKeys') {
        return async (q: Parameters<RecordsRepository['findApiKeys']>[0]) => {
          const keys = await target.findApiKeys(q);
          keyRows.read += keys.length;
          return keys;
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
  return { records, keyQueries, shareQueries, keyRows };
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

  it("shares: the listing reads only its shares' creators, each once, not the account's keys", async () => {
    let recorded: ReturnType<typeof recordingLists> | undefined;
    const { store } = createFixture({
      wrapRecords: (inner) => {
        recorded = recordingLists(inner);
        return recorded.records;
      },
    });
    const owner = await anAccount(store, 'owner');
    const projectId = owner.defaultProjectId;
    const keys = [];
    for (let i = 0; i < 50; i++)
      keys.push(
        await store.keys.create({ principal: owner.principal, body: { name: `k${i}`, role: 'write' } }),
      );
    const principalOf = (apiKey: string) => store.authenticate({ apiKey });
    const [a, b] = [await principalOf(keys[0]!.apiKey), await principalOf(keys[1]!.apiKey)];
    const share = (principal: typeof a) =>
      store.shares.create({ principal, projectId, body: { prefix: 'guides/', expires_in_seconds: 3600 } });
    for (let i = 0; i < 3; i++) await share(a);
    const gone = await share(b);
    await store.keys.revoke({ principal: owner.principal, keyId: keys[1]!.keyId });
    recorded!.keyRows.read = 0;
    const listed = await store.shares.list({ principal: owner.principal, projectId });
    // The share of the revoked creator is gone from the list; the other three stay.
    expect(listed).toHaveLength(3);
    expect(listed.map((s) => s.shareId)).not.toContain(gone.shareId);
    // Two creators: two key rows read (before: the account's 51 keys not revoked).
    expect(recorded!.keyRows.read).toBe(2);
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
