// Issue 26 (extensions §9): the link index's reads at scale, and what it costs a write.
// `links`: on the built server (sqlite+fs and postgres+s3), a project of 20 000 files seeded by
// changesets of 1 000 operations, one file (`hub.md`) linked from 1 000 of them, some links broken;
// one client measures the p50/p90 of that file's links (incoming resolved) and of the first page of
// the project's broken links (target p50 < 20 ms).
// `link-upload`: what the link index costs a 4 KiB upload over HTTP (bench/support/link-index-cost.ts).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { httpJson, httpRequest, nearestRank } from '../lib/load.js';
import { type BenchAccount, serverEnvironment } from '../lib/mdstore.js';
import { REPO_ROOT, SOURCE_NODE_ARGS } from '../lib/processes.js';
import { FLAVOURS, type Scenario } from './types.js';

const TARGET_MS = 20;
const BATCH = 1_000;

/** The seeded project: its size, the hub's referrers, and which files hold a broken link. */
interface Shape {
  readonly files: number;
  readonly referrers: number;
  /** Every `brokenEvery`-th note links to a file that does not exist. */
  readonly brokenEvery: number;
}

const folderOf = (i: number) => `notes/${String(Math.floor(i / 200)).padStart(3, '0')}`;
const noteName = (i: number) => `n-${String(i).padStart(5, '0')}`;

/** A relative Markdown link from note `from` to note `to` (same folder, or `../<folder>/`). */
function relative(from: number, to: number): string {
  return folderOf(from) === folderOf(to)
    ? `${noteName(to)}.md`
    : `../${folderOf(to).slice('notes/'.length)}/${noteName(to)}.md`;
}

/**
 * Note `i`: a heading, a Markdown link to the next note and a wiki link to the one after (resolved by
 * stem), a link to the hub from the first `referrers` notes, a broken link from every `brokenEvery`-th,
 * and a missing anchor from every 97th.
 */
function note(i: number, shape: Shape): string {
  const last = shape.files - 2;
  const lines = [
    `# Note ${i}`,
    '',
    `See [the next note](${relative(i, (i + 1) % last)}) and [[${noteName((i + 2) % last)}]].`,
  ];
  if (i < shape.referrers) lines.push(`Back to [the hub](../../hub.md#intro).`);
  if (i % shape.brokenEvery === 0) lines.push(`A [gone page](missing-${i}.md).`);
  if (i % 97 === 0) lines.push(`An [unknown anchor](${relative(i, (i + 1) % last)}#nowhere).`);
  return `${lines.join('\n')}\n`;
}

