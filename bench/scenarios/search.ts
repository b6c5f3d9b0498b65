import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { compare, loopTarget } from '../lib/compare.js';
import type { Bench } from '../lib/context.js';
import { httpJson, httpRequest } from '../lib/load.js';
import { REPO_ROOT } from '../lib/processes.js';
import { FLAVOURS, type Scenario } from './types.js';

/** Real Markdown: README.md files (1–64 KiB) of the packages under node_modules, by path. */
async function readmeCorpus(count: number): Promise<{ filename: string; content: Buffer }[]> {
  const root = path.join(REPO_ROOT, 'node_modules');
  const dirs: string[] = [];
  for (const entry of (await readdir(root)).sort()) {
    if (entry.startsWith('.')) continue;
    if (!entry.startsWith('@')) dirs.push(entry);
    else for (const inner of (await readdir(path.join(root, entry))).sort()) dirs.push(`${entry}/${inner}`);
  }
  const corpus: { filename: string; content: Buffer }[] = [];
  for (const dir of dirs) {
    const file = path.join(root, dir, 'README.md');
    const size = await stat(file).then(
      (info) => (info.isFile() ? info.size : 0),
      () => 0,
    );
    if (size < 1024 || size > 64 * 1024) continue;
    corpus.push({ filename: `${dir.replaceAll('/', '__')}.md`, content: await readFile(file) });
    if (corpus.length === count) break;
  }
  return corpus;
}

/** A common word (many matches to rank and snippet) and a phrase with a filter-free AND. */
const QUERIES = [
  { label: 'common word', body: { query: 'install' } },
  { label: 'phrase + word', body: { query: '"npm install" license' } },
];

async function measureSearch(bench: Bench, flavour: (typeof FLAVOURS)[number], files: number) {
  const session = await bench.session(flavour);
  if (!session) return;
  const projectId = await session.createProject(session.uniqueName('search'));
  for (const { filename, content } of await readmeCorpus(files))
    await session.upload(projectId, filename, content);
  const url = `${session.url}/api/projects/${projectId}/search`;
  const headers = { ...session.auth(), 'content-type': 'application/json' };
  for (const { label, body } of QUERIES) {
    const json = JSON.stringify(body);
    const payload = await httpJson({ url, method: 'POST', headers, body: json, expect: 200 });
    await bench.setExpressFixture('search', payload);
    const expressUrl = `${await bench.expressUrl()}/api/projects/${projectId}/search`;
    const post = (target: string) => async () => {
      const response = await httpRequest({ url: target, method: 'POST', headers, body: json });
      if (response.status !== 200) throw new Error(`search: ${response.status} ${response.body.toString()}`);
    };
    const [mdstore, express] = await compare(
      bench,
      [
        loopTarget(`mdstore ${flavour} search`, 1, post(url)),
        loopTarget('express search', 1, post(expressUrl)),
      ],
      bench.settings.latencySec,
    );
    bench.results.lower(
      `search, ${label}, ${files} READMEs, one client [${flavour}]`,
      'p50 latency ms',
      mdstore!.p50Ms,
      express!.p50Ms,
      'bare Express 5 (same JSON)',
    );
  }
}

const search: Scenario = {
  name: 'search',
  needs: ['sqlite+fs', 'postgres+s3', 'express'],
  description: 'POST /api/projects/{id}/search over 300 real README files (quick: 100), p50 of one client',
  async run(bench) {
    const files = bench.settings.quick ? 100 : 300;
    for (const flavour of FLAVOURS) await measureSearch(bench, flavour, files);
  },
};

export const searchScenarios: readonly Scenario[] = [search];
