import http from 'node:http';
import { KiB, MiB, markdownBytes, multipartBody } from '../lib/content.js';
import type { BenchAccount } from '../lib/mdstore.js';
import { readMemory, sampleMemory } from '../lib/processes.js';
import type { Scenario } from './types.js';

const TARGET_MB = 200;
const FILE_BYTES = 4 * KiB;
/** Downloads at once in the baseline: the `mdstore pull` default (`--jobs 4`). */
const PULL_JOBS = 4;

/** One request on a keep-alive agent; resolves with the status and the number of body bytes. */
function request(
  agent: http.Agent,
  url: string,
  account: BenchAccount,
  init: { method?: string; body?: Buffer; contentType?: string } = {},
): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: init.method ?? 'GET',
        agent,
        headers: {
          authorization: `Bearer ${account.api_key}`,
          ...(init.contentType && { 'content-type': init.contentType }),
          ...(init.body && { 'content-length': String(init.body.length) }),
        },
      },
      (response) => {
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, bytes }));
        response.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

async function pool(count: number, jobs: number, work: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: jobs }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

const mb = (bytes: number) => bytes / MiB;
const name = (index: number) => `notes/${String(Math.floor(index / 100)).padStart(3, '0')}/n-${index}.md`;

/**
 * Export (extensions §10) of a project of many 4 KiB files, on a fresh server process: the archive's
 * throughput against pulling the same files one download each (4 at once, as `mdstore pull` does), and
 * the server's peak RSS while it streams the archive (target 200 MB, whatever the project holds).
 */
const exportScenario: Scenario = {
  name: 'export',
  needs: [],
  description: 'export of 10 000 files of 4 KiB (zip, tar.gz): throughput vs one download per file, peak RSS',
  async run(bench) {
    const count = bench.settings.quick ? 1_000 : 10_000;
    const flavour = (await bench.flavour('sqlite+fs'))!;
    const seeded = await bench.startServer(flavour, ['bench-export'], { label: 'export' });
    const [account] = seeded.accounts as [BenchAccount];
    const project = `/api/projects/${account.default_project_id}`;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    const content = markdownBytes(FILE_BYTES);
    const seeding = Date.now();
    await pool(count, 8, async (index) => {
      const { body, contentType } = multipartBody(name(index), content);
      const done = await request(agent, `${seeded.server.url}${project}/files`, account, {
        method: 'POST',
        body,
        contentType,
      });
      if (done.status !== 201) throw new Error(`seeding ${name(index)}: ${done.status}`);
    });
    bench.log(`    seeded ${count} files of 4 KiB in ${((Date.now() - seeding) / 1000).toFixed(1)} s`);
    await seeded.server.stop();

    // Each format on a fresh server process, so that each peak is its own.
    const exported = new Map<string, { seconds: number; peakMb: number }>();
    for (const format of ['zip', 'tar.gz'] as const) {
      const { server } = await bench.startServer(flavour, [], { label: 'export', dataDir: seeded.dataDir });
      const idle = readMemory(server.pid);
      const sampler = sampleMemory(server.pid, 50);
      const started = performance.now();
      const archive = await request(agent, `${server.url}${project}/export?format=${format}`, account);
      const seconds = (performance.now() - started) / 1000;
      const { maxRss, peak } = sampler.stop();
      await server.stop();
      if (archive.status !== 200) throw new Error(`export ${format}: ${archive.status}`);
      const peakMb = mb(Math.max(maxRss, peak));
      exported.set(format, { seconds, peakMb });
      bench.log(
        `    export ${format}: ${count} files in ${seconds.toFixed(2)} s, ${mb(archive.bytes).toFixed(1)} MB; ` +
          `idle RSS ${mb(idle?.rss ?? 0).toFixed(0)} MB, peak ${peakMb.toFixed(0)} MB`,
      );
    }

    const { server } = await bench.startServer(flavour, [], { label: 'export', dataDir: seeded.dataDir });
    const pullStarted = performance.now();
    await pool(count, PULL_JOBS, async (index) => {
      const url = `${server.url}${project}/files/${encodeURIComponent(name(index))}`;
      const done = await request(agent, url, account);
      if (done.status !== 200 || done.bytes !== FILE_BYTES)
        throw new Error(`download ${name(index)}: ${done.status}`);
    });
    const pullSec = (performance.now() - pullStarted) / 1000;
    bench.log(`    ${count} downloads (${PULL_JOBS} at once): ${pullSec.toFixed(2)} s`);
    agent.destroy();
    await server.stop();

    for (const [format, { seconds, peakMb }] of exported) {
      const label = `export: ${count} files of 4 KiB, ${format} [sqlite+fs${bench.settings.compiled ? ', compiled' : ''}]`;
      bench.results.higher(
        label,
        'files per second',
        count / seconds,
        count / pullSec,
        `one download per file, ${PULL_JOBS} at once (${count} requests)`,
      );
      bench.results.lower(label, 'peak RSS MB', peakMb, TARGET_MB, `target ${TARGET_MB} MB`);
    }
  },
};

export const exportScenarios: readonly Scenario[] = [exportScenario];
