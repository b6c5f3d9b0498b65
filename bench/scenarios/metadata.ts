import { autocannonTarget, compare } from '../lib/compare.js';
import type { Bench, Session } from '../lib/context.js';
import { httpJson } from '../lib/load.js';
import { FLAVOURS, type Scenario } from './types.js';

const EXPRESS = 'bare Express 5';
const THROUGHPUT = 'throughput req/s (higher is better)';

/** GET of a JSON resource on mdstore and the same JSON from bare Express, compared by throughput. */
async function compareJsonGet(
  bench: Bench,
  options: {
    scenario: string;
    session: Session;
    path: string;
    fixture: string;
    connections: number;
    auth?: Record<string, string>;
  },
): Promise<void> {
  const { session, path, connections } = options;
  const headers = options.auth ?? session.auth();
  const payload = await httpJson({ url: `${session.url}${path}`, headers, expect: 200 });
  // The baseline serves the very payload mdstore just returned.
  await bench.setExpressFixture(options.fixture, payload);
  const [mdstore, express] = await compare(bench, [
    autocannonTarget(`mdstore ${session.flavour.name}`, {
      title: options.scenario,
      url: `${session.url}${path}`,
      headers,
      connections,
    }),
    autocannonTarget('express', {
      title: `${options.scenario} (express)`,
      url: `${await bench.expressUrl()}${path}`,
      connections,
    }),
  ]);
  bench.results.higher(
    options.scenario,
    THROUGHPUT,
    mdstore!.requestsPerSecond,
    express!.requestsPerSecond,
    EXPRESS,
  );
}

const getProject: Scenario = {
  name: 'get-project',
  needs: ['sqlite+fs', 'postgres+s3', 'express'],
  description: 'GET /api/projects/{id} (authenticated, rate-limited) vs bare Express returning the same JSON',
  async run(bench) {
    for (const flavour of FLAVOURS) {
      const session = await bench.session(flavour);
      if (!session) continue;
      await compareJsonGet(bench, {
        scenario: `GET project [${flavour}]`,
        session,
        path: `/api/projects/${session.main.default_project_id}`,
        fixture: 'project',
        connections: 10,
      });
    }
  },
};

const listProjects: Scenario = {
  name: 'list-projects',
  needs: ['sqlite+fs', 'express'],
  description: 'GET /api/projects for an account with 1 000 projects (quick: 200)',
  async run(bench) {
    const session = (await bench.session('sqlite+fs'))!;
    await session.listerWithProjects();
    await compareJsonGet(bench, {
      scenario: `list projects, ${bench.settings.projectCount} projects [sqlite+fs]`,
      session,
      path: '/api/projects',
      auth: session.auth(session.lister),
      fixture: 'projects',
      connections: 4,
    });
  },
};

const listFiles: Scenario = {
  name: 'list-files',
  needs: ['sqlite+fs', 'express'],
  description: 'GET /api/projects/{id}/files with 10 000 files (quick: 500)',
  async run(bench) {
    const session = (await bench.session('sqlite+fs'))!;
    const count = bench.settings.fileCounts.at(-1)!;
    const projectId = await session.projectWithFiles(count);
    await compareJsonGet(bench, {
      scenario: `list files, ${count} files [sqlite+fs]`,
      session,
      path: `/api/projects/${projectId}/files`,
      fixture: 'files',
      connections: 4,
    });
  },
};

const METADATA_FILES = 10;

const metadataPut: Scenario = {
  name: 'metadata-put',
  needs: ['sqlite+fs', 'express'],
  description:
    'PUT /api/projects/{id}/files/{name} (replace metadata) vs bare Express parsing and answering JSON',
  async run(bench) {
    const session = (await bench.session('sqlite+fs'))!;
    const projectId = await session.createProject(`metadata-${Date.now()}`);
    for (let i = 0; i < METADATA_FILES; i++) {
      await session.upload(projectId, `m-${i}.md`, Buffer.from(`# File ${i}\n`));
    }
    const body = JSON.stringify({
      metadata: {
        title: 'Benchmark',
        tags: ['alpha', 'beta', 'gamma'],
        revision: 42,
        draft: false,
        owner: { id: 7 },
      },
    });
    const headers = { ...session.auth(), 'content-type': 'application/json' };
    const pathOf = (i: number) => `/api/projects/${projectId}/files/m-${i % METADATA_FILES}.md`;
    const answer = await httpJson({
      url: `${session.url}${pathOf(0)}`,
      method: 'PUT',
      headers,
      body,
      expect: 200,
    });
    await bench.setExpressFixture('metadataUpdate', answer);
    let counter = 0;
    // Spread over ten files so that concurrent requests do not all update one row.
    const requests = [
      {
        method: 'PUT',
        path: pathOf(0),
        headers,
        body,
        setupRequest: (request: { path?: string }) => ({ ...request, path: pathOf(counter++) }),
      },
    ];
    const scenario = 'metadata PUT [sqlite+fs]';
    const [mdstore, express] = await compare(bench, [
      autocannonTarget('mdstore sqlite+fs', { title: scenario, url: session.url, requests, connections: 10 }),
      autocannonTarget('express', {
        title: `${scenario} (express)`,
        url: await bench.expressUrl(),
        requests,
        connections: 10,
      }),
    ]);
    bench.results.higher(
      scenario,
      THROUGHPUT,
      mdstore!.requestsPerSecond,
      express!.requestsPerSecond,
      EXPRESS,
    );
  },
};

export const metadataScenarios: readonly Scenario[] = [getProject, listProjects, listFiles, metadataPut];
