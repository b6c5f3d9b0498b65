// Issue 22: no request stalls the server. The hostile set (the findings' inputs and generated ones:
// replacement amplification, nesting depth, heading counts, line counts) is sent by a few clients at
// once to a fresh sqlite+fs server while a probe measures `/healthz` and a small download: their p99
// must stay under 100 ms and the server's RSS under 300 MB. The same probe without load is logged.
import { Buffer } from 'node:buffer';
import { MiB, multipartBody } from '../lib/content.js';
import type { Bench } from '../lib/context.js';
import { httpRequest, nearestRank } from '../lib/load.js';
import type { BenchAccount } from '../lib/mdstore.js';
import { readMemory, sampleMemory } from '../lib/processes.js';
import type { Scenario } from './types.js';

const LATENCY_TARGET_MS = 100;
const RSS_TARGET_MB = 300;
const PROBE_INTERVAL_MS = 10;

/** The files the hostile requests work on. */
function hostileFiles(): Record<string, string> {
  const nested = (depth: number) =>
    `# Top\n\n${'{'.repeat(depth)}1${'}'.repeat(depth)}\n\n## Under\n\nbody\n`;
  return {
    'x.md': 'x'.repeat(100_000),
    'amplify.md': 'x'.repeat(900_000),
    'nested-5000.mdx': nested(5_000),
    'nested-10000.mdx': nested(10_000),
    'nested-300.mdx': nested(300),
    'headings.md': Array.from({ length: 300_000 }, (_, i) => `## h${i}\n`)
      .join('')
      .slice(0, 2_900_000),
    'headings-8000.md': Array.from({ length: 8_000 }, (_, i) => `## h${i}\n\ntext\n`).join(''),
    'list.md': Array.from({ length: 200_000 }, (_, i) => `- item ${i}\n`).join(''),
    'lines.md': 'line\n'.repeat(1_000_000),
    'prose-3mib.md': Array.from(
      { length: 64_000 },
      (_, i) =>
        `${i % 20 === 0 ? `## Part ${i}\n\n` : ''}Some *prose*, ${i % 10 === 0 ? '[a](b.md)' : 'no'} link.\n\n`,
    )
      .join('')
      .slice(0, 3 * MiB - 1024),
    'page-100k.mdx': `# Page\n\n<Note>x</Note>\n\n${'Words of plain prose here. '.repeat(3_800)}\n\n## End\n`,
    'small.md': '# Small\n\nA small file for the probe.\n',
  };
}

interface HostileRequest {
  readonly name: string;
  readonly method: 'GET' | 'PATCH' | 'POST';
  readonly path: string;
  /** A JSON body, serialised once (the largest is 81 MiB: built per request it would load the probe's process). */
  readonly body?: Buffer;
}

/**
 * Issue 26: the largest changeset body the server takes (8 × `MDSTORE_MAX_FILE_BYTES` + 1 MiB with the
 * default 10 MiB): four `put`s of 10 MiB of `"`, `\` and line breaks, each escaped to two bytes, as a
 * dry run (nothing is stored). Its UTF-8 decoding and `JSON.parse` took about a second on the thread
 * serving requests before they moved to the worker pool.
 */
function hostileChangeset(): Buffer {
  const content = '"\\\n'.repeat(Math.floor((10 * MiB) / 3));
  const operations = Array.from({ length: 4 }, (_, i) => ({ op: 'put', filename: `big-${i}.md`, content }));
  return Buffer.from(JSON.stringify({ dry_run: true, operations }));
}

const dryRun = (edits: unknown[]) => ({ edits, dry_run: true });

