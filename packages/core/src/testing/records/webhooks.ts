import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { WebhookDeliveryRecord, WebhookRecord } from '../../model/records.js';
import type { RecordsRepository } from '../../ports/records.js';
import { createWebhookDelivery } from '../../use-cases/webhooks/delivery.js';
import { BASE_TIME } from '../builders.js';
import { ChangeFeedDouble } from '../change-feed-double.js';
import { ManualClock, TransportDouble } from '../webhook-doubles.js';
import { ascendingIds, type SuiteContext, seedAccount } from './support.js';

export function aWebhook(overrides: Partial<WebhookRecord> = {}): WebhookRecord {
  return {
    id: randomUUID(),
    accountId: randomUUID(),
    url: 'https://hooks.example.com/in',
    events: [],
    projectId: null,
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    active: true,
    disabledReason: null,
    createdAt: BASE_TIME,
    cursorSeq: null,
    attempt: 0,
    nextAttemptAt: null,
    leaseOwner: null,
    leaseExpiresAt: null,
    ...overrides,
  };
}

export async function seedWebhook(repo: RecordsRepository, overrides: Partial<WebhookRecord> = {}) {
  const accountId = overrides.accountId ?? (await seedAccount(repo)).id;
  const webhook = aWebhook({ ...overrides, accountId });
  await repo.withTransaction((tx) => tx.insertWebhook({ webhook }));
  return webhook;
}

const aDelivery = (webhookId: string, overrides: Partial<WebhookDeliveryRecord> = {}) => ({
  id: randomUUID(),
  webhookId,
  eventSeq: 1,
  attempt: 1,
  statusCode: 200,
  error: null,
  durationMs: 12,
  at: BASE_TIME,
  ...overrides,
});

const progress = {
  cursorSeq: 7,
  attempt: 2,
  nextAttemptAt: BASE_TIME + 5_000,
  active: true,
  disabledReason: null,
  leaseExpiresAt: null,
};

