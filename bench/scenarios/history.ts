import { compare, loopTarget, type Target } from '../lib/compare.js';
import { KiB, markdownBytes } from '../lib/content.js';
import type { Session } from '../lib/context.js';
import { httpJson, httpRequest } from '../lib/load.js';
import type { Scenario } from './types.js';

/** History (extensions §5): what keeping revisions costs a write, and reading a long history. */

async function projectKeeping(session: Session, keepRevisions: number): Promise<string> {
  const project = await httpJson<{ id: string }>({
    url: `${session.url}/api/projects`,
    method: 'POST',
    headers: { ...session.auth(), 'content-type': 'application/json' },
    body: JSON.stringify({
      name: `history-${keepRevisions}-${Date.now()}`,
      settings: { keep_revisions: keepRevisions },
    }),
    expect: 201,
  });
  return project.id;
}

/** One content update at a time, each a new 4 KiB version (so that every revision is its own content). */
function updateTarget(session: Session, projectId: string, label: string): Target {
  const url = `${session.url}/api/projects/${projectId}/files/doc.md/content`;
  const headers = { ...session.auth(), 'content-type': 'text/markdown' };
  const base = markdownBytes(4 * KiB);
  return loopTarget(label, 1, async (index) => {
    const body = Buffer.concat([Buffer.from(`# version ${index} ${Date.now()}\n`), base]);
    const response = await httpRequest({ url, method: 'PUT', headers, body });
    if (response.status !== 200) throw new Error(`content update: ${response.status}`);
  });
}

const historyWrite: Scenario = {
  name: 'history-write',
  needs: ['sqlite+fs'],
  description:
    'content update (4 KiB) with keep_revisions 20 vs 1: the cost of keeping history (target ≥ 0.8×)',
  async run(bench) {
    const session = (await bench.session('sqlite+fs'))!;
    const keep20 = await projectKeeping(session, 20);
    const keep1 = await projectKeeping(session, 1);
    for (const projectId of [keep20, keep1])
      await session.upload(projectId, 'doc.md', markdownBytes(4 * KiB));
    const scenario = 'content update, keep_revisions 20 vs 1 [sqlite+fs]';
    const [kept, single] = await compare(bench, [
      updateTarget(session, keep20, 'history keep 20'),
      updateTarget(session, keep1, 'history keep 1'),
    ]);
    bench.results.higher(
      scenario,
      'throughput req/s, one client (higher is better)',
      kept!.requestsPerSecond,
      single!.requestsPerSecond,
      'keep_revisions 1',
    );
  },
};

/** One GET at a time, failing on anything but 200. */
function getTarget(label: string, url: string, headers: Record<string, string>): Target {
  return loopTarget(label, 1, async () => {
    const response = await httpRequest({ url, headers });
    if (response.status !== 200) throw new Error(`GET ${url}: ${response.status}`);
  });
}

const historyRead: Scenario = {
  name: 'history-read',
  needs: ['sqlite+fs'],
  description: 'revision list and diff latency on a file with 1 000 revisions (quick: 200), vs its download',
  async run(bench) {
    const session = (await bench.session('sqlite+fs'))!;
    const revisions = bench.settings.quick ? 200 : 1_000;
    const projectId = await projectKeeping(session, 1_000);
    const lines = Array.from({ length: 200 }, (_, i) => `line ${i}: ${'text '.repeat(8)}\n`);
    await session.upload(projectId, 'doc.md', Buffer.from(lines.join('')));
    const file = `${session.url}/api/projects/${projectId}/files/doc.md`;
    const headers = session.auth();
    for (let n = 2; n <= revisions; n++) {
      lines[n % lines.length] = `line ${n % lines.length} changed at revision ${n}\n`;
      const response = await httpRequest({
        url: `${file}/content`,
        method: 'PUT',
        headers: { ...headers, 'content-type': 'text/markdown' },
        body: lines.join(''),
      });
      if (response.status !== 200) throw new Error(`content update: ${response.status}`);
    }
    const download = getTarget('history download', file, headers);
    const measured = await compare(
      bench,
      [
        getTarget('history list 100', `${file}/revisions?limit=100`, headers),
        getTarget('history list all', `${file}/revisions?limit=1000`, headers),
        getTarget('history diff', `${file}/diff?from=1`, headers),
        download,
      ],
      bench.settings.latencySec,
    );
    const [page, all, diff, plain] = measured as [
      (typeof measured)[number],
      (typeof measured)[number],
      (typeof measured)[number],
      (typeof measured)[number],
    ];
    const baseline = 'download of the file';
    const scenario = (what: string) => `${what}, ${revisions} revisions, one client [sqlite+fs]`;
    bench.results.lower(
      scenario('revision list, limit 100'),
      'p50 latency ms',
      page.p50Ms,
      plain.p50Ms,
      baseline,
    );
    bench.results.lower(
      scenario(`revision list, limit ${revisions}`),
      'p50 latency ms',
      all.p50Ms,
      plain.p50Ms,
      baseline,
    );
    bench.results.lower(
      scenario('diff revision 1 → current'),
      'p50 latency ms',
      diff.p50Ms,
      plain.p50Ms,
      baseline,
    );
  },
};

export const historyScenarios: readonly Scenario[] = [historyWrite, historyRead];
