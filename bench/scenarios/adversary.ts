// Issue 34, deliver 4: no key takes the server. One account's `read` and `write` keys send the worst
// inputs of the findings (search over a large project, sorted and account-wide prefix search, the
// links of a file with 500 000 incoming links, a move that rewrites them, an import of huge PAX names, a
// changeset of 1 000 puts of 40 KB, and streams from many keys), scaled up until a bound bites, while ten
// clients of another account do ordinary reads and writes and a probe reads `/healthz`. Their p99 must stay
// under 100 ms and the server's peak RSS under 300 MB, on the built server, on both pairs.
import { Buffer } from 'node:buffer';
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { MiB, multipartBody } from '../lib/content.js';
import type { Bench } from '../lib/context.js';
import { httpJson, httpRequest, nearestRank } from '../lib/load.js';
import type { BenchAccount } from '../lib/mdstore.js';
import { readMemory, sampleMemory } from '../lib/processes.js';
import { FLAVOURS, type Scenario } from './types.js';

const LATENCY_TARGET_MS = 100;
const RSS_TARGET_MB = 300;

interface Sizes {
  readonly searchFiles: number;
  readonly linkFiles: number;
  readonly linksPerFile: number;
  readonly changesetPuts: number;
  readonly streamKeys: number;
  readonly seconds: number;
}

const FULL: Sizes = {
  searchFiles: 1000,
  linkFiles: 100,
  linksPerFile: 5000,
  changesetPuts: 1000,
  streamKeys: 100,
  seconds: 20,
};
const QUICK: Sizes = {
  searchFiles: 150,
  linkFiles: 20,
  linksPerFile: 2000,
  changesetPuts: 200,
  streamKeys: 10,
  seconds: 5,
};

const LOREM =
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua ';
const fortyKb = (i: number) =>
  `# Note ${i}\n\n${LOREM.repeat(Math.ceil(40_000 / LOREM.length))}`.slice(0, 40_000);

const auth = (key: string) => ({ authorization: `Bearer ${key}` });

async function upload(url: string, key: string, projectId: string, filename: string, content: string) {
  const { body, contentType } = multipartBody(filename, Buffer.from(content));
  const response = await httpRequest({
    url: `${url}/api/projects/${projectId}/files`,
    method: 'POST',
    headers: { ...auth(key), 'content-type': contentType },
    body,
  });
  if (response.status !== 201) throw new Error(`upload ${filename}: ${response.status}`);
}

