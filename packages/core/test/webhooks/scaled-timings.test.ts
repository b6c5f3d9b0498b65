import { scaledWebhookTimings, WEBHOOK_LIMITS } from '@mdstore/core';
import { describe, expect, it } from 'vitest';

describe('scaledWebhookTimings (MDSTORE_WEBHOOK_TIME_SCALE)', () => {
  it('multiplies the retry schedule, the timeout, the lease and the sweep, keeping the schedule length', () => {
    const t = scaledWebhookTimings(0.05);
    expect(t.retryDelaysMs).toEqual([250, 15_000, 90_000, 360_000, 900_000, 1_800_000, 1_800_000]);
    expect(t.retryDelaysMs).toHaveLength(WEBHOOK_LIMITS.retryDelaysMs.length);
    expect(t).toMatchObject({ timeoutMs: 500, leaseMs: 3_000, sweepMs: 1_500 });
  });

  it('is the defaults at 1 and never below 1 ms', () => {
    const same = scaledWebhookTimings(1);
    expect(same.retryDelaysMs).toEqual(WEBHOOK_LIMITS.retryDelaysMs);
    expect(same.leaseMs).toBe(WEBHOOK_LIMITS.leaseMs);
    expect(scaledWebhookTimings(1e-9).retryDelaysMs[0]).toBe(1);
  });
});
