import http from 'node:http';
import { autocannonTarget, compare } from '../lib/compare.js';
import { markdownBytes } from '../lib/content.js';
import { type Bench, Session } from '../lib/context.js';
import type { MdstoreServer } from '../lib/mdstore.js';
import { FLAVOURS, type Scenario } from './types.js';

const THROUGHPUT = 'throughput req/s (higher is better)';
const ONE_WORKER = 'MDSTORE_WORKERS=1';
/** Fresh connections in a row that must all be answered (not 503 "starting") before measuring. */
const READY_STREAK = 10;

/** One request on a connection of its own: the cluster primary hands each new connection to the next worker. */
function statusOnNewConnection(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      })
      .on('error', reject);
  });
}

/** `startMdstore` returns when one worker answers; this waits until every worker does (bounded). */
async function everyWorkerServes(server: MdstoreServer): Promise<void> {
  let streak = 0;
  for (let attempt = 0; attempt < 600 && streak < READY_STREAK; attempt++) {
    streak = (await statusOnNewConnection(`${server.url}/api/projects`)) === 401 ? streak + 1 : 0;
    if (streak === 0) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (streak < READY_STREAK) throw new Error(`the workers of ${server.url} did not all start`);
}

async function serverWith(bench: Bench, flavourName: (typeof FLAVOURS)[number], workers: number) {
  // Each server its own store (a fresh database for postgres+s3, a fresh folder for sqlite+fs).
  const flavour = await bench.flavour(flavourName);
  if (!flavour) return null;
  const { server, accounts } = await bench.startServer(flavour, ['bench-workers'], {
    label: `workers-${workers}`,
    env: { MDSTORE_WORKERS: String(workers) },
  });
  await everyWorkerServes(server);
  const account = accounts[0]!;
  const session = new Session(flavour, server, account, account, [], bench.settings);
  const projectId = account.default_project_id;
  await session.upload(projectId, 'four-kib.md', markdownBytes(4096));
  return { session, projectId };
}

/**
 * The same server with 2 serving processes and with 1, side by side (alternating rounds), on GET project
 * and the download of 4 KiB. Report only: on the 2-core bench machine the load generator takes a core too.
 */
const workersScenario: Scenario = {
  name: 'workers',
  needs: [],
  description:
    'MDSTORE_WORKERS=2 vs 1 on GET project and download 4 KiB (report; autocannon shares the cores)',
  async run(bench) {
    for (const flavour of FLAVOURS) {
      const one = await serverWith(bench, flavour, 1);
      const two = one && (await serverWith(bench, flavour, 2));
      if (!one || !two) continue;
      const paths = {
        'GET project': (projectId: string) => `/api/projects/${projectId}`,
        'download 4 KiB': (projectId: string) => `/api/projects/${projectId}/files/four-kib.md`,
      };
      for (const [operation, pathOf] of Object.entries(paths)) {
        const scenario = `${operation}, MDSTORE_WORKERS=2 vs 1 [${flavour}]`;
        const targets = [two, one].map(({ session, projectId }, index) =>
          autocannonTarget(`mdstore ${flavour} workers ${2 - index}`, {
            title: `${scenario} (${2 - index})`,
            url: `${session.url}${pathOf(projectId)}`,
            headers: session.auth(),
            connections: 10,
          }),
        );
        const [withTwo, withOne] = await compare(bench, targets);
        bench.results.higher(
          scenario,
          THROUGHPUT,
          withTwo!.requestsPerSecond,
          withOne!.requestsPerSecond,
          ONE_WORKER,
        );
      }
    }
  },
};

export const workersScenarios: readonly Scenario[] = [workersScenario];
