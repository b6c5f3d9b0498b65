// Issue 37 (extensions §12): attachments at the speed of storage.
// - `attachment-transfer`: PUT of a 5 MiB image against the minimal durable upload server taking the
//   same raw body (fsync, rename, fsync of the folder; target ≥ 0.8×), and GET of it against bare
//   Express sending the same answer from memory (target ≥ 0.5×), on both pairs;
// - `memory-attachments`: 20 concurrent 100 MiB attachment uploads into a fresh server process: peak
//   RSS (target 200 MB: the bytes stream to the blob store, never held);
// - `import-vault`: import of a vault of 1 000 notes and 300 images (one zip, one changeset) into an empty
//   project on a fresh server process: time and peak RSS.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { ZipFile } from 'yazl';
import { autocannonTarget, compare } from '../lib/compare.js';
import { KiB, MiB, markdownBytes } from '../lib/content.js';
import type { Bench, Session } from '../lib/context.js';
import { httpRequest, postZip } from '../lib/load.js';
import type { BenchAccount, MdstoreServer } from '../lib/mdstore.js';
import { readMemory, sampleMemory } from '../lib/processes.js';
import { FLAVOURS, type Scenario } from './types.js';

const THROUGHPUT = 'throughput req/s (higher is better)';
const TARGET_MB = 200;
const mb = (bytes: number) => bytes / MiB;
const built = (bench: Bench) => (bench.settings.compiled ? '' : ', source');

/** A PNG of `size` bytes: the signature and an IHDR chunk (what the type check reads), then noise. */
export function pngBytes(size: number): Buffer {
  const header = Buffer.from('89504e470d0a1a0a0000000d49484452000001000000010008060000005c72a866', 'hex');
  return Buffer.concat([header, randomBytes(size - header.length)]);
}

