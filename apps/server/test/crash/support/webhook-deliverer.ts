// A child process of the webhook crash test: this instance's delivery engine on the configured records
// store (MDSTORE_DATABASE_URL / MDSTORE_DATA_DIR, as the server reads them), the server's HTTP transport,
// and a change feed read from a JSON-lines file (WEBHOOK_EVENTS_FILE). The file stands in for the outbox
// of the `feed` branch; at the merge the server's own engine on the real outbox replaces this process.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import {
  type ChangeEventRecord,
  type ChangeFeedReader,
  createWebhookDelivery,
  randomIds,
  systemClock,
} from '@mdstore/core';
import { defaultAdapterModules, openDatabase } from '../../../src/composition/adapters.js';
import { loadConfig } from '../../../src/config/index.js';
import { httpWebhookTransport } from '../../../src/webhooks/transport.js';

const eventsFile = process.env.WEBHOOK_EVENTS_FILE ?? '';
const readEvents = async () =>
  (await readFile(eventsFile, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ChangeEventRecord);
const fileFeed: ChangeFeedReader = {
  async findChangeFeedHead(q) {
    const seqs = (await readEvents()).filter((e) => e.accountId === q.accountId).map((e) => e.seq);
    return { lastSeq: Math.max(0, ...seqs), prunedThrough: 0 };
  },
  async listChangeEvents(q) {
    return (await readEvents())
      .filter((e) => e.accountId === q.accountId && e.seq > q.afterSeq)
      .filter((e) => q.projectIds === undefined || q.projectIds.includes(e.projectId))
      .slice(0, q.limit);
  },
};

const config = loadConfig(process.env);
const database = await openDatabase(config.database, defaultAdapterModules);
const engine = createWebhookDelivery({
  records: database.records,
  feed: fileFeed,
  // No notifier here: the sweep (every 100 ms) finds new events and expired leases.
  notifier: { subscribe: () => () => {} },
  transport: httpWebhookTransport({ allowPrivate: config.webhookAllowPrivate }),
  clock: systemClock,
  ids: randomIds,
  owner: randomUUID(),
  limits: { leaseMs: 1_000, sweepMs: 100, timeoutMs: 2_000, retryDelaysMs: [50, 50, 50, 50, 50, 50, 50] },
});
engine.start();
process.stdout.write(`${JSON.stringify({ msg: 'webhook deliverer ready' })}\n`);
