import { randomUUID } from 'node:crypto';
import { createMemoryRecords } from '@mdstore/memory';
import { describe, expect, it } from 'vitest';
import {
  createWebhookDelivery,
  type RecordsRepository,
  signWebhook,
  WEBHOOK_LIMITS,
} from '../../src/index.js';
import {
  BASE_TIME,
  ChangeFeedDouble,
  ManualClock,
  seedWebhook,
  TransportDouble,
} from '../../src/testing/index.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

async function setup(overrides: Parameters<typeof seedWebhook>[1] = {}) {
  const records = createMemoryRecords();
  const webhook = await seedWebhook(records, { createdAt: BASE_TIME, ...overrides });
  const feed = new ChangeFeedDouble();
  const transport = new TransportDouble();
  const clock = new ManualClock(BASE_TIME + SECOND);
  const observed: string[] = [];
  const engine = (owner = 'instance-a', repo: RecordsRepository = records) =>
    createWebhookDelivery({
      records: repo,
      feed,
      notifier: feed,
      transport,
      clock,
      ids: { uuid: randomUUID },
      owner,
      observer: { attempted: (o) => observed.push(o.outcome) },
    });
  const append = (more: Partial<Parameters<ChangeFeedDouble['append']>[0]> = {}) =>
    feed.append({ accountId: webhook.accountId, projectId: randomUUID(), at: clock.now(), ...more });
  const stored = async () => (await records.findWebhook({ webhookId: webhook.id }))!;
  return { records, webhook, feed, transport, clock, engine, append, stored, observed };
}

