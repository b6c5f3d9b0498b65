import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { createClient } from '@mdstore/client';
import type { Bench } from '../lib/context.js';
import { type Flavour, serverEnvironment, startMdstore } from '../lib/mdstore.js';
import { REPO_ROOT, SOURCE_NODE_ARGS } from '../lib/processes.js';
import type { Scenario } from './types.js';

/** Extensions §7: the write paths with the change feed on vs off (in process, see the script; target ≥ 0.9×). */
const feedWrite: Scenario = {
  name: 'feed-write',
  needs: [],
  description: 'in process: content and metadata updates, one at a time, with the change feed on vs off',
  async run(bench) {
    const flavour = await bench.flavour('sqlite+fs');
    if (!flavour) return;
    const dataDir = await bench.tempDir('feed-write');
    const env = serverEnvironment({ dataDir, flavour, logLevel: 'warn' });
    const script = path.join(REPO_ROOT, 'bench/support/feed-cost.ts');
    const args = [...SOURCE_NODE_ARGS, script, ...(bench.settings.quick ? ['--quick'] : [])];
    const { stdout } = await promisify(execFile)(process.execPath, args, { cwd: REPO_ROOT, env });
    const result = JSON.parse(stdout) as { feed_ms: number; plain_ms: number };
    bench.results.lower(
      'change feed: content (4 KiB) and metadata updates, one at a time, in process [sqlite+fs]',
      'mean request ms (median of rounds)',
      result.feed_ms,
      result.plain_ms,
      'same store, feed off',
    );
  },
};

/**
 * Issue 24 item 6: delivery lag from a commit (the event's `date`, stamped by the committing instance) to
 * (a) a long poll held on the same instance, (b) one held on a second instance sharing the store (two
 * server processes on one SQLite file; on one Postgres database + S3) and (c) a webhook receiver on
 * loopback. One content update at a time; the three listeners are all waiting when it commits.
 */
const feedLag: Scenario = {
  name: 'feed-lag',
  needs: [],
  description:
    'delivery lag p50/p99 from commit to a held long poll (same / other instance) and to a webhook',
  async run(bench) {
    for (const name of ['sqlite+fs', 'postgres+s3'] as const) {
      const flavour = await bench.flavour(name);
      if (flavour) await measureLag(bench, flavour);
    }
  },
};

async function measureLag(bench: Bench, base: Flavour): Promise<void> {
  const flavour: Flavour = { ...base, env: { ...base.env, MDSTORE_WEBHOOK_ALLOW_PRIVATE: 'true' } };
  const {
    server: first,
    accounts,
    env,
  } = await bench.startServer(flavour, ['feed-lag'], { label: 'feed-lag' });
  const second = await startMdstore({ env, compiled: bench.settings.compiled });
  try {
    const apiKey = accounts[0]!.api_key;
    const projectId = accounts[0]!.default_project_id;
    const writer = createClient({ baseUrl: first.url, apiKey });
    const readers = [first.url, second.url].map((baseUrl) => createClient({ baseUrl, apiKey }));

    /** Whoever waits for the next delivery gets its lag: arrival minus the event's commit date. */
    const hooks: Array<(lagMs: number) => void> = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const arrived = Date.now();
        res.writeHead(204).end();
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { date: string } };
        for (const hook of hooks.splice(0)) hook(arrived - Date.parse(body.data.date));
      });
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const created = await fetch(`${first.url}/api/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: hookUrl, events: ['file.*'], project_id: projectId }),
    });
    if (created.status !== 201)
      throw new Error(`webhook creation: ${created.status} ${await created.text()}`);

    await writer.files.upload(projectId, 'lag.md', '# lag 0\n');
    let since = (await readers[0]!.changes.list({ project_id: projectId, limit: 1000 })).next_since;
    const rounds = bench.settings.quick ? 15 : 60;
    const lags = { same: [] as number[], other: [] as number[], webhook: [] as number[] };
    // Wait out the upload's webhook delivery so that each round's hook is its own.
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (let round = 1; round <= rounds; round++) {
      const held = readers.map(async (reader) => {
        for (;;) {
          const page = await reader.changes.list({ since, project_id: projectId, wait: 30 });
          const arrived = Date.now();
          const event = page.changes[0];
          if (event) return arrived - Date.parse(event.date);
        }
      });
      const hook = new Promise<number>((resolve) => hooks.push(resolve));
      await new Promise((resolve) => setTimeout(resolve, 100)); // both polls are held by now
      await writer.files.updateContent(projectId, 'lag.md', `# lag ${round}\n`);
      const [same, other] = await Promise.all(held);
      lags.same.push(same!);
      lags.other.push(other!);
      lags.webhook.push(await hook);
      since = (await readers[0]!.changes.list({ since, project_id: projectId, limit: 1000 })).next_since;
    }
    receiver.closeAllConnections();
    receiver.close();
    const rows: Array<[string, number[]]> = [
      ['held long poll, same instance', lags.same],
      ['held long poll, other instance (shared store)', lags.other],
      ['webhook receiver on loopback', lags.webhook],
    ];
    for (const [what, values] of rows) {
      bench.results.lower(
        `change feed delivery lag: commit to ${what} [${base.name}]`,
        `p50 ms over ${values.length} commits`,
        percentile(values, 0.5),
        2_000,
        'the 2 s bound of §7',
      );
      bench.results.lower(
        `change feed delivery lag: commit to ${what} [${base.name}]`,
        `p99 ms over ${values.length} commits`,
        percentile(values, 0.99),
        2_000,
        'the 2 s bound of §7',
      );
    }
  } finally {
    await second.stop();
  }
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
}

export const changeScenarios: readonly Scenario[] = [feedWrite, feedLag];
