import { randomBytes } from 'node:crypto';
import type { ObjectStoreBaseline } from '../baselines/object-stores.js';
import { autocannonTarget, compare, loopTarget, type Target } from '../lib/compare.js';
import { KiB, MiB, markdownBytes, multipartTemplate } from '../lib/content.js';
import type { Bench, Session } from '../lib/context.js';
import { FLAVOURS, type Scenario } from './types.js';

interface Size {
  readonly label: string;
  readonly bytes: number;
  readonly connections: number;
  /** Also measured on postgres+s3. */
  readonly bothFlavours: boolean;
}

const SIZES: readonly Size[] = [
  { label: '4 KiB', bytes: 4 * KiB, connections: 10, bothFlavours: true },
  { label: '1 MiB', bytes: MiB, connections: 10, bothFlavours: true },
  { label: '10 MiB', bytes: 10 * MiB, connections: 4, bothFlavours: false },
];

const THROUGHPUT = 'throughput req/s (higher is better)';
const runId = randomBytes(4).toString('hex');
let putTargets = 0;

/** Writes of `size` new objects (or overwrites of ten, with `overwrite`) into a baseline store. */
function putTarget(store: ObjectStoreBaseline, size: Size, overwrite = false): Target {
  const bytes = markdownBytes(size.bytes);
  const prefix = `up-${runId}-${putTargets++}-${size.bytes}`;
  const key = (i: number) => `${prefix}-${overwrite ? i % 10 : i}.md`;
  return loopTarget(`${store.name} put ${size.bytes}`, size.connections, (i) => store.put(key(i), bytes));
}

/** Reads of one object of `size` from a baseline store (written first). */
async function getTarget(store: ObjectStoreBaseline, size: Size): Promise<Target> {
  const key = `down-${runId}-${size.bytes}.md`;
  await store.put(key, markdownBytes(size.bytes));
  return loopTarget(`${store.name} get ${size.bytes}`, size.connections, () => store.get(key, size.bytes));
}

function record(
  bench: Bench,
  scenario: string,
  stores: readonly ObjectStoreBaseline[],
  measured: { requestsPerSecond: number }[],
) {
  const [mdstore, ...baselines] = measured;
  stores.forEach((store, index) => {
    bench.results.higher(
      scenario,
      THROUGHPUT,
      mdstore!.requestsPerSecond,
      baselines[index]!.requestsPerSecond,
      store.name,
    );
  });
}

async function uploadTarget(session: Session, size: Size): Promise<Target> {
  const projectId = await session.createProject(`upload-${size.bytes}-${Date.now()}`);
  const template = multipartTemplate(markdownBytes(size.bytes), `u${size.bytes}`);
  let counter = 0;
  return autocannonTarget(`mdstore ${session.flavour.name}`, {
    title: `upload ${size.label} [${session.flavour.name}]`,
    url: session.url,
    connections: size.connections,
    requests: [
      {
        method: 'POST',
        path: `/api/projects/${projectId}/files`,
        headers: { ...session.auth(), 'content-type': template.contentType },
        body: template.body,
        // A unique filename per request: the template is re-stamped, autocannon copies it into the request.
        setupRequest: (request) => {
          template.stamp(counter++);
          return request;
        },
      },
    ],
  });
}

async function downloadTarget(session: Session, size: Size): Promise<Target> {
  const projectId = await session.createProject(`download-${size.bytes}-${Date.now()}`);
  const filename = session.uniqueName(`d${size.bytes}`);
  await session.upload(projectId, filename, markdownBytes(size.bytes));
  return autocannonTarget(`mdstore ${session.flavour.name}`, {
    title: `download ${size.label} [${session.flavour.name}]`,
    url: `${session.url}/api/projects/${projectId}/files/${encodeURIComponent(filename)}`,
    headers: session.auth(),
    connections: size.connections,
  });
}

function transferScenario(operation: 'upload' | 'download'): Scenario {
  return {
    name: operation,
    needs: ['sqlite+fs', 'postgres+s3', 'object-stores'],
    description:
      operation === 'upload'
        ? 'multipart upload of 4 KiB, 1 MiB and 10 MiB files, a new filename per request'
        : 'download of a 4 KiB, 1 MiB and 10 MiB file',
    async run(bench) {
      const stores = await bench.objectStoreBaselines();
      for (const size of SIZES) {
        for (const flavour of size.bothFlavours ? FLAVOURS : FLAVOURS.slice(0, 1)) {
          const session = await bench.session(flavour);
          if (!session) continue;
          const targets =
            operation === 'upload'
              ? [await uploadTarget(session, size), ...stores.map((store) => putTarget(store, size))]
              : [
                  await downloadTarget(session, size),
                  ...(await Promise.all(stores.map((store) => getTarget(store, size)))),
                ];
          record(bench, `${operation} ${size.label} [${flavour}]`, stores, await compare(bench, targets));
        }
      }
    },
  };
}

const CONTENT_FILES = 10;

const contentPut: Scenario = {
  name: 'content-put',
  needs: ['sqlite+fs', 'object-stores'],
  description:
    'PUT /api/projects/{id}/files/{name}/content with 1 MiB of text/markdown (replaces the content)',
  async run(bench) {
    const session = (await bench.session('sqlite+fs'))!;
    const stores = await bench.objectStoreBaselines();
    const size = SIZES[1]!;
    const projectId = await session.createProject(`content-${Date.now()}`);
    for (let i = 0; i < CONTENT_FILES; i++) {
      await session.upload(projectId, `c-${i}.md`, Buffer.from(`# File ${i}\n`));
    }
    const pathOf = (i: number) => `/api/projects/${projectId}/files/c-${i % CONTENT_FILES}.md/content`;
    let counter = 0;
    const mdstore = autocannonTarget('mdstore sqlite+fs', {
      title: 'content PUT 1 MiB',
      url: session.url,
      connections: size.connections,
      requests: [
        {
          method: 'PUT',
          path: pathOf(0),
          headers: { ...session.auth(), 'content-type': 'text/markdown; charset=utf-8' },
          body: markdownBytes(size.bytes),
          // Spread over ten files so that concurrent replacements do not all queue on one file.
          setupRequest: (request) => ({ ...request, path: pathOf(counter++) }),
        },
      ],
    });
    // The baselines overwrite ten objects too.
    const measured = await compare(bench, [mdstore, ...stores.map((store) => putTarget(store, size, true))]);
    record(bench, 'content PUT 1 MiB [sqlite+fs]', stores, measured);
  },
};

export const transferScenarios: readonly Scenario[] = [
  transferScenario('upload'),
  transferScenario('download'),
  contentPut,
];