describe('webhook delivery', () => {
  it('posts each event once, in seq order, signed per Standard Webhooks', async () => {
    const { webhook, transport, engine, append, stored } = await setup();
    for (let i = 0; i < 5; i++) append({ filename: `n${i}.md` });
    await engine().sweep();
    expect(transport.seqs()).toEqual([1, 2, 3, 4, 5]);
    const first = transport.posts[0]!;
    expect(first.url).toBe(webhook.url);
    expect(first.timeoutMs).toBe(WEBHOOK_LIMITS.timeoutMs);
    expect(first.headers['webhook-id']).toBe(`msg_${webhook.id}_1`);
    const timestampSeconds = Number(first.headers['webhook-timestamp']);
    expect(timestampSeconds).toBe(Math.floor((BASE_TIME + SECOND) / 1000));
    expect(first.headers['webhook-signature']).toBe(
      signWebhook({ secret: webhook.secret, id: `msg_${webhook.id}_1`, timestampSeconds, body: first.body }),
    );
    expect(JSON.parse(first.body)).toMatchObject({
      type: 'file.created',
      data: { seq: 1, filename: 'n0.md' },
    });
    expect((await stored()).cursorSeq).toBe(5);
    // Nothing new: nothing sent again.
    await engine().sweep();
    expect(transport.posts).toHaveLength(5);
  });

  it('sends only the events of its filters and project, and none committed before its creation', async () => {
    const projectId = randomUUID();
    const { transport, engine, append, clock } = await setup({ events: ['file.*'], projectId });
    append({ projectId, at: BASE_TIME - 1 }); // 1: before the webhook existed
    append({ projectId, type: 'project.updated', filename: null }); // 2: filtered out
    append({}); // 3: another project
    append({ projectId, type: 'file.deleted' }); // 4
    clock.advance(SECOND);
    append({ projectId, type: 'file.moved' }); // 5
    await engine().sweep();
    expect(transport.seqs()).toEqual([4, 5]);
  });

  it('keeps one event in flight per webhook, events arriving meanwhile after it', async () => {
    const { transport, engine, append, feed } = await setup();
    const e = engine();
    e.start();
    transport.respond = () => new Promise((resolve) => setTimeout(() => resolve({ status: 204 }), 2));
    for (let i = 0; i < 20; i++) {
      append();
      if (i % 3 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await e.sweep();
    await e.stop();
    expect(transport.seqs()).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(transport.maxInFlight).toBe(1);
    expect(feed).toBeDefined();
  });

  it('retries after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h with the same webhook-id, then disables', async () => {
    const { webhook, transport, engine, append, clock, stored, records, observed } = await setup();
    transport.respond = () => ({ status: 500 });
    append();
    append();
    const e = engine();
    const delays = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];
    await e.sweep();
    for (const [i, delay] of delays.entries()) {
      const w = await stored();
      expect([w.attempt, w.nextAttemptAt, w.active]).toEqual([i + 1, clock.now() + delay, true]);
      clock.advance(delay - 1);
      await e.sweep(); // not yet due
      expect(transport.posts).toHaveLength(i + 1);
      clock.advance(1);
      await e.sweep();
      expect(transport.posts).toHaveLength(i + 2);
    }
    const disabled = await stored();
    expect(disabled.active).toBe(false);
    expect(disabled.disabledReason).toBe('Event 1 failed 8 attempts (last: answered 500)');
    expect(disabled.cursorSeq).toBeNull(); // nothing delivered yet
    expect(new Set(transport.posts.map((p) => p.headers['webhook-id']))).toEqual(
      new Set([`msg_${webhook.id}_1`]),
    );
    expect(observed).toEqual([...delays.map(() => 'failure'), 'disabled']);
    const log = await records.listWebhookDeliveries({ webhookId: webhook.id, limit: 100 });
    expect(log.map((d) => [d.eventSeq, d.attempt, d.statusCode])).toEqual(
      Array.from({ length: 8 }, (_, i) => [1, 8 - i, 500]),
    );
    // Disabled: nothing more, however long one waits.
    clock.advance(48 * HOUR);
    await e.sweep();
    expect(transport.posts).toHaveLength(8);
    // Enabled: resumes from the pending event, in order.
    transport.respond = () => ({ status: 200 });
    await records.withTransaction((tx) => tx.enableWebhook({ webhookId: webhook.id }));
    await e.sweep();
    expect(transport.seqs().slice(8)).toEqual([1, 2]);
    expect((await stored()).cursorSeq).toBe(2);
  });

  it('records errors (no answer) in the log and starts the schedule again after a success', async () => {
    const { webhook, transport, engine, append, clock, stored, records } = await setup();
    let fail = true;
    transport.respond = () => (fail ? { error: 'connect ECONNREFUSED' } : { status: 201 });
    append();
    append();
    const e = engine();
    await e.sweep();
    clock.advance(5 * SECOND);
    fail = false;
    await e.sweep();
    expect(transport.seqs()).toEqual([1, 1, 2]);
    const w = await stored();
    expect([w.cursorSeq, w.attempt, w.nextAttemptAt]).toEqual([2, 0, null]);
    const log = await records.listWebhookDeliveries({ webhookId: webhook.id, limit: 10 });
    expect(log.at(-1)).toMatchObject({
      eventSeq: 1,
      attempt: 1,
      statusCode: null,
      error: 'connect ECONNREFUSED',
    });
    // The last two share their time: newest first, then by id.
    expect(log.map((d) => `${d.eventSeq}/${d.attempt}`).sort()).toEqual(['1/1', '1/2', '2/1']);
  });

  it('a crashed owner’s lease expires and another instance resumes from the stored cursor', async () => {
    const { webhook, transport, engine, append, clock, records, stored } = await setup();
    for (let i = 0; i < 3; i++) append();
    // Instance A claimed the webhook and died mid-attempt (nothing written after the claim).
    await records.withTransaction((tx) =>
      tx.claimWebhook({
        webhookId: webhook.id,
        owner: 'dead',
        now: clock.now(),
        until: clock.now() + WEBHOOK_LIMITS.leaseMs,
      }),
    );
    const b = engine('instance-b');
    await b.sweep();
    expect(transport.posts).toHaveLength(0);
    clock.advance(WEBHOOK_LIMITS.leaseMs);
    await b.sweep();
    expect(transport.seqs()).toEqual([1, 2, 3]);
    expect((await stored()).leaseOwner).toBeNull();
  });

  it('an attempt that outlives its lease writes no progress; the next owner repeats the event', async () => {
    const { transport, engine, append, clock, stored } = await setup();
    append();
    transport.respond = () => {
      clock.advance(WEBHOOK_LIMITS.leaseMs + 1);
      return { status: 200 };
    };
    const a = engine('instance-a');
    const b = engine('instance-b');
    // While A's attempt hangs past its lease, B takes over.
    transport.respond = async () => {
      if (transport.posts.length === 1) {
        clock.advance(WEBHOOK_LIMITS.leaseMs + 1);
        await b.deliver((await stored()).id);
      }
      return { status: 200 };
    };
    await a.deliver((await stored()).id);
    expect(transport.seqs()).toEqual([1, 1]);
    expect((await stored()).cursorSeq).toBe(1);
  });

  it('coalesces a burst of notifications into few lookups of the account’s webhooks', async () => {
    const { transport, engine, append, records } = await setup();
    let lookups = 0;
    const counting = new Proxy(records, {
      get(target, name, receiver) {
        if (name === 'listWebhooks') {
          return (q: { accountId: string; limit: number }) => {
            lookups++;
            return target.listWebhooks(q);
          };
        }
        return Reflect.get(target, name, receiver);
      },
    });
    const e = engine('instance-a', counting);
    e.start();
    await new Promise((resolve) => setTimeout(resolve, 10)); // the start-up sweep
    for (let i = 0; i < 50; i++) append();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await e.stop();
    expect(transport.seqs()).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(lookups).toBeLessThanOrEqual(3);
  });

  it('wakes on the notifier and stops when told', async () => {
    const { transport, engine, append } = await setup();
    const e = engine();
    e.start();
    append();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(transport.seqs()).toEqual([1]);
    await e.stop();
    append();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(transport.seqs()).toEqual([1]);
  });
});