/** One raw PUT on its own connection; resolves on `expect`. */
function put(url: string, apiKey: string | null, body: Buffer, expect: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'PUT',
        agent: false,
        headers: {
          ...(apiKey && { authorization: `Bearer ${apiKey}` }),
          'content-type': 'image/png',
          'content-length': String(body.length),
        },
      },
      (response) => {
        response.resume();
        response.on('end', () =>
          response.statusCode === expect
            ? resolve()
            : reject(new Error(`PUT ${url}: ${response.statusCode}`)),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

const IMAGE = 5 * MiB;
const CONNECTIONS = 4;
/** Seconds per measurement: a 5 MiB request takes tens of milliseconds, `--quick`'s 0.3 s is too few. */
const secondsOf = (bench: Bench) => Math.max(bench.settings.durationSec, 2);

/** mdstore's PUT of a new attachment per request, and the minimal durable server's raw PUT. */
async function uploadTargets(bench: Bench, session: Session, image: Buffer) {
  const projectId = await session.createProject(`attach-up-${Date.now()}`);
  let counter = 0;
  const path = () => `/api/projects/${projectId}/attachments/img%2F${counter++}.png`;
  const mdstore = autocannonTarget(`mdstore ${session.flavour.name}`, {
    title: `attachment PUT 5 MiB [${session.flavour.name}]`,
    url: session.url,
    connections: CONNECTIONS,
    requests: [
      {
        method: 'PUT',
        path: path(),
        headers: { ...session.auth(), 'content-type': 'image/png' },
        body: image,
        setupRequest: (request) => ({ ...request, path: path() }),
      },
    ],
  });
  const base = await bench.transferServerUrl();
  let raw = 0;
  const minimal = autocannonTarget('minimal raw upload server', {
    title: 'raw PUT 5 MiB (Express + fsync)',
    url: base,
    connections: CONNECTIONS,
    requests: [
      {
        method: 'PUT',
        path: '/upload-raw/0.png',
        headers: { 'content-type': 'image/png' },
        body: image,
        setupRequest: (request) => ({ ...request, path: `/upload-raw/${raw++}.png` }),
      },
    ],
  });
  return [mdstore, minimal] as const;
}

/** mdstore's GET of one attachment, and bare Express sending the same answer (its headers) from memory. */
async function downloadTargets(bench: Bench, session: Session, image: Buffer) {
  const projectId = await session.createProject(`attach-down-${Date.now()}`);
  const url = `${session.url}/api/projects/${projectId}/attachments/diagram.png`;
  await put(url, session.main.api_key, image, 201);
  const sent = await httpRequest({ url, headers: session.auth() });
  if (sent.status !== 200 || sent.body.length !== image.length)
    throw new Error(`attachment download fixture: ${sent.status}, ${sent.body.length} bytes`);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(sent.headers)) {
    if (
      typeof value === 'string' &&
      !['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(name)
    )
      headers[name] = value;
  }
  const base = await bench.transferServerUrl();
  const name = `attachment-${session.flavour.name.replace('+', '-')}`;
  await httpRequest({
    url: `${base}/__downloads/${name}`,
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream', 'x-fixture-headers': JSON.stringify(headers) },
    body: sent.body,
  });
  const mdstore = autocannonTarget(`mdstore ${session.flavour.name}`, {
    title: `attachment GET 5 MiB [${session.flavour.name}]`,
    url,
    headers: session.auth(),
    connections: CONNECTIONS,
  });
  const ceiling = autocannonTarget('download ceiling', {
    title: 'GET 5 MiB (bare Express, bytes in memory)',
    url: `${base}/download/${name}`,
    connections: CONNECTIONS,
  });
  return [mdstore, ceiling] as const;
}

const attachmentTransfer: Scenario = {
  name: 'attachment-transfer',
  needs: ['sqlite+fs', 'postgres+s3', 'transfer-server'],
  description: 'PUT and GET of a 5 MiB image against the minimal durable raw upload server and bare Express',
  async run(bench) {
    const image = pngBytes(IMAGE);
    for (const flavour of FLAVOURS) {
      const session = await bench.session(flavour);
      if (!session) continue;
      const [up, minimal] = await uploadTargets(bench, session, image);
      const [upload, baseline] = await compare(bench, [up, minimal], secondsOf(bench));
      bench.results.higher(
        `attachment PUT 5 MiB [${flavour}]`,
        THROUGHPUT,
        upload!.requestsPerSecond,
        baseline!.requestsPerSecond,
        'Express + fsync (raw body); target 0.8×',
      );
      const [down, ceiling] = await downloadTargets(bench, session, image);
      const [download, bare] = await compare(bench, [down, ceiling], secondsOf(bench));
      bench.results.higher(
        `attachment GET 5 MiB [${flavour}]`,
        THROUGHPUT,
        download!.requestsPerSecond,
        bare!.requestsPerSecond,
        'bare Express (bytes in memory); target 0.5×',
      );
    }
  },
};

/** Samples the server's memory while `load` runs; the peak in MB and the load's seconds. */
async function peakOf(server: MdstoreServer, load: () => Promise<void>) {
  const idle = readMemory(server.pid);
  const sampler = sampleMemory(server.pid, 100);
  const started = performance.now();
  let sampled: { maxRss: number; peak: number } | undefined;
  try {
    await load();
  } finally {
    sampled = sampler.stop();
  }
  return {
    idleMb: mb(idle?.rss ?? 0),
    peakMb: mb(Math.max(sampled.maxRss, sampled.peak)),
    seconds: (performance.now() - started) / 1000,
  };
}

const memoryAttachments: Scenario = {
  name: 'memory-attachments',
  needs: [],
  description: '20 clients upload a 100 MiB attachment each at once; peak RSS of a fresh server process',
  async run(bench) {
    const clients = bench.settings.quick ? 4 : 20;
    const size = bench.settings.quick ? 10 * MiB : 100 * MiB;
    const flavour = (await bench.flavour('sqlite+fs'))!;
    const { server, accounts } = await bench.startServer(flavour, ['bench-attachments'], {
      label: 'memory-attachments',
    });
    const [account] = accounts as [BenchAccount];
    // One buffer sent by every client (the load generator's memory, not the server's).
    const body = pngBytes(size);
    const base = `${server.url}/api/projects/${account.default_project_id}/attachments`;
    const measured = await peakOf(server, async () => {
      await Promise.all(
        Array.from({ length: clients }, (_, i) => put(`${base}/big-${i}.png`, account.api_key, body, 201)),
      );
    });
    bench.log(
      `    ${clients} × ${mb(size)} MiB: idle RSS ${measured.idleMb.toFixed(0)} MB, peak ` +
        `${measured.peakMb.toFixed(0)} MB (${measured.seconds.toFixed(1)} s)`,
    );
    await server.stop();
    bench.results.lower(
      `memory: ${clients} concurrent ${mb(size)} MiB attachment uploads [sqlite+fs${built(bench)}]`,
      'peak RSS MB',
      measured.peakMb,
      TARGET_MB,
      `target ${TARGET_MB} MB`,
    );
  },
};

/** A vault zip: `notes` notes in 10 folders, each embedding one of `images` images of about 100 KiB. */
async function vaultZip(notes: number, images: number): Promise<Buffer> {
  const zip = new ZipFile();
  const chunks: Buffer[] = [];
  zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((resolve) => zip.outputStream.on('end', () => resolve()));
  const text = markdownBytes(2 * KiB).toString('utf8');
  for (let i = 0; i < notes; i++) {
    const body = `# Note ${i}\n\n![[image-${i % images}.png]] [[Note ${(i + 1) % notes}]]\n\n${text}`;
    zip.addBuffer(Buffer.from(body), `folder-${i % 10}/Note ${i}.md`, {
      mtime: new Date(Date.UTC(2025, 0, 1)),
    });
  }
  for (let i = 0; i < images; i++)
    zip.addBuffer(pngBytes(100 * KiB), `assets/image-${i}.png`, { compress: false });
  zip.end();
  await ended;
  return Buffer.concat(chunks);
}

const importVault: Scenario = {
  name: 'import-vault',
  needs: [],
  description:
    'import (importer=obsidian) of a vault of 1 000 notes and 300 images of 100 KiB: time, peak RSS',
  async run(bench) {
    const [notes, images] = bench.settings.quick ? [100, 30] : [1_000, 300];
    const flavour = (await bench.flavour('sqlite+fs'))!;
    const { server, accounts } = await bench.startServer(flavour, ['bench-vault'], { label: 'import-vault' });
    const [account] = accounts as [BenchAccount];
    const archive = await vaultZip(notes, images);
    let answer: { status: number; text: string } = { status: 0, text: '' };
    const measured = await peakOf(server, async () => {
      answer = await postZip(
        `${server.url}/api/projects/${account.default_project_id}/import?importer=obsidian`,
        account.api_key,
        archive,
      );
    });
    if (answer.status !== 200) throw new Error(`import: ${answer.status} ${answer.text.slice(0, 300)}`);
    const created = (JSON.parse(answer.text) as { created: string[] }).created.length;
    if (created !== notes + images) throw new Error(`import created ${created}, not ${notes + images}`);
    bench.log(
      `    vault: ${notes} notes + ${images} images (${mb(archive.length).toFixed(1)} MB zip) in ` +
        `${measured.seconds.toFixed(2)} s; idle RSS ${measured.idleMb.toFixed(0)} MB, peak ${measured.peakMb.toFixed(0)} MB`,
    );
    await server.stop();
    const label = `import-vault: ${notes} notes + ${images} images, zip [sqlite+fs${built(bench)}]`;
    bench.results.higher(
      label,
      'entries per second',
      (notes + images) / measured.seconds,
      100,
      'floor: 100 per second',
    );
    bench.results.lower(label, 'peak RSS MB', measured.peakMb, TARGET_MB, `target ${TARGET_MB} MB`);
  },
};

export const attachmentScenarios: readonly Scenario[] = [attachmentTransfer, memoryAttachments, importVault];
