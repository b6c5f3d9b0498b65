import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ExpectStatic } from 'vitest';
import type { Received, Receiver } from '../../webhooks/receiver.js';
import { json, request } from './http-client.js';
import type { Model } from './model.js';
import { sleep } from './random.js';

/** The webhook the crash test delivers to, as its creation answered. */
export interface CrashWebhook {
  readonly id: string;
  readonly secret: string;
  readonly createdAt: number;
}

export interface HookState {
  webhook: CrashWebhook | undefined;
}

interface Server {
  readonly url: string;
  readonly apiKey: string;
}

interface EventJson {
  seq: number;
  type: string;
  project_id: string;
  etag: string | null;
  date: string;
}

const CATCH_UP_MS = 45_000;

async function api(server: Server, method: string, path: string, body?: unknown): Promise<unknown> {
  const reply = await request(server.url, {
    method,
    path,
    headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
    ...(body !== undefined && { body: Buffer.from(JSON.stringify(body)) }),
  });
  if (reply.status >= 300) throw new Error(`${method} ${path} answered ${reply.status}: ${reply.body}`);
  return json(reply);
}

/** Every event of the account (no project filter), through the HTTP feed. */
export async function createCrashWebhook(server: Server, url: string): Promise<CrashWebhook> {
  const created = (await api(server, 'POST', '/api/webhooks', { url })) as {
    id: string;
    secret: string;
    created_date: string;
  };
  return { id: created.id, secret: created.secret, createdAt: Date.parse(created.created_date) };
}

/** The whole feed, oldest first: the record of committed changes. */
async function readFeed(server: Server): Promise<EventJson[]> {
  const events: EventJson[] = [];
  let since = 0;
  for (;;) {
    const page = (await api(server, 'GET', `/api/changes?since=${since}&limit=1000`)) as {
      changes: EventJson[];
      next_since: number;
    };
    if (page.changes.length === 0) return events;
    events.push(...page.changes);
    since = page.next_since;
  }
}

const seqOf = (r: Received) => (JSON.parse(r.body) as { data: EventJson }).data.seq;

/** Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` under the secret's bytes. */
function signatureValid(secret: string, r: Received): boolean {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const signed = `${r.headers['webhook-id']}.${r.headers['webhook-timestamp']}.${r.body}`;
  const expected = Buffer.from(createHmac('sha256', key).update(signed).digest('base64'));
  return String(r.headers['webhook-signature'] ?? '')
    .split(' ')
    .some((part) => {
      const given = Buffer.from(part.replace(/^v1,/, ''));
      return part.startsWith('v1,') && given.length === expected.length && timingSafeEqual(given, expected);
    });
}

/**
 * Waits until the receiver has accepted (2xx) every event the feed holds after the webhook's creation,
 * then checks every request it received against the feed, and the model's acknowledged writes against
 * the deliveries. Failures go through `expect`.
 */
export async function verifyDeliveries(
  expect: ExpectStatic,
  server: Server,
  model: Model,
  hook: HookState,
  receiver: Receiver,
  /** The `webhook-id`s the receiver answered 2xx. */
  accepted: ReadonlySet<string>,
): Promise<{ events: number; requests: number; repeated: number; catchUpMs: number }> {
  const webhook = hook.webhook;
  if (!webhook) throw new Error('the webhook was never created');
  const began = Date.now();
  const feed = (await readFeed(server)).filter((e) => Date.parse(e.date) >= webhook.createdAt);
  const bySeq = new Map(feed.map((e) => [e.seq, e]));
  const idOf = (seq: number) => `msg_${webhook.id}_${seq}`;
  const missing = () => feed.filter((e) => !accepted.has(idOf(e.seq)));
  while (missing().length > 0 && Date.now() - began < CATCH_UP_MS) await sleep(100);
  const catchUpMs = Date.now() - began;
  expect(feed.length, 'the workload produced events after the webhook was created').toBeGreaterThan(0);
  expect(
    missing().map((e) => e.seq),
    'events of the feed never accepted by the receiver',
  ).toEqual([]);

  const received = receiver.received.filter((r) => r.headers['webhook-id'] !== undefined);
  const firsts: number[] = [];
  const counts = new Map<number, number>();
  for (const r of received) {
    const seq = seqOf(r);
    const event = bySeq.get(seq);
    // Each request is a committed event after the webhook's creation, as the feed shows it.
    expect(event, `delivered seq ${seq} is not in the feed after the webhook's creation`).toBeDefined();
    expect((JSON.parse(r.body) as { data: unknown }).data).toEqual(event);
    expect(r.headers['webhook-id']).toBe(idOf(seq));
    expect(signatureValid(webhook.secret, r), `signature of ${idOf(seq)}`).toBe(true);
    if (!counts.has(seq)) firsts.push(seq);
    counts.set(seq, (counts.get(seq) ?? 0) + 1);
  }
  // First deliveries in seq order; repeats (a kill or a failure before the answer was recorded) allowed.
  expect(firsts).toEqual([...firsts].sort((a, b) => a - b));
  expect(firsts.length).toBe(feed.length);

  // The client's own record: every acknowledged version, deletion and creation was delivered.
  const delivered = [...counts.keys()].map((seq) => bySeq.get(seq) as EventJson);
  const etags = new Set(delivered.map((e) => e.etag));
  const ofType = (type: string) => new Set(delivered.filter((e) => e.type === type).map((e) => e.project_id));
  const created = ofType('project.created');
  const deleted = ofType('project.deleted');
  for (const project of model.active.values()) {
    if (!project.isDefault) expect(created.has(project.id), `project.created of ${project.id}`).toBe(true);
    for (const [name, file] of project.files)
      if (file.etag !== undefined)
        expect(etags.has(file.etag), `${project.id}/${name} ${file.etag}`).toBe(true);
  }
  for (const id of model.deleted.keys()) expect(deleted.has(id), `project.deleted of ${id}`).toBe(true);
  return {
    events: feed.length,
    requests: received.length,
    repeated: [...counts.values()].filter((n) => n > 1).length,
    catchUpMs,
  };
}
