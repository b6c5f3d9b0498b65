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
import { markdownBytes } from '../lib/content.js';

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
  const auth = { Authorization: `Bearer ${created.apiKey.apiKey}` };
  const content = markdownBytes(4 * 1024);
  const variants = await Promise.all(
    servers.map(async (server, index) => {
      const project = (await (
        await fetch(`${server.url}/api/projects`, {
          method: 'POST',
          headers: { ...auth, 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: `variant-${index}` }),
        })
      ).json()) as { id: string };
      const form = new FormData();
      form.append('file', new Blob([content], { type: 'text/markdown' }), 'doc.md');
      const uploaded = await fetch(`${server.url}/api/projects/${project.id}/files`, {
        method: 'POST',
        headers: auth,
        body: form,
      });
      if (uploaded.status !== 201) throw new Error(`upload: ${uploaded.status} ${await uploaded.text()}`);
      return { file: `${server.url}/api/projects/${project.id}/files/doc.md`, means: [] as number[] };
    }),
  );
  let requests = 0;
  const write = async (file: string, index: number) => {
    const response =
      index % 2 === 0
        ? await fetch(`${file}/content`, {
            method: 'PUT',
            headers: { ...auth, 'Content-Type': 'text/markdown' },
            body: Buffer.concat([Buffer.from(`# version ${index}\n`), content]),
          })
        : await fetch(file, {
            method: 'PUT',
            headers: { ...auth, 'Content-Type': 'application/json' },
            body: JSON.stringify({ metadata: { round: index, tags: ['a', 'b'] } }),
          });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`write: ${response.status}`);
    requests++;
  };
  for (let round = 0; round < ROUNDS; round++) {
    for (const variant of round % 2 === 0 ? variants : [...variants].reverse()) {
      const started = performance.now();
      let count = 0;
      while (performance.now() - started < ROUND_MS) await write(variant.file, count++);
      variant.means.push((performance.now() - started) / count);
    }
  }
  await audit.flush();
  const principal = await store.authenticate({ apiKey: created.apiKey.apiKey });
  let entries = 0;
  let cursor: string | undefined;
  do {
    const page = await store.audit.list({ principal, params: { limit: '1000', ...(cursor && { cursor }) } });
    entries += page.entries.length;
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  process.stdout.write(
    `${JSON.stringify({ audited_ms: median(variants[0]!.means), plain_ms: median(variants[1]!.means), requests, entries })}\n`,
  );
} finally {
  await Promise.all(servers.map((server) => server.close()));
  await audit.close();
  await runtime.close();
}
