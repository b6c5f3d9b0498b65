import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChangeEventRecord, RecordsRepository } from '@mdstore/core';
import { seedWebhook } from '@mdstore/core/testing';
import { describe, type ExpectStatic, it } from 'vitest';
import { defaultAdapterModules, openDatabase } from '../../src/composition/adapters.js';
import { loadConfig } from '../../src/config/index.js';
import { type Receiver, startReceiver } from '../webhooks/receiver.js';
import { type ServerChild, startServerChild } from './support/server-process.js';

/**
 * Webhooks under SIGKILL (extensions §7): the delivering process is killed while a delivery is in
 * flight, again and again, and restarted; in the end every event has been delivered at least once, in
 * `seq` order (a repeat only of the event in flight), each with the same `webhook-id` on every attempt
 * and a valid signature. The events come from a file (the feed's test stand-in until the merge).
 */
const EVENTS = 30;
const KILLS = 5;
const TEST_DATABASE_URL = process.env.MDSTORE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const pgReachable = await import('pg').then(async ({ default: pg }) => {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return process.env.CI === 'true';
  }
});

async function crashDeliveries(
  expect: ExpectStatic,
  env: Record<string, string>,
  dir: string,
  cleanup: () => Promise<void>,
) {
  const childEnv = { PATH: process.env.PATH ?? '', MDSTORE_WEBHOOK_ALLOW_PRIVATE: 'true', ...env };
  const database = await openDatabase(loadConfig(childEnv).database, defaultAdapterModules);
  const records: RecordsRepository = database.records;
  const receiver: Receiver = await startReceiver();
  const children: ServerChild[] = [];
  try {
    const webhook = await seedWebhook(records, { url: `${receiver.url}/hook`, cursorSeq: 0 });
    const eventsFile = path.join(dir, 'events.jsonl');
    await writeFile(eventsFile, '');
    const events: ChangeEventRecord[] = Array.from({ length: EVENTS }, (_, i) => ({
      accountId: webhook.accountId,
      seq: i + 1,
      type: 'file.updated',
      projectId: randomUUID(),
      filename: `f${i}.md`,
      from: null,
      revision: i + 2,
      etag: `"e${i}"`,
      sizeBytes: i,
      sha256: 'b'.repeat(64),
      changesetId: null,
      at: Date.now(),
    }));
    // Half the events exist before the first start, the rest arrive while it runs and dies.
    for (const event of events.slice(0, EVENTS / 2))
      await appendFile(eventsFile, `${JSON.stringify(event)}\n`);
    const kill = { armed: false, onHeld: () => {} };
    receiver.answer = (res) => {
      if (kill.armed) {
        kill.armed = false;
        kill.onHeld(); // the attempt is in flight: the deliverer dies before any answer
        setTimeout(() => res.writeHead(200).end(), 200);
        return;
      }
      // Some failures, answered after a short while, so that retries happen too.
      setTimeout(() => res.writeHead(Math.random() < 0.15 ? 503 : 200).end(), Math.random() * 20);
    };
    const start = async () => {
      const child = startServerChild(
        { ...childEnv, WEBHOOK_EVENTS_FILE: eventsFile },
        'apps/server/test/crash/support/webhook-deliverer.ts',
      );
      children.push(child);
      await child.logLine(/^webhook deliverer ready$/);
      return child;
    };
    let appended = EVENTS / 2;
    for (let k = 0; k < KILLS; k++) {
      const child = await start();
      const held = new Promise<void>((resolve) => {
        kill.onHeld = resolve;
      });
      // Let a few deliveries through, then kill on the next one in flight.
      const before = receiver.received.length;
      await expect
        .poll(() => receiver.received.length, { timeout: 20_000, interval: 20 })
        .toBeGreaterThan(before + 2);
      if (appended < EVENTS) {
        for (const event of events.slice(appended, appended + 4))
          await appendFile(eventsFile, `${JSON.stringify(event)}\n`);
        appended = Math.min(EVENTS, appended + 4);
      }
      kill.armed = true;
      await held;
      child.kill('SIGKILL');
      await child.exited;
    }
    for (const event of events.slice(appended)) await appendFile(eventsFile, `${JSON.stringify(event)}\n`);
    const last = await start();
    await expect
      .poll(async () => (await records.findWebhook({ webhookId: webhook.id }))?.cursorSeq, {
        timeout: 60_000,
        interval: 100,
      })
      .toBe(EVENTS);
    last.kill('SIGTERM');
    await last.exited;

    const seqs = receiver.received.map((r) => JSON.parse(r.body).data.seq as number);
    // Every event delivered at least once; in order, a repeat only of the one in flight.
    expect(new Set(seqs)).toEqual(new Set(events.map((e) => e.seq)));
    for (let i = 1; i < seqs.length; i++) expect(seqs[i]).toBeGreaterThanOrEqual(seqs[i - 1]!);
    expect(seqs.length).toBeGreaterThan(EVENTS + KILLS - 1);
    const key = Buffer.from(webhook.secret.slice('whsec_'.length), 'base64');
    for (const r of receiver.received) {
      const seq = JSON.parse(r.body).data.seq as number;
      const id = String(r.headers['webhook-id']);
      expect(id).toBe(`msg_${webhook.id}_${seq}`);
      const signed = createHmac('sha256', key).update(`${id}.${r.headers['webhook-timestamp']}.${r.body}`);
      expect(r.headers['webhook-signature']).toBe(`v1,${signed.digest('base64')}`);
    }
    const log = await records.listWebhookDeliveries({ webhookId: webhook.id, limit: 1000 });
    // The killed attempts never reached the log; every other one did.
    expect(log.length).toBeGreaterThanOrEqual(receiver.received.length - KILLS);
  } finally {
    for (const child of children) child.kill('SIGKILL');
    await Promise.all(children.map((child) => child.exited));
    await receiver.close();
    await database.close();
    await cleanup();
  }
}

describe.concurrent('webhooks through SIGKILLs', () => {
  it(`sqlite: every event delivered at least once, in order, through ${KILLS} kills mid-delivery`, {
    timeout: 180_000,
  }, async ({ expect }) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'mdstore-crash-webhooks-'));
    await crashDeliveries(expect, { MDSTORE_DATA_DIR: path.join(dir, 'data') }, dir, () =>
      rm(dir, { recursive: true, force: true }),
    );
  });

  it.skipIf(!pgReachable)(
    `postgres: every event delivered at least once, in order, through ${KILLS} kills mid-delivery`,
    { timeout: 180_000 },
    async ({ expect }) => {
      const dir = await mkdtemp(path.join(tmpdir(), 'mdstore-crash-webhooks-'));
      const schema = `mdstore_crash_webhooks_${randomBytes(6).toString('hex')}`;
      const { default: pg } = await import('pg');
      await crashDeliveries(
        expect,
        {
          MDSTORE_DATA_DIR: path.join(dir, 'data'),
          MDSTORE_DATABASE_URL: TEST_DATABASE_URL,
          MDSTORE_POSTGRES_SCHEMA: schema,
        },
        dir,
        async () => {
          const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
          await client.connect();
          await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
          await client.end();
          await rm(dir, { recursive: true, force: true });
        },
      );
    },
  );
});
