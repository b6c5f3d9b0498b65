import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { ZipFile } from 'yazl';
import { run as runCli } from '../../packages/cli/src/run.js';
import { KiB, MiB, markdownBytes } from '../lib/content.js';
import { postZip } from '../lib/load.js';
import type { BenchAccount } from '../lib/mdstore.js';
import { readMemory, sampleMemory } from '../lib/processes.js';
import type { Scenario } from './types.js';

const TARGET_MB = 200;
const FILE_BYTES = 4 * KiB;
/** Files of the CLI's `push` and `pull` measures (issue 27: a folder of 1 000 files). */
const FOLDER_FILES = 1_000;

const mb = (bytes: number) => bytes / MiB;
const name = (index: number) => `notes/${String(Math.floor(index / 100)).padStart(3, '0')}/n-${index}.md`;

/** A zip of `count` files of 4 KiB, each a little different (so nothing is `unchanged` by accident). */
async function zipOf(count: number): Promise<Buffer> {
  const zip = new ZipFile();
  const chunks: Buffer[] = [];
  zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((resolve) => zip.outputStream.on('end', () => resolve()));
  const base = markdownBytes(FILE_BYTES);
  for (let i = 0; i < count; i++) {
    const content = Buffer.from(base);
    content.write(`# ${i}`.padEnd(12), 0);
    zip.addBuffer(content, name(i), { mtime: new Date(0) });
  }
  zip.end();
  await ended;
  return Buffer.concat(chunks);
}

/** A new project of the account; its id. */
async function createProject(url: string, account: BenchAccount, projectName: string): Promise<string> {
  const response = await fetch(`${url}/api/projects`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.api_key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: projectName }),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`create project: ${response.status} ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { id: string }).id;
}

/** Runs the CLI in this process against the server: its requests (every `fetch`) and seconds. */
async function cli(
  url: string,
  account: BenchAccount,
  args: string[],
): Promise<{ requests: number; seconds: number }> {
  let requests = 0;
  const realFetch = globalThis.fetch;
  globalThis.fetch = (input, init) => {
    requests++;
    return realFetch(input, init);
  };
  const started = performance.now();
  let code: number;
  try {
    code = await runCli(args, {
      stdout: new PassThrough().resume(),
      stderr: new PassThrough().resume(),
      stdin: new PassThrough(),
      env: { HOME: '/nonexistent', MDSTORE_URL: url, MDSTORE_API_KEY: account.api_key },
    });
  } finally {
    globalThis.fetch = realFetch;
  }
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`mdstore ${args[0]} exited ${code}`);
  return { requests, seconds };
}

/**
 * Import (extensions §10) of a zip of many 4 KiB files into an empty project, as one changeset, on a fresh
 * server process: throughput and the server's peak RSS (target 200 MB). Then, through the CLI, `mdstore
 * push` of a folder of 1 000 files into a new project and `mdstore pull` of it into an empty folder: the
 * requests each sends (batched: changesets, one export) and its time. The export side is the `export`
 * scenario.
 */
const importScenario: Scenario = {
  name: 'import',
  needs: [],
  description:
    'import of 10 000 files of 4 KiB (one zip, one changeset): throughput, peak RSS; push and pull of 1 000 files',
  async run(bench) {
    const count = bench.settings.quick ? 1_000 : 10_000;
    const flavour = (await bench.flavour('sqlite+fs'))!;
    const { server, accounts } = await bench.startServer(flavour, ['bench-import'], { label: 'import' });
    const [account] = accounts as [BenchAccount];
    const archive = await zipOf(count);
    const idle = readMemory(server.pid);
    const sampler = sampleMemory(server.pid, 50);
    const started = performance.now();
    const answer = await postZip(
      `${server.url}/api/projects/${account.default_project_id}/import`,
      account.api_key,
      archive,
    );
    const seconds = (performance.now() - started) / 1000;
    const { maxRss, peak } = sampler.stop();
    if (answer.status !== 200) throw new Error(`import: ${answer.status} ${answer.text.slice(0, 300)}`);
    const created = (JSON.parse(answer.text) as { created: string[] }).created.length;
    if (created !== count) throw new Error(`import created ${created} files, not ${count}`);
    const peakMb = mb(Math.max(maxRss, peak));
    bench.log(
      `    import: ${count} files (${mb(archive.length).toFixed(1)} MB zip) in ${seconds.toFixed(2)} s; ` +
        `idle RSS ${mb(idle?.rss ?? 0).toFixed(0)} MB, peak ${peakMb.toFixed(0)} MB`,
    );

    // `mdstore push` of a folder of 1 000 files into a new project, then `mdstore pull` of that project
    // into an empty folder, through the CLI: the requests each sends (batched: changesets, one export)
    // and its time.
    const folder = await bench.tempDir('push');
    const base = markdownBytes(FILE_BYTES);
    for (let i = 0; i < FOLDER_FILES; i++) {
      const file = path.join(folder, name(i));
      await mkdir(path.dirname(file), { recursive: true });
      const content = Buffer.from(base);
      content.write(`# ${i}`.padEnd(12), 0);
      await writeFile(file, content);
    }
    const project = await createProject(server.url, account, 'bench-folder');
    const push = await cli(server.url, account, ['push', folder, '--json', '--project', project]);
    bench.log(`    push of ${FOLDER_FILES} files: ${push.requests} requests, ${push.seconds.toFixed(2)} s`);
    const into = await bench.tempDir('pull');
    const pull = await cli(server.url, account, ['pull', into, '--json', '--project', project]);
    bench.log(`    pull of ${FOLDER_FILES} files: ${pull.requests} requests, ${pull.seconds.toFixed(2)} s`);
    // A first `mdstore sync` of the same folder with another new project: its uploads as changesets too.
    const other = await createProject(server.url, account, 'bench-sync');
    const sync = await cli(server.url, account, ['sync', folder, '--json', '--project', other]);
    bench.log(`    sync of ${FOLDER_FILES} files: ${sync.requests} requests, ${sync.seconds.toFixed(2)} s`);
    await server.stop();

    const label = `import: ${count} files of 4 KiB, zip [sqlite+fs${bench.settings.compiled ? ', compiled' : ''}]`;
    bench.results.higher(label, 'files per second', count / seconds, 100, 'floor: 100 files per second');
    bench.results.lower(label, 'peak RSS MB', peakMb, TARGET_MB, `target ${TARGET_MB} MB`);
    bench.results.lower(
      label,
      'peak RSS growth MB',
      peakMb - mb(idle?.rss ?? 0),
      TARGET_MB,
      `target ${TARGET_MB} MB`,
    );
    for (const [verb, measured, one] of [
      ['push', push, 'upload'],
      ['pull', pull, 'download'],
      ['sync', sync, 'upload'],
    ] as const) {
      const measure = `${verb}: ${FOLDER_FILES} files of 4 KiB (CLI, batched) [sqlite+fs]`;
      bench.results.higher(
        measure,
        'files per second',
        FOLDER_FILES / measured.seconds,
        100,
        'floor: 100 files per second',
      );
      bench.results.lower(
        measure,
        'requests',
        measured.requests,
        10,
        `10 (one ${one} per file: ${FOLDER_FILES})`,
      );
    }
  },
};

export const importScenarios: readonly Scenario[] = [importScenario];
