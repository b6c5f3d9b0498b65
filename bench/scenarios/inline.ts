import { autocannonTarget, compare, type Target } from '../lib/compare.js';
import { KiB, markdownBytes } from '../lib/content.js';
import { type Bench, Session } from '../lib/context.js';
import type { Flavour } from '../lib/mdstore.js';
import { type Size, uploadTarget } from './transfer.js';
import type { Scenario } from './types.js';

/**
 * How `MDSTORE_INLINE_MAX_BYTES` was chosen: the same upload and download, at sizes across the issue's
 * range (16–256 KiB), against two servers of one flavour that differ only in that setting, 256 KiB
 * (every size here inline) and 0 (every size in the blob store). The ratio is inline / blob store: above 1,
 * keeping that size in the database row is the faster form.
 */
const SIZES: readonly Size[] = [16, 64, 128, 256].map((k) => ({
  label: `${k} KiB`,
  bytes: k * KiB,
  connections: 10,
  bothFlavours: true,
}));
const INLINE_ALL = String(256 * KiB);
const THROUGHPUT = 'throughput req/s (higher is better)';

async function sessionWith(bench: Bench, name: Flavour['name'], inlineMaxBytes: string) {
  const flavour = await bench.flavour(name);
  if (!flavour) return null;
  const configured: Flavour = {
    ...flavour,
    env: { ...flavour.env, MDSTORE_INLINE_MAX_BYTES: inlineMaxBytes },
  };
  const label = `inline-${inlineMaxBytes}-${name.replace('+', '-')}`;
  const { server, accounts } = await bench.startServer(configured, [label], { label });
  const account = accounts[0]!;
  return new Session(configured, server, account, account, [], bench.settings);
}

async function downloadTarget(session: Session, size: Size): Promise<Target> {
  const projectId = await session.createProject(`inline-download-${size.bytes}-${Date.now()}`);
  const filename = session.uniqueName(`i${size.bytes}`);
  await session.upload(projectId, filename, markdownBytes(size.bytes));
  return autocannonTarget(`mdstore ${session.flavour.name} ${session.url}`, {
    title: `download ${size.label} [${session.flavour.name}]`,
    url: `${session.url}/api/projects/${projectId}/files/${encodeURIComponent(filename)}`,
    headers: session.auth(),
    connections: size.connections,
  });
}

export const inlineScenario: Scenario = {
  name: 'inline-threshold',
  needs: [],
  description: 'upload and download at 16–256 KiB, content inline in the database vs in the blob store',
  async run(bench) {
    for (const flavour of ['sqlite+fs', 'postgres+s3'] as const) {
      const inline = await sessionWith(bench, flavour, INLINE_ALL);
      const blobs = await sessionWith(bench, flavour, '0');
      if (!inline || !blobs) continue;
      for (const size of SIZES) {
        for (const operation of ['upload', 'download'] as const) {
          // Each server gets its own warm-up (the key names the server).
          const make = async (session: Session): Promise<Target> => {
            const target = await (operation === 'upload' ? uploadTarget : downloadTarget)(session, size);
            return { ...target, warmUpKey: `${target.warmUpKey} ${session.url}` };
          };
          const [inlined, stored] = await compare(bench, [await make(inline), await make(blobs)]);
          bench.results.higher(
            `inline ${operation} ${size.label} [${flavour}]`,
            THROUGHPUT,
            inlined!.requestsPerSecond,
            stored!.requestsPerSecond,
            'same, content in the blob store',
          );
        }
      }
    }
  },
};
