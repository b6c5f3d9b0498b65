import { autocannonTarget, compare, loopTarget, type Target } from '../lib/compare.js';
import { KiB, markdownBytes, multipartTemplate } from '../lib/content.js';
import type { Session } from '../lib/context.js';
import { httpJson, httpRequest } from '../lib/load.js';
import type { Scenario } from './types.js';

/** One GET at a time (precise latency), failing on anything but 200. */
export function getTarget(warmUpKey: string, url: string, headers?: Record<string, string>): Target {
  return loopTarget(warmUpKey, 1, async () => {
    const response = await httpRequest({ url, ...(headers && { headers }) });
    if (response.status !== 200) throw new Error(`GET ${url}: ${response.status}`);
  });
}

/** One 4 KiB upload at a time into `projectId`, a new filename each. */
function uploadTarget(session: Session, projectId: string, prefix: string): Target {
  const template = multipartTemplate(markdownBytes(4 * KiB), prefix);
  const url = `${session.url}/api/projects/${projectId}/files`;
  const headers = { ...session.auth(), 'content-type': template.contentType };
  return loopTarget('mdstore sqlite+fs upload', 1, async (index) => {
    // One request at a time: the template is re-stamped only after this response.
    template.stamp(index);
    const response = await httpRequest({ url, method: 'POST', headers, body: template.body });
    if (response.status !== 201) throw new Error(`upload: ${response.status} ${response.body.toString()}`);
  });
}

const growthList: Scenario = {
  name: 'growth-list',
  needs: ['sqlite+fs', 'express'],
  description: 'List Files latency at 100, 1 000 and 10 000 files: the cost per file must stay flat',
  async run(bench) {
    const session = (await bench.session('sqlite+fs'))!;
    const counts = bench.settings.fileCounts;
    const p50 = new Map<number, number>();
    const expressP50 = new Map<number, number>();
    for (const count of counts) {
      const projectId = await session.projectWithFiles(count);
      const path = `/api/projects/${projectId}/files`;
      await bench.setExpressFixture(
        'files',
        await httpJson({ url: `${session.url}${path}`, headers: session.auth(), expect: 200 }),
      );
      const [mdstore, express] = await compare(
        bench,
        [
          getTarget('mdstore sqlite+fs list', `${session.url}${path}`, session.auth()),
          getTarget('express list', `${await bench.expressUrl()}${path}`),
        ],
        bench.settings.latencySec,
      );
      p50.set(count, mdstore!.p50Ms);
      expressP50.set(count, express!.p50Ms);
      bench.results.lower(
        `list files, ${count} files, one client [sqlite+fs]`,
        'p50 latency ms',
        mdstore!.p50Ms,
        express!.p50Ms,
        'bare Express 5 (same JSON)',
      );
    }
    // Linear cost: a file costs as much in the upper range as in the lower one (ratio near 1).
    const [small, middle, large] = counts as [number, number, number];
    const marginal = (latencies: Map<number, number>, from: number, to: number) =>
      ((latencies.get(to)! - latencies.get(from)!) / (to - from)) * 1000;
    const lowerRange = marginal(p50, small, middle);
    const upperRange = marginal(p50, middle, large);
    bench.results.lower(
      'growth: list files cost per file [sqlite+fs]',
      `marginal p50 µs per file, ${middle}→${large} files`,
      upperRange,
      lowerRange,
      `same, ${small}→${middle} files`,
    );
    // Serialising and sending a bigger JSON body costs more per file by itself: the same growth factor
    // measured on bare Express tells mdstore's share apart (ratio near 1: no worse than the framework).
    const expressGrowth = marginal(expressP50, middle, large) / marginal(expressP50, small, middle);
    bench.results.lower(
      'growth: list files cost per file [sqlite+fs]',
      'growth of the marginal cost per file (upper / lower range)',
      upperRange / lowerRange,
      expressGrowth,
      'bare Express 5 (same JSON)',
    );
  },
};