function hostileRequests(): HostileRequest[] {
  const patch = (name: string, file: string, edits: unknown[]): HostileRequest => ({
    name,
    method: 'PATCH',
    path: `/files/${file}`,
    body: Buffer.from(JSON.stringify(dryRun(edits))),
  });
  const get = (name: string, path: string): HostileRequest => ({ name, method: 'GET', path });
  return [
    patch('finding 1: replace all x → 5 000 chars', 'x.md', [
      { op: 'replace', old: 'x', new: 'y'.repeat(5_000), count: 'all' },
    ]),
    patch('finding 2: replace all x → 6 000 chars', 'x.md', [
      { op: 'replace', old: 'x', new: 'y'.repeat(6_000), count: 'all' },
    ]),
    patch('amplification ×11 to just under 10 MiB', 'amplify.md', [
      { op: 'replace', old: 'x', new: 'y'.repeat(11), count: 'all' },
    ]),
    get('finding 3: outline of 5 000 nested braces', '/files/nested-5000.mdx/outline'),
    get('finding 3: section of 5 000 nested braces', '/files/nested-5000.mdx?section=Top&section=Under'),
    patch('finding 3: section edit of 5 000 nested braces', 'nested-5000.mdx', [
      { op: 'append', section: 'Under', text: 'more\n' },
    ]),
    get('depth 10 000: outline', '/files/nested-10000.mdx/outline'),
    get('depth 300: outline (micromark)', '/files/nested-300.mdx/outline'),
    get('finding 4: outline of 300 000 headings', '/files/headings.md/outline'),
    get('finding 4: section of 300 000 headings', '/files/headings.md?section=h7'),
    get('8 000 headings: outline', '/files/headings-8000.md/outline'),
    get('8 000 headings: section', '/files/headings-8000.md?section=h7999'),
    get('200 000 list items: outline', '/files/list.md/outline'),
    get('3 MiB of prose: outline (worker pool)', '/files/prose-3mib.md/outline'),
    get('100 KiB MDX: outline as MDX (worker pool)', '/files/page-100k.mdx/outline'),
    patch('8 000 headings: section edit (worker pool)', 'headings-8000.md', [
      { op: 'append', section: 'h4000', text: 'more\n' },
    ]),
    patch('200 000 list items: section edit', 'list.md', [{ op: 'append', section: 'x', text: 'y' }]),
    get('1 000 000 lines: last lines', '/files/lines.md?lines=999999-1000000'),
    patch('1 000 000 lines: insert in the middle', 'lines.md', [
      { op: 'insert', line: 500_000, text: 'new\n' },
    ]),
    {
      name: 'changeset body of 81 MiB (JSON parsed in the worker pool)',
      method: 'POST',
      path: '/changesets',
      body: hostileChangeset(),
    },
  ];
}

