// What the change feed (extensions §7) costs the write paths, in process, on the store the environment
// points at (the bench runs it with the sqlite+fs environment, and postgres+s3 when available):
//   node --conditions=mdstore-source --import tsx bench/support/feed-cost.ts [--quick]
// Two HTTP apps on one store: one is the server's store (every write appends its event and wakes
// listeners), the other the same store built on records whose `appendChangeEvents` does nothing (the
// feed off). Each takes, one at a time, alternating a 4 KiB content update and a metadata update of a
// file of its own project, in alternating rounds; the median of the rounds' mean request times is
// printed as JSON: {"feed_ms":…,"plain_ms":…,"requests":…,"events":…}.
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import {
  type BlobStore,
  createMdStore,
  type RateLimiter,
  type RecordsRepository,
  type RecordsTransaction,
} from '@mdstore/core';
import { createRuntime, TOKENS } from '../../apps/server/src/composition/index.js';
import { loadConfig } from '../../apps/server/src/config/index.js';
import { createHttpApp } from '../../apps/server/src/http/index.js';
import { startHttpServer } from '../../apps/server/src/http/server.js';
import { createLogger } from '../../apps/server/src/logger.js';
import { alternatingWriteRounds } from './write-rounds.js';

const { values: flags } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
const ROUND_MS = flags.quick ? 300 : 1_500;
const ROUNDS = flags.quick ? 2 : 8;

/** `target` with one method replaced, every other bound to it. */
function replacing<T extends object>(target: T, name: keyof T, method: unknown): T {
  return new Proxy(target, {
    get: (inner, key) => {
      if (key === name) return method;
      const value = Reflect.get(inner, key, inner) as unknown;
      return typeof value === 'function' ? value.bind(inner) : value;
    },
  });
}

/** The records with the feed off: `appendChangeEvents` does nothing, everything else as it is. */
const withoutFeed = (records: RecordsRepository): RecordsRepository =>
  replacing(records, 'withTransaction', <T>(work: (tx: RecordsTransaction) => Promise<T>) =>
    records.withTransaction((tx) => work(replacing(tx, 'appendChangeEvents', async () => {}))),
  );

const logger = createLogger({ level: 'warn', stdout: process.stderr, stderr: process.stderr });
const runtime = await createRuntime(loadConfig(process.env), { logger });
const { store } = runtime;
const plain = createMdStore({
  records: withoutFeed(runtime.container.resolve<RecordsRepository>(TOKENS.records)),
  blobs: runtime.container.resolve<BlobStore>(TOKENS.blobs),
  rateLimiter: runtime.container.resolve<RateLimiter>(TOKENS.rateLimiter),
  settings: store.settings,
});
const servers = await Promise.all(
  [store, plain].map((s) =>
    startHttpServer({
      app: createHttpApp({ store: s, logger, trustProxy: false, tls: false }),
      host: '127.0.0.1',
      port: 0,
      logger,
    }),
  ),
);
try {
  const created = await store.accounts.create({ name: `feed-cost-${Date.now()}` });
  const { medianMs, requests } = await alternatingWriteRounds({
    urls: servers.map((server) => server.url),
    apiKey: created.apiKey.apiKey,
    rounds: ROUNDS,
    roundMs: ROUND_MS,
  });
  const principal = await store.authenticate({ apiKey: created.apiKey.apiKey });
  let events = 0;
  let since = 0;
  for (;;) {
    const page = await store.changes.list({ principal, params: { since: String(since), limit: '1000' } });
    if (page.changes.length === 0) break;
    events += page.changes.length;
    since = page.nextSince;
  }
  process.stdout.write(
    `${JSON.stringify({ feed_ms: medianMs[0], plain_ms: medianMs[1], requests, events })}\n`,
  );
} finally {
  await Promise.all(servers.map((server) => server.close()));
  await runtime.close();
}
