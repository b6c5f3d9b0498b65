import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type RunningS3rver, startS3rver } from '@mdstore/s3/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CliAccount,
  cleanUp,
  cli,
  createAccount,
  sharedEnvironment,
  uploadRequest,
  waitFor,
} from '../multi-instance/support.js';
import { dropSchema, freshSchemaName, skipWithoutPostgres } from '../support/adapters.js';
import { alive, type Cluster, exitOf, killAllClusters, startCluster, uploadInFlight } from './support.js';

/**
 * Requests per hour and key: under the 64 of the rate limiter's lease divisor, so that no worker takes
 * units ahead of demand and the shared budget is exact to the unit.
 */
const HOURLY_LIMIT = 60;

/** At most this many requests to see a given worker answer (connections are handed round-robin). */
const MAX_TRIES = 20;

interface Pair {
  readonly name: string;
  readonly skip: boolean;
  /** The environment of one store, and how to remove it. */
  setUp(): Promise<{ env: Record<string, string>; tearDown(): Promise<void> }>;
}

const PAIRS: Pair[] = [
  {
    name: 'sqlite+fs',
    skip: false,
    async setUp() {
      const dataDir = await mkdtemp(path.join(tmpdir(), 'mdstore-workers-'));
      return {
        env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', MDSTORE_DATA_DIR: dataDir },
        tearDown: () => rm(dataDir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 'postgres+s3',
    skip: await skipWithoutPostgres('MDSTORE_WORKERS on postgres+s3'),
    async setUp() {
      const schema = freshSchemaName();
      let s3: RunningS3rver | undefined;
      let cleanup: (() => Promise<void>) | undefined;
      try {
        s3 = await startS3rver();
        const shared = await sharedEnvironment({ schema, s3 });
        cleanup = shared.cleanup;
        return {
          env: shared.env,
          tearDown: () => cleanUp([() => s3?.stop(), () => dropSchema(schema), () => cleanup?.()]),
        };
      } catch (error) {
        await cleanUp([() => s3?.stop(), () => dropSchema(schema)]);
        throw error;
      }
    },
  },
];

/** Requests `pathname` until a worker `accept`s answers; bounded by MAX_TRIES. */
async function answeredBy(
  cluster: Cluster,
  pathname: string,
  key: string,
  accept: (pid: number) => boolean,
): Promise<{ status: number; body: string; pid: number }> {
  for (let i = 0; i < MAX_TRIES; i++) {
    const answer = await cluster.request(pathname, { key });
    if (accept(answer.pid)) return answer;
  }
  throw new Error(`no wanted worker answered ${pathname} in ${MAX_TRIES} requests`);
}

/** `mdstore_http_requests_total` of GET project with 200, summed, from the primary's metrics. */
async function answeredProjectReads(cluster: Cluster): Promise<number> {
  const response = await fetch(cluster.metricsUrl!, { signal: AbortSignal.timeout(10_000) });
  expect(response.status).toBe(200);
  const text = await response.text();
  return text
    .split('\n')
    .filter(
      (line) =>
        line.startsWith('mdstore_http_requests_total{') &&
        line.includes('method="GET"') &&
        line.includes('route="/api/projects/:project_id"') &&
        line.includes('status="200"'),
    )
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

describe.each(PAIRS)('MDSTORE_WORKERS=2 on $name', (pair) => {
  let env: Record<string, string>;
  let tearDown: (() => Promise<void>) | undefined;
  let cluster: Cluster;
  let account: CliAccount;

  beforeAll(async () => {
    if (pair.skip) return;
    ({ env, tearDown } = await pair.setUp());
    env = {
      ...env,
      MDSTORE_WORKERS: '2',
      MDSTORE_METRICS_PORT: '0',
      MDSTORE_RATE_LIMIT_STANDARD: String(HOURLY_LIMIT),
    };
    cluster = await startCluster(env);
    account = await createAccount('workers', env);
  }, 180_000);

  afterAll(() => cleanUp([killAllClusters, () => tearDown?.()]));

  it.skipIf(pair.skip)(
    'two workers answer on one port, and a write on one is read on the other',
    async () => {
      expect(cluster.workerPids).toHaveLength(2);
      expect(new Set(cluster.workerPids).size).toBe(2);
      const projects = `/api/projects/${account.defaultProjectId}`;
      const seen = new Set<number>();
      let sent = 0;
      for (; sent < MAX_TRIES && seen.size < 2; sent++) {
        const answer = await cluster.request(projects, { key: account.apiKey });
        expect(answer.status).toBe(200);
        seen.add(answer.pid);
      }
      expect([...seen].sort()).toEqual([...cluster.workerPids].sort());
      // One scrape of the primary's metrics listener counts the requests of both workers.
      expect(await answeredProjectReads(cluster)).toBe(sent);

      const upload = uploadRequest(account.apiKey, 'shared.md', '# written by one worker');
      const written = await cluster.request(`${projects}/files`, upload);
      expect(written.status).toBe(201);
      const read = await answeredBy(
        cluster,
        `${projects}/files/shared.md`,
        account.apiKey,
        (pid) => pid !== written.pid,
      );
      expect(read.status).toBe(200);
      expect(read.body).toBe('# written by one worker');
    },
  );

  it.skipIf(pair.skip)('exactly one worker holds the maintenance duties', () => {
    const holders = cluster.lines('maintenance duties held');
    expect(holders).toHaveLength(1);
    expect(cluster.workerPids).toContain(Number(holders[0]!.pid));
    // The periodic reconciliation and the webhook deliverer run there only; every worker heartbeats.
    const serving = cluster.lines('worker serving');
    expect(serving.map((line) => line.duties).sort()).toEqual([false, true]);
  });

  it.skipIf(pair.skip)('a revoked key is refused by every worker at once', async () => {
    const created = await cli(['keys', 'create', '--account', account.accountId, '--name', 'doomed'], env);
    const key = String(created.api_key);
    const projects = `/api/projects/${account.defaultProjectId}`;
    expect((await cluster.request(projects, { key })).status).toBe(200);
    await cli(['keys', 'revoke', String(created.key_id)], env);
    const refusedBy = new Set<number>();
    for (let i = 0; i < MAX_TRIES && refusedBy.size < 2; i++) {
      const answer = await cluster.request(projects, { key });
      expect(answer.status).toBe(401);
      refusedBy.add(answer.pid);
    }
    expect(refusedBy.size).toBe(2);
  });

  it.skipIf(pair.skip)('the workers spend one hourly budget per key, counted in the store', async () => {
    const created = await cli(['keys', 'create', '--account', account.accountId, '--name', 'budget'], env);
    const key = String(created.api_key);
    const projects = `/api/projects/${account.defaultProjectId}`;
    const served = new Set<number>();
    const statuses: number[] = [];
    for (let i = 0; i < HOURLY_LIMIT + 10; i++) {
      const answer = await cluster.request(projects, { key });
      statuses.push(answer.status);
      if (answer.status === 200) served.add(answer.pid);
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(HOURLY_LIMIT);
    expect(statuses.slice(HOURLY_LIMIT)).toEqual(Array(10).fill(429));
    expect(served.size).toBe(2);
  });

  it.skipIf(pair.skip)(
    'a worker killed with SIGKILL is replaced, its duties handed over, and the port keeps answering',
    async () => {
      const [holder] = cluster.lines('maintenance duties held');
      const victim = Number(holder!.pid);
      const survivor = cluster.workerPids.find((pid) => pid !== victim)!;
      process.kill(victim, 'SIGKILL');
      await waitFor(() => cluster.lines('worker exited: starting a replacement')[0], {
        timeoutMs: 10_000,
        what: 'the primary seeing the worker die',
      });
      const projects = `/api/projects/${account.defaultProjectId}`;
      // The survivor answers every request meanwhile: none is lost to the dead worker.
      for (let i = 0; i < 4; i++) {
        const answer = await cluster.request(projects, { key: account.apiKey });
        expect(answer.status).toBe(200);
        expect(answer.pid).toBe(survivor);
      }
      const replaced = await waitFor(() => cluster.lines('replacement worker serving')[0], {
        timeoutMs: 90_000,
        what: 'a replacement worker',
        abandon: cluster.exited,
      });
      const replacement = Number(replaced.pid);
      expect([victim, survivor]).not.toContain(replacement);
      expect(cluster.lines('worker exited: starting a replacement')).toMatchObject([
        { pid: victim, signal: 'SIGKILL' },
      ]);
      // The duties went to the survivor; the replacement does not take them too.
      const holders = cluster.lines('maintenance duties held').map((line) => Number(line.pid));
      expect(holders).toEqual([victim, survivor]);
      const answer = await answeredBy(cluster, projects, account.apiKey, (pid) => pid === replacement);
      expect(answer.status).toBe(200);
      cluster.workerPids.splice(0, 2, survivor, replacement);
    },
    120_000,
  );

  it.skipIf(pair.skip)(
    'SIGTERM to the process group stops every worker gracefully: the request in flight completes, exit 0',
    async () => {
      const inFlight = await uploadInFlight(cluster.url, {
        key: account.apiKey,
        projectId: account.defaultProjectId,
        filename: 'in-flight.md',
        content: '# sent after the signal',
      });
      cluster.signalGroup('SIGTERM');
      await waitFor(() => (cluster.lines('stopping').length >= 3 ? true : undefined), {
        timeoutMs: 10_000,
        what: 'every process stopping',
      });
      expect(await inFlight.finish()).toBe(201);
      expect(await exitOf(cluster)).toBe(0);
      expect(
        cluster
          .lines('mdstore stopped')
          .map((line) => Number(line.pid))
          .sort(),
      ).toEqual([cluster.child.pid!, ...cluster.workerPids].sort());
      expect(cluster.lines('mdstore stopped').find((l) => l.pid === cluster.child.pid)).toMatchObject({
        exitCode: 0,
      });
      for (const pid of cluster.workerPids) expect(alive(pid)).toBe(false);
    },
    60_000,
  );
});
