// Finding at scale (issue 11 item 7): List Files pages, a filter and a full-text query over 20 000
// generated Markdown files (quick: 2 000) vs 1 000 (quick: 200), on sqlite+fs and postgres+s3.
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { compare, loopTarget } from '../lib/compare.js';
import type { Bench, Session } from '../lib/context.js';
import { httpJson, httpRequest } from '../lib/load.js';
import { serverEnvironment } from '../lib/mdstore.js';
import { REPO_ROOT, SOURCE_NODE_ARGS } from '../lib/processes.js';
import { deepCursor, getTarget } from './growth.js';
import { FLAVOURS, type Scenario } from './types.js';

/** mulberry32: a small deterministic PRNG, so every run generates the same corpus. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The words (3–12 lower-case letters) of the README.md files under node_modules, most frequent first. */
async function readmeVocabulary(size: number): Promise<string[]> {
  const root = path.join(REPO_ROOT, 'node_modules');
  const counts = new Map<string, number>();
  for (const entry of (await readdir(root)).sort()) {
    if (entry.startsWith('.') || entry.startsWith('@')) continue;
    const text = await readFile(path.join(root, entry, 'README.md'), 'utf8').catch(() => '');
    for (const word of text.toLowerCase().match(/\b[a-z]{3,12}\b/g) ?? [])
      counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, size)
    .map(([word]) => word);
}

export const TOPICS = 20;

/** One realistic file: front matter, headings, paragraphs, a list and a code block, ~300 words. */
function generateFile(index: number, vocabulary: readonly string[], random: () => number): Buffer {
  // Zipf-like: frequent words often, rare ones seldom (as in prose).
  const word = () => vocabulary[Math.floor(vocabulary.length * random() ** 3)]!;
  const words = (n: number) => Array.from({ length: n }, word).join(' ');
  const sentence = () => {
    const text = words(6 + Math.floor(random() * 10));
    return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
  };
  const paragraph = () => Array.from({ length: 3 + Math.floor(random() * 3) }, sentence).join(' ');
  const parts = [
    '---',
    `title: ${words(3)}`,
    `topic: t${index % TOPICS}`,
    `tags: [${words(2).replace(' ', ', ')}]`,
    '---',
    `# ${words(4)}`,
    '',
    paragraph(),
    '',
    `## ${words(3)}`,
    '',
    paragraph(),
    '',
    ...Array.from({ length: 4 }, () => `- ${words(5)}`),
    '',
    '```js',
    `const ${word()} = require('${word()}');`,
    `${word()}.${word()}({ ${word()}: true });`,
    '```',
    '',
    paragraph(),
    '',
  ];
  return Buffer.from(parts.join('\n'));
}

/** The same `count` files, numbered from 0, whatever the count: a smaller corpus is a prefix of a larger. */
async function corpus(count: number): Promise<{ filename: string; content: Buffer }[]> {
  const vocabulary = await readmeVocabulary(5_000);
  const random = prng(11);
  return Array.from({ length: count }, (_, index) => ({
    filename: `doc-${String(index).padStart(6, '0')}.md`,
    content: generateFile(index, vocabulary, random),
  }));
}

