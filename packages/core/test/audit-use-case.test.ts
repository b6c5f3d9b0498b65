import { DAY_MS } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { anAccount, codeOf, createFixture } from './support/fixture.js';

/** Extensions §8: the audit log's retention and listing in the core. */
describe('audit log', () => {
  const entry = (accountId: string, at: number, status = 200) => ({
    at,
    accountId,
    keyId: null,
    action: 'PUT /api/projects/:project_id',
    projectId: null,
    filename: null,
    status,
    requestId: null,
    ip: null,
  });

  it('reconciliation removes entries older than auditRetentionDays, and only those', async () => {
    const { store, clock } = createFixture({ settings: { auditRetentionDays: 2 } });
    const alice = await anAccount(store, 'alice');
    const now = clock.now();
    await store.audit.write([
      entry(alice.accountId, now - 3 * DAY_MS),
      entry(alice.accountId, now - 2 * DAY_MS - 1),
      entry(alice.accountId, now - 2 * DAY_MS + 1000),
      entry(alice.accountId, now),
    ]);
    const report = await store.maintenance.reconcile();
    expect(report.auditEntriesExpired).toBe(2);
    const left = await store.audit.list({ principal: alice.principal });
    expect(left.entries.map((e) => e.at)).toEqual([now, now - 2 * DAY_MS + 1000]);
    expect((await store.maintenance.reconcile()).auditEntriesExpired).toBe(0);
  });

  it('keeps 90 days by default', async () => {
    const { store } = createFixture();
    expect(store.settings.auditRetentionDays).toBe(90);
  });

  it('lists only the account’s entries; bad parameters are 422 at their name', async () => {
    const { store, clock } = createFixture();
    const alice = await anAccount(store, 'alice');
    const bob = await anAccount(store, 'bob');
    await store.audit.write([entry(alice.accountId, clock.now()), entry(bob.accountId, clock.now(), 403)]);
    expect((await store.audit.list({ principal: alice.principal })).entries.map((e) => e.status)).toEqual([
      200,
    ]);
    expect(
      await codeOf(() => store.audit.list({ principal: alice.principal, params: { cursor: 'nope' } })),
    ).toBe('INVALID_INPUT');
  });
});
