import http from 'node:http';
import { MiB, markdownBytes, multipartBody } from '../lib/content.js';
import type { Bench } from '../lib/context.js';
import type { BenchAccount, MdstoreServer } from '../lib/mdstore.js';
import { readMemory, sampleMemory } from '../lib/processes.js';
import type { Scenario } from './types.js';

const TARGET_MB = 200;
const FILE_BYTES = 10 * MiB;
const mb = (bytes: number) => bytes / MiB;

/** Runs `load` while sampling the server's memory; records the peak against the 200 MB target. */
async function recordPeak(bench: Bench, scenario: string, server: MdstoreServer, load: () => Promise<void>) {
  const idle = readMemory(server.pid);
  const sampler = sampleMemory(server.pid, 100);
  const started = Date.now();
  try {
    await load();
  } finally {
    const { maxRss, peak } = sampler.stop();
    const highest = Math.max(maxRss, peak);
    bench.log(
      `    idle RSS ${mb(idle?.rss ?? 0).toFixed(0)} MB, peak ${mb(highest).toFixed(0)} MB ` +
        `(load took ${((Date.now() - started) / 1000).toFixed(1)} s)`,
    );
    bench.results.lower(scenario, 'peak RSS MB', mb(highest), TARGET_MB, `target ${TARGET_MB} MB`);
  }
}

/** One upload on its own connection; resolves on 201. */
function upload(url: string, account: BenchAccount, filename: string, content: Buffer): Promise<void> {
  const { body, contentType } = multipartBody(filename, content);
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${url}/api/projects/${account.default_project_id}/files`,
      {
        method: 'POST',
        agent: false,
        headers: {
          authorization: `Bearer ${account.api_key}`,
          'content-type': contentType,
          'content-length': String(body.length),
        },
      },
      (response) => {
        response.resume();
        response.on('end', () =>
          response.statusCode === 201
            ? resolve()
            : reject(new Error(`upload ${filename}: ${response.statusCode}`)),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/**
 * A slow reader: reads the download at `bytes / seconds` by pausing the response whenever it is ahead
 * of schedule, so the server has to hold back (backpressure) instead of pushing everything at once.
 */
function slowDownload(url: string, account: BenchAccount, expected: number, seconds: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      url,
      { agent: false, headers: { authorization: `Bearer ${account.api_key}` } },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          reject(new Error(`download: ${response.statusCode}`));
          return;
        }
        const started = Date.now();
        let received = 0;
        response.on('data', (chunk: Buffer) => {
          received += chunk.length;
          const ahead = started + (received / expected) * seconds * 1000 - Date.now();
          if (ahead > 5) {
            response.pause();
            setTimeout(() => response.resume(), ahead);
          }
        });
        response.on('end', () =>
          received === expected ? resolve() : reject(new Error(`download: ${received} of ${expected} bytes`)),
        );
        response.on('error', reject);
      },
    );
    request.setTimeout((seconds + 60) * 1000, () => request.destroy(new Error('slow download timed out')));
    request.on('error', reject);
  });
}

/** The label's mark for a server run from its sources (`--source`) rather than from its build. */
const built = (bench: Bench) => (bench.settings.compiled ? '' : ', source');

const memoryUpload: Scenario = {
  name: 'memory-upload',
  needs: [],
  description: '50 clients upload 10 MiB each at once; peak RSS of a fresh server process',
  async run(bench) {
    const flavour = (await bench.flavour('sqlite+fs'))!;
    const { server, accounts } = await bench.startServer(flavour, ['bench-memory'], {
      label: 'memory-upload',
    });
    const [account] = accounts as [BenchAccount];
    const content = markdownBytes(FILE_BYTES);
    const clients = bench.settings.memoryClients;
    await recordPeak(
      bench,
      `memory: ${clients} concurrent 10 MiB uploads [sqlite+fs${built(bench)}]`,
      server,
      async () => {
        await Promise.all(
          Array.from({ length: clients }, (_, i) => upload(server.url, account, `big-${i}.md`, content)),
        );
      },
    );
    await server.stop();
  },
};

const memoryDownload: Scenario = {
  name: 'memory-download',
  needs: [],
  description: '50 slow readers download 10 MiB each; peak RSS of a fresh server process',
  async run(bench) {
    const flavour = (await bench.flavour('sqlite+fs'))!;
    // The file is uploaded by a first server; a second one, fresh, serves the downloads.
    const seeded = await bench.startServer(flavour, ['bench-memory'], { label: 'memory-download' });
    const [account] = seeded.accounts as [BenchAccount];
    await upload(seeded.server.url, account, 'big.md', markdownBytes(FILE_BYTES));
    await seeded.server.stop();
    const { server } = await bench.startServer(flavour, [], {
      label: 'memory-download',
      dataDir: seeded.dataDir,
    });
    const url = `${server.url}/api/projects/${account.default_project_id}/files/big.md`;
    const { memoryClients: clients, slowReadSec: seconds } = bench.settings;
    await recordPeak(
      bench,
      `memory: ${clients} slow 10 MiB downloads (${seconds} s each) [sqlite+fs${built(bench)}]`,
      server,
      () =>
        Promise.all(
          Array.from({ length: clients }, () => slowDownload(url, account, FILE_BYTES, seconds)),
        ).then(() => undefined),
    );
    await server.stop();
  },
};

export const memoryScenarios: readonly Scenario[] = [memoryUpload, memoryDownload];