/** A cursor `pages` pages of `limit` deep into a project's files (by filename). */
export async function deepCursor(
  session: Session,
  projectId: string,
  limit: number,
  pages: number,
): Promise<string> {
  let cursor = '';
  for (let page = 0; page < pages; page++) {
    const query = `limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const body = (await httpJson({
      url: `${session.url}/api/projects/${projectId}/files?${query}`,
      headers: session.auth(),
      expect: 200,
    })) as { next_cursor: string | null };
    if (!body.next_cursor) break;
    cursor = body.next_cursor;
  }
  return cursor;
}

const listPage: Scenario = {
  name: 'list-page',
  needs: ['sqlite+fs'],
  description:
    'List Files, one page of 100 (first and deep), in a project of 100 vs 10 000 files: must be flat',
  async run(bench) {
    const session = (await bench.session('sqlite+fs'))!;
    const counts = bench.settings.fileCounts;
    const [small, large] = [counts[0]!, counts.at(-1)!];
    const smallProject = await session.projectWithFiles(small);
    const largeProject = await session.projectWithFiles(large);
    // Pages of the same size in both projects, each with a next page (so both sign a cursor): 99 of 100
    // files (the quick run's small project has 50 files).
    const limit = Math.min(100, small - 1);
    const page = (projectId: string, cursor = '') =>
      `${session.url}/api/projects/${projectId}/files?limit=${limit}${cursor && `&cursor=${encodeURIComponent(cursor)}`}`;
    // Deep: past half of the large project (walked in pages of 1 000, the largest).
    const deep = await deepCursor(session, largeProject, 1000, Math.floor(large / 2000));
    const [first, firstSmall, deepLarge] = await compare(
      bench,
      [
        getTarget('mdstore sqlite+fs page', page(largeProject), session.auth()),
        getTarget('mdstore sqlite+fs page', page(smallProject), session.auth()),
        getTarget('mdstore sqlite+fs page', page(largeProject, deep), session.auth()),
      ],
      bench.settings.latencySec,
    );
    const scenario = `list files, page of ${limit}, ${large} vs ${small} files [sqlite+fs]`;
    bench.results.lower(
      scenario,
      'first page p50 latency ms',
      first!.p50Ms,
      firstSmall!.p50Ms,
      `${small} files`,
    );
    bench.results.lower(
      scenario,
      'deep page p50 latency ms',
      deepLarge!.p50Ms,
      firstSmall!.p50Ms,
      `${small} files`,
    );
  },
};

const growthUpload: Scenario = {
  name: 'growth-upload',
  needs: ['sqlite+fs'],
  description: 'upload latency (4 KiB) into an empty project vs one that already holds 10 000 files',
  async run(bench) {
    const session = (await bench.session('sqlite+fs'))!;
    const count = bench.settings.fileCounts.at(-1)!;
    const full = await session.projectWithFiles(count);
    const empty = await session.createProject(`empty-${Date.now()}`);
    const [intoFull, intoEmpty] = await compare(
      bench,
      [uploadTarget(session, full, 'gN'), uploadTarget(session, empty, 'g0')],
      bench.settings.latencySec,
    );
    bench.results.lower(
      'growth: upload 4 KiB, one client [sqlite+fs]',
      `p50 latency ms with ${count} files in the project`,
      intoFull!.p50Ms,
      intoEmpty!.p50Ms,
      'same, empty project',
    );
  },
};

const growthAccounts: Scenario = {
  name: 'growth-accounts',
  needs: ['sqlite+fs'],
  description: 'GET project throughput with requests spread over 100 accounts vs all on one key',
  async run(bench) {
    const session = (await bench.session('sqlite+fs'))!;
    const requestsFor = (accounts: Session['spread']) =>
      accounts.map((account) => ({
        method: 'GET',
        path: `/api/projects/${account.default_project_id}`,
        headers: session.auth(account),
      }));
    const target = (title: string, accounts: Session['spread']) =>
      autocannonTarget('mdstore sqlite+fs', {
        title,
        url: session.url,
        connections: 10,
        requests: requestsFor(accounts),
      });
    const [many, one] = await compare(bench, [
      target(`GET project, ${session.spread.length} keys`, session.spread),
      target('GET project, one key', [session.main]),
    ]);
    bench.results.higher(
      `growth: GET project over ${session.spread.length} accounts [sqlite+fs]`,
      'throughput req/s (higher is better)',
      many!.requestsPerSecond,
      one!.requestsPerSecond,
      'same, one account',
    );
  },
};

export const growthScenarios: readonly Scenario[] = [growthList, listPage, growthUpload, growthAccounts];
