import { compare, loopTarget } from '../lib/compare.js';
import type { Bench } from '../lib/context.js';
import { httpJson, httpRequest } from '../lib/load.js';
import { readmeCorpus } from '../search-quality/corpus.js';
import { FLAVOURS, type Scenario } from './types.js';

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