export function webhooksSuite({ test }: SuiteContext): void {
  describe('webhooks', () => {
    test('keeps a webhook exactly and lists the account’s in creation order', async ({ repository }) => {
      const account = await seedAccount(repository);
      const [a, b] = ascendingIds(2) as [string, string];
      const second = await seedWebhook(repository, {
        id: a,
        accountId: account.id,
        createdAt: BASE_TIME + 1,
        events: ['file.*', 'project.deleted'],
        projectId: randomUUID(),
        url: 'http://127.0.0.1:8080/hook?x=é',
      });
      const first = await seedWebhook(repository, { id: b, accountId: account.id });
      await seedWebhook(repository);
      expect(await repository.findWebhook({ webhookId: second.id })).toEqual(second);
      expect(await repository.findWebhook({ webhookId: randomUUID() })).toBeNull();
      expect(await repository.listWebhooks({ accountId: account.id, limit: 10 })).toEqual([first, second]);
    });

    test('lists at most `limit` of the account’s webhooks, the oldest (issue 34)', async ({ repository }) => {
      const account = await seedAccount(repository);
      const seeded = [];
      for (let i = 0; i < 5; i++)
        seeded.push(await seedWebhook(repository, { accountId: account.id, createdAt: BASE_TIME + i }));
      expect(await repository.listWebhooks({ accountId: account.id, limit: 2 })).toEqual(seeded.slice(0, 2));
      expect(await repository.listWebhooks({ accountId: account.id, limit: 5 })).toEqual(seeded);
      expect(await repository.listWebhooks({ accountId: account.id, limit: 9 })).toEqual(seeded);
    });

    test('lists active webhooks of every account in id order, paged', async ({ repository }) => {
      const ids = ascendingIds(4);
      for (const [i, id] of ids.entries()) await seedWebhook(repository, { id, active: i !== 1 });
      const page = await repository.listActiveWebhooks({ limit: 2 });
      expect(page.map((w) => w.id)).toEqual([ids[0], ids[2]]);
      const next = await repository.listActiveWebhooks({ limit: 2, afterId: ids[2] });
      expect(next.map((w) => w.id)).toEqual([ids[3]]);
    });

    test('one claim wins until its lease expires; the owner renews it', async ({ repository }) => {
      const w = await seedWebhook(repository);
      const claim = (owner: string, now: number) =>
        repository.withTransaction((tx) =>
          tx.claimWebhook({ webhookId: w.id, owner, now, until: now + 60_000 }),
        );
      expect(await claim('a', BASE_TIME)).toEqual({
        ...w,
        leaseOwner: 'a',
        leaseExpiresAt: BASE_TIME + 60_000,
      });
      expect(await claim('b', BASE_TIME + 59_999)).toBeNull();
      expect((await claim('a', BASE_TIME + 10))?.leaseExpiresAt).toBe(BASE_TIME + 60_010);
      expect((await claim('b', BASE_TIME + 60_010))?.leaseOwner).toBe('b');
      expect(
        await repository.withTransaction((tx) =>
          tx.claimWebhook({ webhookId: randomUUID(), owner: 'a', now: 0, until: 1 }),
        ),
      ).toBeNull();
    });

    test('an inactive webhook cannot be claimed until enabled', async ({ repository }) => {
      const w = await seedWebhook(repository, {
        active: false,
        disabledReason: 'failed',
        attempt: 8,
        nextAttemptAt: BASE_TIME + 1,
      });
      const claim = () =>
        repository.withTransaction((tx) =>
          tx.claimWebhook({ webhookId: w.id, owner: 'a', now: BASE_TIME, until: BASE_TIME + 1 }),
        );
      expect(await claim()).toBeNull();
      expect(await repository.withTransaction((tx) => tx.enableWebhook({ webhookId: w.id }))).toBe(true);
      expect(await repository.findWebhook({ webhookId: w.id })).toEqual({
        ...w,
        active: true,
        disabledReason: null,
        attempt: 0,
        nextAttemptAt: null,
      });
      expect(await claim()).not.toBeNull();
      expect(await repository.withTransaction((tx) => tx.enableWebhook({ webhookId: randomUUID() }))).toBe(
        false,
      );
    });

    test('progress is written only by the lease owner; a null expiry releases the lease', async ({
      repository,
    }) => {
      const w = await seedWebhook(repository);
      await repository.withTransaction((tx) =>
        tx.claimWebhook({ webhookId: w.id, owner: 'a', now: BASE_TIME, until: BASE_TIME + 1000 }),
      );
      const save = (owner: string, leaseExpiresAt: number | null) =>
        repository.withTransaction((tx) =>
          tx.saveWebhookProgress({ webhookId: w.id, owner, progress: { ...progress, leaseExpiresAt } }),
        );
      expect(await save('b', null)).toBe(false);
      expect(await repository.findWebhook({ webhookId: w.id })).toEqual({
        ...w,
        leaseOwner: 'a',
        leaseExpiresAt: BASE_TIME + 1000,
      });
      expect(await save('a', BASE_TIME + 2000)).toBe(true);
      expect(await repository.findWebhook({ webhookId: w.id })).toEqual({
        ...w,
        cursorSeq: 7,
        attempt: 2,
        nextAttemptAt: BASE_TIME + 5_000,
        leaseOwner: 'a',
        leaseExpiresAt: BASE_TIME + 2000,
      });
      expect(await save('a', null)).toBe(true);
      const released = await repository.findWebhook({ webhookId: w.id });
      expect([released?.leaseOwner, released?.leaseExpiresAt]).toEqual([null, null]);
      expect(await save('a', null)).toBe(false);
      await repository.withTransaction((tx) =>
        tx.claimWebhook({ webhookId: w.id, owner: 'a', now: BASE_TIME, until: BASE_TIME + 1 }),
      );
      await repository.withTransaction((tx) =>
        tx.saveWebhookProgress({
          webhookId: w.id,
          owner: 'a',
          progress: { ...progress, active: false, disabledReason: 'gave up' },
        }),
      );
      const disabled = await repository.findWebhook({ webhookId: w.id });
      expect([disabled?.active, disabled?.disabledReason]).toEqual([false, 'gave up']);
      expect(await repository.listActiveWebhooks({ limit: 10 })).toEqual([]);
    });

    test('lists deliveries newest first, paged; deleting the webhook deletes them', async ({
      repository,
    }) => {
      const w = await seedWebhook(repository);
      const other = await seedWebhook(repository);
      const [x, y, z] = ascendingIds(3) as [string, string, string];
      const older = aDelivery(w.id, { id: z, at: BASE_TIME, statusCode: null, error: 'timeout' });
      const tieLow = aDelivery(w.id, { id: x, at: BASE_TIME + 1, attempt: 2 });
      const tieHigh = aDelivery(w.id, { id: y, at: BASE_TIME + 1, eventSeq: 2 });
      await repository.withTransaction(async (tx) => {
        for (const delivery of [older, tieLow, tieHigh, aDelivery(other.id)])
          await tx.insertWebhookDelivery({ delivery });
      });
      expect(await repository.listWebhookDeliveries({ webhookId: w.id, limit: 2 })).toEqual([
        tieHigh,
        tieLow,
      ]);
      expect(
        await repository.listWebhookDeliveries({
          webhookId: w.id,
          limit: 2,
          after: { at: tieLow.at, id: tieLow.id },
        }),
      ).toEqual([older]);
      expect(await repository.withTransaction((tx) => tx.deleteWebhook({ webhookId: w.id }))).toBe(true);
      expect(await repository.findWebhook({ webhookId: w.id })).toBeNull();
      expect(await repository.listWebhookDeliveries({ webhookId: w.id, limit: 10 })).toEqual([]);
      expect(await repository.listWebhookDeliveries({ webhookId: other.id, limit: 10 })).toHaveLength(1);
      expect(await repository.withTransaction((tx) => tx.deleteWebhook({ webhookId: w.id }))).toBe(false);
    });

    test('expires delivery attempts older than a time, oldest first, at most a batch', async ({
      repository,
    }) => {
      const w = await seedWebhook(repository);
      const other = await seedWebhook(repository);
      const at = [BASE_TIME + 3, BASE_TIME + 1, BASE_TIME + 2, BASE_TIME + 10];
      await repository.withTransaction(async (tx) => {
        for (const [i, when] of at.entries()) {
          await tx.insertWebhookDelivery({ delivery: aDelivery(i % 2 ? other.id : w.id, { at: when }) });
        }
      });
      const expire = (before: number, limit: number) =>
        repository.withTransaction((tx) => tx.deleteWebhookDeliveriesBefore({ before, limit }));
      expect(await expire(BASE_TIME + 10, 2)).toBe(2);
      const left = async () =>
        [
          ...(await repository.listWebhookDeliveries({ webhookId: w.id, limit: 10 })),
          ...(await repository.listWebhookDeliveries({ webhookId: other.id, limit: 10 })),
        ]
          .map((d) => d.at)
          .sort();
      expect(await left()).toEqual([BASE_TIME + 3, BASE_TIME + 10]);
      expect(await expire(BASE_TIME + 10, 100)).toBe(1);
      expect(await left()).toEqual([BASE_TIME + 10]);
    });

    test('two delivery engines on one store make each attempt once, in order', async (harness) => {
      const { repository } = harness;
      // Another process's handle where the store is shared between processes; else the same store.
      const second =
        repository.supports.sharedBetweenProcesses && harness.openSecond
          ? await harness.openSecond()
          : repository;
      const w = await seedWebhook(repository, { cursorSeq: 0 });
      const feed = new ChangeFeedDouble();
      for (let i = 0; i < 12; i++) feed.append({ accountId: w.accountId, projectId: randomUUID() });
      const transport = new TransportDouble();
      // Slow answers, so that both engines try the webhook while an attempt is in flight.
      transport.respond = () => new Promise((resolve) => setTimeout(() => resolve({ status: 200 }), 5));
      const clock = new ManualClock(BASE_TIME);
      const engine = (records: RecordsRepository, owner: string) =>
        createWebhookDelivery({
          records,
          feed,
          notifier: feed,
          transport,
          clock,
          ids: { uuid: randomUUID },
          owner,
        });
      const a = engine(repository, 'instance-a');
      const b = engine(second, 'instance-b');
      await Promise.all([a.deliver(w.id), b.deliver(w.id), a.sweep(), b.sweep(), b.deliver(w.id)]);
      await Promise.all([a.deliver(w.id), b.deliver(w.id)]);
      expect(transport.seqs()).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      expect(transport.maxInFlight).toBe(1);
      const stored = await repository.findWebhook({ webhookId: w.id });
      expect([stored?.cursorSeq, stored?.leaseOwner]).toEqual([12, null]);
      expect(await repository.listWebhookDeliveries({ webhookId: w.id, limit: 100 })).toHaveLength(12);
    });
  });
}
