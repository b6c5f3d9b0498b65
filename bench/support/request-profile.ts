// The CPU time of one request, split by what it is spent on (docs/performance.md, "Where a request's
// time goes"). For each of GET project, download 4 KiB and upload 4 KiB: a fresh sqlite+fs server from its
// build (what `npm start` runs, `npm run build` first) with --cpu-prof, a warm-up, then `--requests`
// requests by autocannon (10 connections); only the samples taken during those requests are counted.
// Usage: node --conditions=mdstore-source --import tsx bench/support/request-profile.ts [--requests N]
//        [--only get-project,download-4k,upload-4k] [--keep DIR]
// `--keep DIR` keeps the profiles (with the measured window, `<case>.window.json`); `--resplit DIR`
// prints the split of profiles kept earlier, without running anything.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { KiB, markdownBytes, multipartTemplate } from '../lib/content.js';
import { closeHttpAgent, httpJson, runAutocannon } from '../lib/load.js';
import {
  makeTempDir,
  removeDir,
  seedAccounts,
  serverEnvironment,
  sqliteFsFlavour,
  startMdstore,
} from '../lib/mdstore.js';

interface CallFrame {
  functionName: string;
  url: string;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The areas of the split, in the order they are printed. */
const AREAS = [
  'framework (Express, router)',
  'middleware (request id, headers, access log)',
  'authentication',
  'rate limit',
  'body parsing (busboy)',
  'route handler',
  'use case + store',
  'serialisation',
  'Node HTTP, streams, sockets',
  'garbage collection',
  'other',
] as const;
type Area = (typeof AREAS)[number];

/** The area of a script, by its file; undefined for what decides nothing (natives, Node internals). */
function areaOfUrl(url: string): Area | undefined {
  // Node's HTTP, stream and socket code (the socket writes included) is Node's, whoever called it.
  if (/^node:(net|_http_|stream|internal\/streams|internal\/stream_base_commons)/.test(url))
    return 'Node HTTP, streams, sockets';
  if (url === '' || url.startsWith('node:')) return undefined;
  if (/rate-limit|rate-budget|budget/.test(url)) return 'rate limit';
  if (/\/(auth|authentication|api-key[^/]*|secrets)\.[jt]s$/.test(url)) return 'authentication';
  if (
    /node_modules\/(express|router|finalhandler|send|on-finished|parseurl|type-is|content-type|accepts|mime|path-to-regexp|depd|statuses|vary)\//.test(
      url,
    )
  )
    return 'framework (Express, router)';
  if (/node_modules\/(busboy|streamsearch)\//.test(url)) return 'body parsing (busboy)';
  if (/apps\/server\/(src|dist)\/http\/(multipart|request-body|body)\./.test(url))
    return 'body parsing (busboy)';
  if (/apps\/server\/(src|dist)\/http\/(api\/answers|views|content-disposition)\./.test(url))
    return 'serialisation';
  if (/packages\/core\/(src|dist)\/use-cases\/views\./.test(url)) return 'serialisation';
  if (/apps\/server\/(src|dist)\/http\/(routes\/|api\/(route|mount|parameters)|query|validators)/.test(url))
    return 'route handler';
  if (
    /node_modules\/(pino|@pinojs|pino-std-serializers|sonic-boom|fast-redact|quick-format-unescaped)\//.test(
      url,
    )
  )
    return 'middleware (request id, headers, access log)';
  if (/apps\/server\/(src|dist)\/(http\/|logger|metrics|request-context)/.test(url))
    return 'middleware (request id, headers, access log)';
  if (/packages\/(core|sqlite|sql|fs)\/|node_modules\/better-sqlite3\//.test(url)) return 'use case + store';
  return 'other';
}

/** Time per deciding function (`area  function file`), for `--detail`. */
const detail = new Map<string, number>();

function splitProfile(profile: Profile, window: { from: number; to: number }): Map<Area, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const areaOfNode = new Map<number, Area>();
  const decidedBy = new Map<number, string>();
  const areaOf = (id: number): Area => {
    const known = areaOfNode.get(id);
    if (known) return known;
    const leaf = byId.get(id)!;
    let area: Area | undefined;
    let decider = leaf.callFrame;
    if (leaf.callFrame.functionName === '(garbage collector)') area = 'garbage collection';
    // JSON.stringify is serialisation, whoever calls it (Express's res.json does).
    else if (leaf.callFrame.url === '' && leaf.callFrame.functionName === 'stringify') area = 'serialisation';
    // From the leaf up: the first script that is ours, a dependency's or Node's HTTP decides (a native
    // such as JSON.stringify, or node:crypto, counts for whoever called it).
    for (let at: number | undefined = id; area === undefined && at !== undefined; at = parent.get(at)) {
      decider = byId.get(at)!.callFrame;
      area = areaOfUrl(decider.url);
    }
    area ??= leaf.callFrame.functionName === '(program)' ? 'other' : 'Node HTTP, streams, sockets';
    areaOfNode.set(id, area);
    const where = decider.url.replace(/^.*\/(node_modules|packages|apps)\//, '');
    decidedBy.set(id, `${area}  ${decider.functionName || '(anonymous)'} ${where}`);
    return area;
  };
  const totals = new Map<Area, number>();
  let time = profile.startTime;
  for (let index = 0; index < profile.samples.length; index += 1) {
    const delta = profile.timeDeltas[index] ?? 0;
    time += delta;
    if (time < window.from || time > window.to) continue;
    const node = byId.get(profile.samples[index]!)!;
    if (node.callFrame.functionName === '(idle)') continue;
    const area = areaOf(node.id);
    totals.set(area, (totals.get(area) ?? 0) + delta);
    const key = `${profile.startTime}  ${decidedBy.get(node.id)}`;
    detail.set(key, (detail.get(key) ?? 0) + delta);
  }
  return totals;
}

/** Microseconds of the monotonic clock V8's profiles use. */
const nowMicros = () => Number(process.hrtime.bigint() / 1000n);

interface Case {
  readonly name: string;
  /** Prepares the server's data; returns the autocannon options of one request. */
  prepare(base: { url: string; auth: Record<string, string>; projectId: string }): Promise<{
    path: string;
    method: 'GET' | 'POST';
    body?: Buffer;
    headers?: Record<string, string>;
    setupRequest?: (request: { body?: Buffer }) => { body?: Buffer };
  }>;
}

const CASES: readonly Case[] = [
  {
    name: 'get-project',
    prepare: async ({ projectId }) => ({ path: `/api/projects/${projectId}`, method: 'GET' }),
  },
  {
    name: 'download-4k',
    async prepare({ url, auth, projectId }) {
      const body = multipartTemplate(markdownBytes(4 * KiB), 'profile');
      body.stamp(1);
      await httpJson({
        url: `${url}/api/projects/${projectId}/files`,
        method: 'POST',
        headers: { ...auth, 'content-type': body.contentType },
        body: body.body,
        expect: 201,
      });
      return { path: `/api/projects/${projectId}/files/profile-000000001.md`, method: 'GET' };
    },
  },
  {
    name: 'upload-4k',
    async prepare({ projectId }) {
      const template = multipartTemplate(markdownBytes(4 * KiB), 'u');
      let counter = 0;
      return {
        path: `/api/projects/${projectId}/files`,
        method: 'POST',
        body: template.body,
        headers: { 'content-type': template.contentType },
        // A unique filename per request: the template is re-stamped, autocannon copies it into the request.
        setupRequest: (request) => {
          counter += 1;
          template.stamp(counter);
          return request;
        },
      };
    },
  },
];

async function profileCase(test: Case, requests: number, keep: string | undefined) {
  const dataDir = await makeTempDir(`profile-${test.name}`);
  const profileDir = keep ?? path.join(dataDir, 'profiles');
  try {
    const env = serverEnvironment({ dataDir, flavour: sqliteFsFlavour(), logLevel: 'info' });
    const [account] = await seedAccounts(env, ['profile-main']);
    const server = await startMdstore({
      env,
      compiled: true,
      nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${test.name}.cpuprofile`],
    });
    let window: { from: number; to: number };
    try {
      const auth = { authorization: `Bearer ${account!.api_key}` };
      const request = await test.prepare({ url: server.url, auth, projectId: account!.default_project_id });
      const load = (amount: number) =>
        runAutocannon({
          title: test.name,
          url: `${server.url}${request.path}`,
          connections: 10,
          amount,
          requests: [
            {
              method: request.method,
              headers: { ...auth, ...request.headers },
              ...(request.body && { body: request.body }),
              ...(request.setupRequest && { setupRequest: request.setupRequest }),
            },
          ],
        } as Parameters<typeof runAutocannon>[0]);
      await load(Math.ceil(requests / 5));
      const from = nowMicros();
      const measured = await load(requests);
      window = { from, to: nowMicros() };
      process.stdout.write(
        `${test.name}: ${measured.count} requests, ${measured.requestsPerSecond.toFixed(0)} req/s\n`,
      );
    } finally {
      await server.stop();
    }
    const file = (await readdir(profileDir)).find((name) => name.startsWith(test.name));
    if (!file) throw new Error(`no profile written in ${profileDir}`);
    if (keep)
      await writeFile(path.join(keep, `${test.name}.window.json`), JSON.stringify({ ...window, requests }));
    const profile = JSON.parse(await readFile(path.join(profileDir, file), 'utf8')) as Profile;
    return splitProfile(profile, window);
  } finally {
    await removeDir(dataDir);
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      requests: { type: 'string', default: '20000' },
      only: { type: 'string' },
      keep: { type: 'string' },
      resplit: { type: 'string' },
      detail: { type: 'boolean', default: false },
    },
  });
  if (values.resplit) return resplit(values.resplit);
  const requests = Number(values.requests);
  const names = values.only?.split(',');
  const cases = CASES.filter((test) => !names || names.includes(test.name));
  const columns: { name: string; split: Map<Area, number> }[] = [];
  for (const test of cases)
    columns.push({ name: test.name, split: await profileCase(test, requests, values.keep) });
  printSplit(columns, requests);
}

async function resplit(dir: string) {
  const columns: { name: string; split: Map<Area, number> }[] = [];
  let requests = 0;
  for (const test of CASES) {
    const found = await readFile(path.join(dir, `${test.name}.window.json`), 'utf8').catch(() => undefined);
    if (!found) continue;
    const window = JSON.parse(found) as { from: number; to: number; requests: number };
    requests = window.requests;
    const profile = JSON.parse(await readFile(path.join(dir, `${test.name}.cpuprofile`), 'utf8')) as Profile;
    columns.push({ name: test.name, split: splitProfile(profile, window) });
  }
  printSplit(columns, requests);
}

function printSplit(columns: { name: string; split: Map<Area, number> }[], requests: number) {
  const perRequest = (micros: number | undefined) => ((micros ?? 0) / requests).toFixed(1);
  const rows = [
    `| µs of CPU per request | ${columns.map((c) => c.name).join(' | ')} |`,
    `| --- | ${columns.map(() => '---:').join(' | ')} |`,
    ...AREAS.map((area) => `| ${area} | ${columns.map((c) => perRequest(c.split.get(area))).join(' | ')} |`),
    `| **total** | ${columns.map((c) => perRequest([...c.split.values()].reduce((a, b) => a + b, 0))).join(' | ')} |`,
  ];
  process.stdout.write(`\n${rows.join('\n')}\n`);
  if (process.argv.includes('--detail')) {
    const sorted = [...detail].sort((a, b) => b[1] - a[1]);
    for (const profileStart of new Set(sorted.map(([key]) => key.split('  ')[0]))) {
      const top = sorted.filter(([key]) => key.startsWith(`${profileStart}  `)).slice(0, 30);
      for (const [key, micros] of top)
        process.stdout.write(`${(micros / requests).toFixed(1).padStart(8)} µs  ${key}\n`);
    }
  }
}

main().then(
  () => {
    closeHttpAgent();
    process.exit(0);
  },
  (error: unknown) => {
    process.stderr.write(
      `request-profile: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
