// What the audit log (extensions §8) costs the write paths, in process, on the store the environment
// points at (the bench runs it with the sqlite+fs environment):
//   node --conditions=mdstore-source --import tsx bench/support/audit-cost.ts [--quick]
// Two HTTP apps on one store, each on its own loopback port: one records every change in the audit log
// (the queue the server uses, flushed every second or 200 entries), one audits nothing. Each takes, one
// at a time, alternating a 4 KiB content update and a metadata update of a file of its own project, in
// alternating rounds; the median of the rounds' mean request times is printed as JSON:
// {"audited_ms":…,"plain_ms":…,"requests":…,"entries":…}.
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { createRuntime } from '../../apps/server/src/composition/index.js';
import { loadConfig } from '../../apps/server/src/config/index.js';
import { AuditQueue } from '../../apps/server/src/http/audit.js';
import { createHttpApp } from '../../apps/server/src/http/index.js';
import { startHttpServer } from '../../apps/server/src/http/server.js';
import { createLogger } from '../../apps/server/src/logger.js';
import { alternatingWriteRounds } from './write-rounds.js';

const { values: flags } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
const ROUND_MS = flags.quick ? 300 : 1_500;
const ROUNDS = flags.quick ? 2 : 8;

const logger = createLogger({ level: 'warn', stdout: process.stderr, stderr: process.stderr });
const runtime = await createRuntime(loadConfig(process.env), { logger });
const { store } = runtime;
const audit = new AuditQueue(store, logger);
const servers = await Promise.all(
  [audit, undefined].map((queue) =>
    startHttpServer({
      app: createHttpApp({ store, logger, trustProxy: false, tls: false, ...(queue && { audit: queue }) }),
      host: '127.0.0.1',
      port: 0,
      logger,
    }),
  ),
);
try {
  const created = await store.accounts.create({ name: `audit-cost-${Date.now()}` });
  const { medianMs, requests } = await alternatingWriteRounds({
    urls: servers.map((server) => server.url),
    apiKey: created.apiKey.apiKey,
    rounds: ROUNDS,
    roundMs: ROUND_MS,
  });
  await audit.flush();
  const principal = await store.authenticate({ apiKey: created.apiKey.apiKey });
  let entries = 0;
  let cursor: string | undefined;
  do {
    const page = await store.audit.list({ principal, params: { limit: '1000', ...(cursor && { cursor }) } });
    entries += page.entries.length;
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  process.stdout.write(
    `${JSON.stringify({ audited_ms: medianMs[0], plain_ms: medianMs[1], requests, entries })}\n`,
  );
} finally {
  await Promise.all(servers.map((server) => server.close()));
  await audit.close();
  await runtime.close();
}
