import { randomUUID } from 'node:crypto';
import { createMemoryBlobStore, createMemoryRateLimiter, createMemoryRecords } from '@mdstore/memory';
import { describe, expect, it } from 'vitest';
import { createMdStore, DAY_MS, WEBHOOK_LIMITS } from '../../src/index.js';
import { ManualClock, seedWebhook } from '../../src/testing/index.js';

describe('the deliveries log', () => {
  it('is trimmed by reconciliation to its retention', async () => {
    const records = createMemoryRecords();
    const clock = new ManualClock(Date.UTC(2026, 5, 1));
    const store = createMdStore({
      records,
      blobs: createMemoryBlobStore(),
      rateLimiter: createMemoryRateLimiter(),
      clock,
    });
    const w = await seedWebhook(records);
    const retention = WEBHOOK_LIMITS.deliveriesRetentionDays * DAY_MS;
    const attempt = (at: number) => ({
      id: randomUUID(),
      webhookId: w.id,
      eventSeq: 1,
      attempt: 1,
      statusCode: 200,
      error: null,
      durationMs: 3,
      at,
    });
    await records.withTransaction(async (tx) => {
      for (const at of [clock.now() - retention - 1, clock.now() - retention - 5, clock.now() - retention]) {
        await tx.insertWebhookDelivery({ delivery: attempt(at) });
      }
    });
    expect((await store.maintenance.reconcile()).webhookDeliveriesExpired).toBe(2);
    expect(await records.listWebhookDeliveries({ webhookId: w.id, limit: 10 })).toHaveLength(1);
    expect((await store.maintenance.reconcile()).webhookDeliveriesExpired).toBe(0);
  });
});