/** Uploads the files over HTTP, 16 at a time (the server's group commit batches them). */
async function seed(session: Session, label: string, files: { filename: string; content: Buffer }[]) {
  const projectId = await session.createProject(session.uniqueName(label));
  const started = Date.now();
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const file = files[next++]!;
      await session.upload(projectId, file.filename, file.content);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  process.stdout.write(
    `    seeded ${files.length} files [${session.flavour.name}] in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
  return projectId;
}

function postTarget(key: string, url: string, headers: Record<string, string>, json: string) {
  return loopTarget(key, 1, async () => {
    const response = await httpRequest({ url, method: 'POST', headers, body: json });
    if (response.status !== 200) throw new Error(`search: ${response.status} ${response.body.toString()}`);
  });
}

const FILTER = {
  and: [
    { field: 'frontmatter.topic', op: 'eq', value: 't3' },
    { field: 'updated_date', op: 'gte', value: '2000-01-01' },
  ],
};

async function measureFlavour(
  bench: Bench,
  flavour: (typeof FLAVOURS)[number],
  small: number,
  large: number,
) {
  const session = await bench.session(flavour);
  if (!session) return;
  const files = await corpus(large);
  const smallProject = await seed(session, 'find-small', files.slice(0, small));
  const largeProject = await seed(session, 'find-large', files);
  const auth = session.auth();
  const headers = { ...auth, 'content-type': 'application/json' };
  const searchUrl = (projectId: string) => `${session.url}/api/projects/${projectId}/search`;
  // A word of middle frequency: in many files but not all (ranking and snippets have work to do).
  const vocabulary = await readmeVocabulary(5_000);
  const ftsQuery = JSON.stringify({ query: `${vocabulary[40]} ${vocabulary[200]}` });

  // Cold: the first full-text query on the large project (its first search since seeding).
  const coldStart = performance.now();
  const coldAnswer = await httpJson<{ total_count: number }>({
    url: searchUrl(largeProject),
    method: 'POST',
    headers,
    body: ftsQuery,
    expect: 200,
  });
  const coldMs = performance.now() - coldStart;

  const limit = 100;
  const page = (projectId: string, cursor = '') =>
    `${session.url}/api/projects/${projectId}/files?limit=${limit}${cursor && `&cursor=${encodeURIComponent(cursor)}`}`;
  const deepLarge = await deepCursor(session, largeProject, 1000, Math.floor(large / 2000));
  const deepSmall = await deepCursor(session, smallProject, 100, Math.floor(small / 200));
  // Limit 10: the small project holds 10 matches, so both answers carry the same number of files.
  const filterJson = JSON.stringify({ filter: FILTER, limit: 10 });
  const key = `mdstore ${flavour} find`;
  const [firstL, firstS, deepL, deepS, filterL, filterS, ftsL, ftsS] = await compare(
    bench,
    [
      getTarget(`${key} page`, page(largeProject), auth),
      getTarget(`${key} page`, page(smallProject), auth),
      getTarget(`${key} page`, page(largeProject, deepLarge), auth),
      getTarget(`${key} page`, page(smallProject, deepSmall), auth),
      postTarget(`${key} filter`, searchUrl(largeProject), headers, filterJson),
      postTarget(`${key} filter`, searchUrl(smallProject), headers, filterJson),
      postTarget(`${key} fts`, searchUrl(largeProject), headers, ftsQuery),
      postTarget(`${key} fts`, searchUrl(smallProject), headers, ftsQuery),
    ],
    bench.settings.latencySec,
  );
  const list = `find: list files, page of ${limit}, ${large} vs ${small} files [${flavour}]`;
  bench.results.lower(list, 'first page p50 latency ms', firstL!.p50Ms, firstS!.p50Ms, `${small} files`);
  bench.results.lower(list, 'deep page p50 latency ms', deepL!.p50Ms, deepS!.p50Ms, `${small} files, deep`);
  bench.results.lower(
    `find: filter topic eq + updated_date gte (1/${TOPICS} match), limit 10, ${large} files [${flavour}]`,
    'p50 latency ms',
    filterL!.p50Ms,
    filterS!.p50Ms,
    `same filter, ${small} files`,
  );
  const fts = `find: full-text "${vocabulary[40]} ${vocabulary[200]}" (${coldAnswer.total_count} matches), ${large} files [${flavour}]`;
  bench.results.lower(fts, 'warm p50 latency ms', ftsL!.p50Ms, ftsS!.p50Ms, `same query, ${small} files`);
  bench.results.lower(fts, 'cold latency ms (first query)', coldMs, ftsL!.p50Ms, 'warm p50');
}

const finding: Scenario = {
  name: 'finding',
  needs: ['sqlite+fs', 'postgres+s3'],
  description:
    'list pages, a filter and a full-text query over 20 000 generated Markdown files vs 1 000 (quick: 2 000 vs 200)',
  async run(bench) {
    const [small, large] = bench.settings.quick ? [200, 2_000] : [1_000, 20_000];
    for (const flavour of FLAVOURS) await measureFlavour(bench, flavour, small, large);
  },
};

/** Upload cost with the search index vs the same store with `indexFile` a no-op (in process, see the script). */
const findUpload: Scenario = {
  name: 'find-upload',
  needs: [],
  description: 'in process: 4 KiB uploads, one at a time, with the search index vs with indexFile a no-op',
  async run(bench) {
    for (const name of FLAVOURS) {
      const flavour = await bench.flavour(name);
      if (!flavour) continue;
      const dataDir = await bench.tempDir(`find-upload-${name.replace('+', '-')}`);
      const env = serverEnvironment({ dataDir, flavour, logLevel: 'warn' });
      const script = path.join(REPO_ROOT, 'bench/support/upload-index-cost.ts');
      const args = [...SOURCE_NODE_ARGS, script, ...(bench.settings.quick ? ['--quick'] : [])];
      const { stdout } = await promisify(execFile)(process.execPath, args, { cwd: REPO_ROOT, env });
      const result = JSON.parse(stdout) as { indexed_ms: number; plain_ms: number };
      bench.results.lower(
        `find: upload 4 KiB, one at a time, in process, with the search index [${name}]`,
        'mean upload ms (median of rounds)',
        result.indexed_ms,
        result.plain_ms,
        'same store, indexFile a no-op',
      );
    }
  },
};

export const findingScenarios: readonly Scenario[] = [finding, findUpload];