/** Probes `/healthz` and the small download in turn until `stop()`; returns each one's latencies. */
function probe(url: string, account: BenchAccount) {
  const health: number[] = [];
  const download: number[] = [];
  let running = true;
  const done = (async () => {
    for (let turn = 0; running; turn++) {
      const started = performance.now();
      const isHealth = turn % 2 === 0;
      const response = await httpRequest(
        isHealth
          ? { url: `${url}/healthz` }
          : {
              url: `${url}/api/projects/${account.default_project_id}/files/small.md`,
              headers: { authorization: `Bearer ${account.api_key}` },
            },
      );
      if (response.status !== 200) throw new Error(`probe: ${response.status}`);
      (isHealth ? health : download).push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      return { health: health.sort((a, b) => a - b), download: download.sort((a, b) => a - b) };
    },
  };
}

async function upload(url: string, account: BenchAccount, filename: string, content: string) {
  const { body, contentType } = multipartBody(filename, Buffer.from(content));
  const response = await httpRequest({
    url: `${url}/api/projects/${account.default_project_id}/files`,
    method: 'POST',
    headers: { authorization: `Bearer ${account.api_key}`, 'content-type': contentType },
    body,
  });
  if (response.status !== 201) throw new Error(`upload ${filename}: ${response.status}`);
}

export const stallScenario: Scenario = {
  name: 'stall',
  needs: [],
  description:
    'hostile Markdown/MDX/edit requests from 4 clients; p99 of /healthz and a small download, peak RSS',
  async run(bench: Bench) {
    const flavour = (await bench.flavour('sqlite+fs'))!;
    const { server, accounts } = await bench.startServer(flavour, ['bench-stall'], { label: 'stall' });
    const [account] = accounts as [BenchAccount];
    for (const [filename, content] of Object.entries(hostileFiles())) {
      await upload(server.url, account, filename, content);
    }
    const base = `${server.url}/api/projects/${account.default_project_id}`;
    const seconds = bench.settings.quick ? 5 : 20;

    const idle = probe(server.url, account);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const quiet = await idle.stop();
    bench.log(
      `    without load: /healthz p99 ${nearestRank(quiet.health, 99).toFixed(1)} ms, ` +
        `download p99 ${nearestRank(quiet.download, 99).toFixed(1)} ms`,
    );

    const requests = hostileRequests();
    const statuses = new Map<string, Map<number, number>>();
    const slowest = new Map<string, number>();
    const sampler = sampleMemory(server.pid, 100);
    const idleMemory = readMemory(server.pid);
    const idleRss = idleMemory?.rss ?? 0;
    const measuring = probe(server.url, account);
    const deadline = Date.now() + seconds * 1000;
    let sent = 0;
    const client = async (offset: number) => {
      for (let index = offset; Date.now() < deadline; index++) {
        const request = requests[index % requests.length]!;
        const started = performance.now();
        const response = await httpRequest({
          url: `${base}${request.path}`,
          method: request.method,
          headers: {
            authorization: `Bearer ${account.api_key}`,
            ...(request.body !== undefined && { 'content-type': 'application/json' }),
          },
          ...(request.body !== undefined && { body: request.body }),
        });
        const elapsed = performance.now() - started;
        sent++;
        const counts = statuses.get(request.name) ?? new Map<number, number>();
        counts.set(response.status, (counts.get(response.status) ?? 0) + 1);
        statuses.set(request.name, counts);
        slowest.set(request.name, Math.max(slowest.get(request.name) ?? 0, elapsed));
      }
    };
    await Promise.all([0, 4, 8, 12].map(client));
    const loaded = await measuring.stop();
    const { maxRss, peak } = sampler.stop();

    for (const request of requests) {
      const counts = [...(statuses.get(request.name) ?? new Map()).entries()]
        .map(([status, count]) => `${status}×${count}`)
        .join(' ');
      bench.log(`    ${request.name}: ${counts}, slowest ${(slowest.get(request.name) ?? 0).toFixed(0)} ms`);
    }
    const failed = [...statuses.entries()].filter(([, counts]) => [...counts.keys()].some((s) => s >= 500));
    if (failed.length > 0) throw new Error(`5xx answers: ${failed.map(([name]) => name).join(', ')}`);
    const rssMb = Math.max(maxRss, peak) / MiB;
    bench.log(
      `    ${sent} hostile requests in ${seconds} s; ${loaded.health.length + loaded.download.length} probes; ` +
        `idle RSS ${(idleRss / MiB).toFixed(0)} MB (high-water mark before the load: ` +
        `${((idleMemory?.peak ?? 0) / MiB).toFixed(0)} MB), peak ${rssMb.toFixed(0)} MB`,
    );
    const label = `stall: hostile set, 4 clients, ${seconds} s [sqlite+fs]`;
    bench.results.lower(
      label,
      '/healthz p99 ms',
      nearestRank(loaded.health, 99),
      LATENCY_TARGET_MS,
      'target 100 ms',
    );
    bench.results.lower(
      label,
      'small download p99 ms',
      nearestRank(loaded.download, 99),
      LATENCY_TARGET_MS,
      'target 100 ms',
    );
    bench.results.lower(label, 'peak RSS MB', rssMb, RSS_TARGET_MB, `target ${RSS_TARGET_MB} MB`);
    await server.stop();
  },
};