/** `count` GETs of `url`, one at a time, after `warmup` unmeasured ones: sorted latencies in ms. */
async function latencies(url: string, account: BenchAccount, warmup: number, count: number) {
  const times: number[] = [];
  for (let i = -warmup; i < count; i++) {
    const started = performance.now();
    const response = await httpRequest({ url, headers: { authorization: `Bearer ${account.api_key}` } });
    if (response.status !== 200) throw new Error(`GET ${url}: ${response.status}`);
    if (i >= 0) times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

const linksRead: Scenario = {
  name: 'links',
  needs: [],
  description:
    'links of a file with 1 000 referrers and the first page of broken links in a 20 000-file project (p50 < 20 ms)',
  async run(bench) {
    const shape: Shape = bench.settings.quick
      ? { files: 2_000, referrers: 100, brokenEvery: 40 }
      : { files: 20_000, referrers: 1_000, brokenEvery: 40 };
    const [warmup, count] = bench.settings.quick ? [3, 20] : [10, 200];
    for (const name of FLAVOURS) {
      const flavour = await bench.flavour(name);
      if (!flavour) continue;
      // `--profile`: the sqlite+fs server writes a CPU profile (bench/results/profiles).
      const nodeFlags =
        bench.settings.profile && name === 'sqlite+fs'
          ? ['--cpu-prof', `--cpu-prof-dir=${path.join(REPO_ROOT, 'bench/results/profiles')}`]
          : [];
      const { server, accounts } = await bench.startServer(flavour, ['bench-links'], {
        label: 'links',
        nodeFlags,
      });
      const [account] = accounts as [BenchAccount];
      const project = `${server.url}/api/projects/${account.default_project_id}`;
      try {
        const seeding = performance.now();
        const operations = [
          { op: 'put', filename: 'hub.md', content: '# Hub\n\n## Intro\n\nWhere every note starts.\n' },
          ...Array.from({ length: shape.files - 1 }, (_, i) => ({
            op: 'put',
            filename: `${folderOf(i)}/${noteName(i)}.md`,
            content: note(i, shape),
          })),
        ];
        for (let at = 0; at < operations.length; at += BATCH) {
          await httpJson({
            url: `${project}/changesets`,
            method: 'POST',
            headers: { authorization: `Bearer ${account.api_key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ message: `seed ${at}`, operations: operations.slice(at, at + BATCH) }),
            expect: 200,
          });
        }
        const seeded = performance.now() - seeding;
        // What is measured answers what was seeded.
        const hub = await httpJson<{ incoming: unknown[] }>({
          url: `${project}/files/hub.md/links`,
          headers: { authorization: `Bearer ${account.api_key}` },
          expect: 200,
        });
        const broken = await httpJson<{ links: unknown[] }>({
          url: `${project}/links/broken`,
          headers: { authorization: `Bearer ${account.api_key}` },
          expect: 200,
        });
        if (hub.incoming.length !== shape.referrers || broken.links.length === 0)
          throw new Error(
            `seeded ${shape.referrers} referrers, found ${hub.incoming.length}; ${broken.links.length} broken`,
          );
        const incoming = await latencies(`${project}/files/hub.md/links`, account, warmup, count);
        const brokenPage = await latencies(`${project}/links/broken`, account, warmup, count);
        const tag = `${name}${bench.settings.compiled ? ', compiled' : ''}`;
        bench.log(
          `    ${name}: ${shape.files} files seeded by ${Math.ceil(operations.length / BATCH)} changesets in ` +
            `${(seeded / 1000).toFixed(1)} s; links of hub.md (${shape.referrers} incoming) p50 ` +
            `${nearestRank(incoming, 50).toFixed(1)} ms, p90 ${nearestRank(incoming, 90).toFixed(1)} ms; ` +
            `broken links, first page of ${broken.links.length}: p50 ${nearestRank(brokenPage, 50).toFixed(1)} ms, ` +
            `p90 ${nearestRank(brokenPage, 90).toFixed(1)} ms (${count} requests each, one client)`,
        );
        for (const [what, sorted] of [
          [`links of a file with ${shape.referrers} referrers, ${shape.files} files`, incoming],
          [`first page of broken links, ${shape.files} files`, brokenPage],
        ] as const) {
          bench.results.lower(
            `links: ${what} [${tag}]`,
            'p50 ms',
            nearestRank(sorted, 50),
            TARGET_MS,
            'target 20 ms',
          );
          bench.results.lower(
            `links: ${what} [${tag}]`,
            'p90 ms',
            nearestRank(sorted, 90),
            TARGET_MS,
            'p50 target, for scale',
          );
        }
      } finally {
        await server.stop();
      }
    }
  },
};

const linkUpload: Scenario = {
  name: 'link-upload',
  needs: [],
  description:
    'in process: 4 KiB uploads (link-dense page, plain prose) with the link index vs without it (≥ 0.9×)',
  async run(bench) {
    const flavour = await bench.flavour('sqlite+fs');
    if (!flavour) return;
    const dataDir = await bench.tempDir('link-upload');
    const env = serverEnvironment({ dataDir, flavour, logLevel: 'warn' });
    const script = path.join(REPO_ROOT, 'bench/support/link-index-cost.ts');
    // The build (as `npm start`), or the sources with `--source`.
    const nodeArgs = bench.settings.compiled ? ['--import', 'tsx'] : SOURCE_NODE_ARGS;
    const args = [...nodeArgs, script, ...(bench.settings.quick ? ['--quick'] : [])];
    const { stdout } = await promisify(execFile)(process.execPath, args, { cwd: REPO_ROOT, env });
    const result = JSON.parse(stdout) as Record<'dense' | 'prose', { indexed_ms: number; plain_ms: number }>;
    const tag = bench.settings.compiled ? 'sqlite+fs, compiled' : 'sqlite+fs';
    for (const [name, what] of [
      ['dense', 'a link-dense page'],
      ['prose', 'plain prose'],
    ] as const) {
      bench.log(
        `    ${what}: ${result[name].indexed_ms.toFixed(3)} ms with the link index, ` +
          `${result[name].plain_ms.toFixed(3)} ms without (${(result[name].plain_ms / result[name].indexed_ms).toFixed(2)}×)`,
      );
      bench.results.lower(
        `link index: 4 KiB upload of ${what}, one at a time, in process [${tag}]`,
        'mean upload ms (median of rounds)',
        result[name].indexed_ms,
        result[name].plain_ms,
        'same server without the link index (target ≥ 0.9×)',
      );
    }
  },
};

export const linkScenarios: readonly Scenario[] = [linksRead, linkUpload];