/** Runs `work(i)` for i in [0, count) with `parallel` at a time. */
async function inParallel(count: number, parallel: number, work: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

async function createKey(
  url: string,
  adminKey: string,
  role: 'read' | 'write',
  name: string,
): Promise<string> {
  const key = await httpJson<{ api_key: string }>({
    url: `${url}/api/keys`,
    method: 'POST',
    headers: { ...auth(adminKey), 'content-type': 'application/json' },
    body: JSON.stringify({ name, role }),
    expect: 201,
  });
  return key.api_key;
}

/** A tar.gz of `count` PAX entries each named with about `nameBytes` bytes (finding 4). */
function hugeNamesTarGz(count: number, nameBytes: number): Buffer {
  const blocks: Buffer[] = [];
  const header = (name: string, size: number, type: string) => {
    const block = Buffer.alloc(512);
    block.write(name.slice(0, 100), 0);
    block.write('0000644\0', 100);
    block.write('0000000\0', 108);
    block.write('0000000\0', 116);
    block.write(`${size.toString(8).padStart(11, '0')}\0`, 124);
    block.write('00000000000\0', 136);
    block.write('        ', 148);
    block.write(type, 156);
    block.write('ustar\0', 257);
    block.write('00', 263);
    let sum = 0;
    for (const byte of block) sum += byte;
    block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    return block;
  };
  const pad = (length: number) => Buffer.alloc((512 - (length % 512)) % 512);
  for (let i = 0; i < count; i++) {
    const name = `${'n'.repeat(nameBytes)}${i}.md`;
    const body = `path=${name}\n`;
    let record = `${body.length + 1} ${body}`;
    const digits = String(record.length).length;
    record = `${body.length + digits + 1} ${body}`;
    const pax = Buffer.from(record);
    blocks.push(header('PaxHeader', pax.length, 'x'), pax, pad(pax.length));
    const data = Buffer.from('# x\n');
    blocks.push(header(`short-${i}.md`, data.length, '0'), data, pad(data.length));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

interface Hostile {
  readonly name: string;
  readonly key: 'read' | 'write';
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly body?: Buffer;
  readonly contentType?: string;
}

function hostileRequests(o: { searchProject: string; linkProject: string; sizes: Sizes }): Hostile[] {
  const json = (value: unknown) => Buffer.from(JSON.stringify(value));
  const put = (i: number) => ({ op: 'put', filename: `cs/${i}.md`, content: fortyKb(i) });
  return [
    {
      name: 'finding 1: search "lorem"',
      key: 'read',
      method: 'POST',
      path: `/api/projects/${o.searchProject}/search`,
      body: json({ query: 'lorem' }),
    },
    {
      name: 'finding 1: search "lorem" sorted by filename',
      key: 'read',
      method: 'POST',
      path: `/api/projects/${o.searchProject}/search`,
      body: json({ query: 'lorem', sort: 'filename' }),
    },
    {
      name: 'finding 1: account-wide "lo*"',
      key: 'read',
      method: 'POST',
      path: '/api/search',
      body: json({ query: 'lo*' }),
    },
    {
      name: 'finding 3: links of t.md',
      key: 'read',
      method: 'GET',
      path: `/api/projects/${o.linkProject}/files/t.md/links`,
    },
    {
      name: 'finding 2: move t.md with rewrite_links, dry run',
      key: 'write',
      method: 'POST',
      path: `/api/projects/${o.linkProject}/files/t.md/move`,
      body: json({ to: 'u.md', rewrite_links: true, dry_run: true }),
    },
    {
      name: 'finding 4: import of 120 names of ~1 MB',
      key: 'write',
      method: 'POST',
      path: `/api/projects/${o.searchProject}/import`,
      body: hugeNamesTarGz(120, 1_000_000),
      contentType: 'application/gzip',
    },
    {
      name: `finding 5: changeset of ${o.sizes.changesetPuts} puts of 40 KB, dry run`,
      key: 'write',
      method: 'POST',
      path: `/api/projects/${o.searchProject}/changesets`,
      body: json({
        dry_run: true,
        operations: Array.from({ length: o.sizes.changesetPuts }, (_, i) => put(i)),
      }),
    },
  ];
}

/** Opens `perKey` SSE streams for each key and holds them until `close()`; counts the refused ones. */
function holdStreams(url: string, keys: readonly string[], perKey: number) {
  const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const requests: http.ClientRequest[] = [];
  const statuses = new Map<number, number>();
  const opened = Promise.all(
    keys.flatMap((key) =>
      Array.from(
        { length: perKey },
        () =>
          new Promise<void>((resolve) => {
            const request = http.get(
              `${url}/api/changes`,
              { agent, headers: { ...auth(key), accept: 'text/event-stream' } },
              (response) => {
                statuses.set(response.statusCode ?? 0, (statuses.get(response.statusCode ?? 0) ?? 0) + 1);
                response.on('data', () => undefined);
                response.on('error', () => undefined);
                resolve();
              },
            );
            request.on('error', () => resolve());
            requests.push(request);
          }),
      ),
    ),
  );
  return {
    opened,
    statuses,
    close() {
      for (const request of requests) request.destroy();
      agent.destroy();
    },
  };
}

async function measureFlavour(bench: Bench, flavourName: (typeof FLAVOURS)[number], sizes: Sizes) {
  const flavour = await bench.flavour(flavourName);
  if (!flavour) return;
  const { server, accounts } = await bench.startServer(flavour, ['adv-attacker', 'adv-victim'], {
    label: `adversary-${flavourName}`,
  });
  const [attacker, victim] = accounts as [BenchAccount, BenchAccount];
  const url = server.url;
  try {
    // The attacker's data: a large project to search, and a file with many incoming wiki links.
    const searchProject = attacker.default_project_id;
    await inParallel(sizes.searchFiles, 8, (i) =>
      upload(url, attacker.api_key, searchProject, `notes/${i}.md`, fortyKb(i)),
    );
    const linkProject = (
      await httpJson<{ id: string }>({
        url: `${url}/api/projects`,
        method: 'POST',
        headers: { ...auth(attacker.api_key), 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'links' }),
        expect: 201,
      })
    ).id;
    await upload(url, attacker.api_key, linkProject, 't.md', '# T\n');
    const linking = '[[t]] '.repeat(sizes.linksPerFile);
    await inParallel(sizes.linkFiles, 4, (i) =>
      upload(url, attacker.api_key, linkProject, `l/${i}.md`, linking),
    );
    const keys = {
      read: await createKey(url, attacker.api_key, 'read', 'adversary-read'),
      write: await createKey(url, attacker.api_key, 'write', 'adversary-write'),
    };
    const streamKeys: string[] = [];
    for (let i = 0; i < sizes.streamKeys; i++)
      streamKeys.push(await createKey(url, attacker.api_key, 'read', `s${i}`));

    // The victim's files: ten clients read and write their own small files.
    await inParallel(10, 4, (i) =>
      upload(url, victim.api_key, victim.default_project_id, `v${i}.md`, `# V${i}\n`),
    );

    // Built before the clock starts: the archive of huge names takes a while to make.
    const requests = hostileRequests({ searchProject, linkProject, sizes });
    const idleRss = readMemory(server.pid)?.rss ?? 0;
    const sampler = sampleMemory(server.pid, 100);
    const streams = holdStreams(url, streamKeys, 5);
    await streams.opened;
    const deadline = Date.now() + sizes.seconds * 1000;
    const victimLatencies: number[] = [];
    const healthLatencies: number[] = [];
    const statuses = new Map<string, Map<number, number>>();
    const slowest = new Map<string, number>();

    const victimClient = async (i: number) => {
      const path = `${url}/api/projects/${victim.default_project_id}/files/v${i}.md`;
      for (let turn = 0; Date.now() < deadline; turn++) {
        const started = performance.now();
        const response =
          turn % 2 === 0
            ? await httpRequest({ url: path, headers: auth(victim.api_key) })
            : await httpRequest({
                url: `${path}/content`,
                method: 'PUT',
                headers: { ...auth(victim.api_key), 'content-type': 'text/markdown' },
                body: `# V${i}\n\nturn ${turn}\n`,
              });
        if (response.status >= 300) throw new Error(`victim ${i}: ${response.status}`);
        victimLatencies.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const healthProbe = async () => {
      while (Date.now() < deadline) {
        const started = performance.now();
        await httpRequest({ url: `${url}/healthz` });
        healthLatencies.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    const attackerClient = async (role: 'read' | 'write') => {
      const mine = requests.filter((request) => request.key === role);
      for (let index = 0; Date.now() < deadline; index++) {
        const request = mine[index % mine.length]!;
        const started = performance.now();
        const response = await httpRequest({
          url: `${url}${request.path}`,
          method: request.method,
          headers: {
            ...auth(keys[role]),
            ...(request.body !== undefined && { 'content-type': request.contentType ?? 'application/json' }),
          },
          ...(request.body !== undefined && { body: request.body }),
        });
        const counts = statuses.get(request.name) ?? new Map<number, number>();
        counts.set(response.status, (counts.get(response.status) ?? 0) + 1);
        statuses.set(request.name, counts);
        slowest.set(request.name, Math.max(slowest.get(request.name) ?? 0, performance.now() - started));
      }
    };
    await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => victimClient(i)),
      healthProbe(),
      attackerClient('read'),
      attackerClient('write'),
    ]);
    streams.close();
    const { maxRss, peak } = sampler.stop();

    for (const request of requests) {
      const counts = [...(statuses.get(request.name) ?? new Map()).entries()]
        .map(([status, count]) => `${status}×${count}`)
        .join(' ');
      bench.log(`    ${request.name}: ${counts}, slowest ${(slowest.get(request.name) ?? 0).toFixed(0)} ms`);
    }
    const streamCounts = [...streams.statuses.entries()]
      .map(([status, count]) => `${status}×${count}`)
      .join(' ');
    bench.log(`    SSE streams from ${streamKeys.length} keys × 5: ${streamCounts}`);
    const failed = [...statuses.entries()].filter(([, counts]) =>
      [...counts.keys()].some((s) => s >= 500 && s !== 503),
    );
    if (failed.length > 0) throw new Error(`5xx answers: ${failed.map(([name]) => name).join(', ')}`);
    const rssMb = Math.max(maxRss, peak) / MiB;
    bench.log(
      `    ${victimLatencies.length} victim requests, ${healthLatencies.length} probes; idle RSS ` +
        `${(idleRss / MiB).toFixed(0)} MB, peak ${rssMb.toFixed(0)} MB`,
    );
    victimLatencies.sort((a, b) => a - b);
    healthLatencies.sort((a, b) => a - b);
    const label = `adversary: worst inputs from a read and a write key, 10 victims, ${sizes.seconds} s [${flavourName}]`;
    const target = `target ${LATENCY_TARGET_MS} ms`;
    bench.results.lower(
      label,
      "victims' p99 ms",
      nearestRank(victimLatencies, 99),
      LATENCY_TARGET_MS,
      target,
    );
    bench.results.lower(
      label,
      '/healthz p99 ms',
      nearestRank(healthLatencies, 99),
      LATENCY_TARGET_MS,
      target,
    );
    bench.results.lower(label, 'peak RSS MB', rssMb, RSS_TARGET_MB, `target ${RSS_TARGET_MB} MB`);
  } finally {
    await server.stop();
  }
}

export const adversaryScenario: Scenario = {
  name: 'adversary',
  needs: [],
  description:
    "issue 34's worst inputs from one read and one write key while 10 clients of another account work; their p99, /healthz p99, peak RSS",
  async run(bench: Bench) {
    const sizes = bench.settings.quick ? QUICK : FULL;
    for (const flavour of FLAVOURS) await measureFlavour(bench, flavour, sizes);
  },
};
