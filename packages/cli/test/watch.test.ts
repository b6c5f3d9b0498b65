import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient, type MdStoreClient } from '@mdstore/client';
import { createLogger, loadConfig, type ServerProcess, startServer } from '@mdstore/server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useRealServer } from '../../client/test/support/server.js';
import { type SyncReport, watchFolder } from '../src/index.js';
import { BIN, removeFolder, runCli, tempFolder } from './support/cli.js';

const scene = useRealServer();
let remote: MdStoreClient;
let projectId: string;
const folders: string[] = [];
const stops: Array<() => Promise<unknown>> = [];

beforeEach(() => {
  remote = createClient({ baseUrl: scene.server.url, apiKey: scene.account.apiKey });
  projectId = scene.account.defaultProjectId;
});
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
  await Promise.all(folders.splice(0).map(removeFolder));
});

async function folder(files: Record<string, string> = {}) {
  const dir = await tempFolder(files);
  folders.push(dir);
  return dir;
}

async function until<T>(probe: () => Promise<T | undefined | false>, what: string, ms = 8_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const read = (dir: string, name: string) => readFile(path.join(dir, name), 'utf8');
const remoteText = (name: string) => remote.files.readText(projectId, name);

/** Runs `watchFolder` in this process; `stop()` aborts it and gives its result. */
function watching(
  dir: string,
  options: { client?: MdStoreClient; debounceMs?: number; localWatch?: 'auto' | 'scan' } = {},
) {
  const controller = new AbortController();
  const rounds: SyncReport[] = [];
  const errors: unknown[] = [];
  const done = watchFolder({
    client: options.client ?? remote,
    server: scene.server.url,
    root: dir,
    projectId,
    signal: controller.signal,
    onSync: (report) => rounds.push(report),
    onError: (error) => errors.push(error),
    debounceMs: options.debounceMs ?? 100,
    scanIntervalMs: 200,
    waitSeconds: 5,
    backoffMs: 50,
    ...(options.localWatch && { localWatch: options.localWatch }),
  });
  const stop = async () => {
    controller.abort();
    return done;
  };
  stops.push(stop);
  return { rounds, errors, done, stop };
}

describe('sync --watch (watchFolder)', () => {
  it('pulls a remote change, pushes a local one, and its own writes start no further round', async () => {
    const dir = await folder({ 'here.md': '# here\n' });
    const watch = watching(dir);
    await until(async () => watch.rounds.length >= 1, 'the first round');
    expect(await remoteText('here.md')).toBe('# here\n');

    await remote.files.upload(projectId, 'there.md', '# from the server\n');
    await until(async () => (await read(dir, 'there.md')) === '# from the server\n', 'the remote change');

    await writeFile(path.join(dir, 'here.md'), '# edited here\n');
    await until(async () => (await remoteText('here.md')) === '# edited here\n', 'the local change');

    // Settled: the download's file events and the upload's feed event are the watch's own, so exactly one
    // round per change ran (without the own-write filter, each write starts one more round).
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(watch.rounds.map((report) => report.items)).toEqual([
      [{ name: 'here.md', action: 'upload' }],
      [{ name: 'there.md', action: 'download' }],
      [{ name: 'here.md', action: 'upload' }],
    ]);
    const revisions = (await remote.files.list(projectId)).files.map((f) => [f.filename, f.revision]);
    expect(revisions).toEqual([
      ['here.md', 2],
      ['there.md', 1],
    ]);
    await watch.stop();
    expect(watch.errors).toEqual([]);
  });

  it('notices local changes by a periodic scan when told not to watch', async () => {
    const dir = await folder({ 'a.md': '# a\n' });
    const watch = watching(dir, { localWatch: 'scan' });
    await until(async () => watch.rounds.length >= 1, 'the first round');
    await writeFile(path.join(dir, 'b.md'), '# b\n');
    await until(async () => (await remoteText('b.md')) === '# b\n', 'the scanned change');
  });

  it('a change on both sides is a conflict: both versions kept, nothing overwritten', async () => {
    const dir = await folder({ 'plan.md': '# plan\n' });
    const watch = watching(dir, { debounceMs: 1_500 });
    await until(async () => watch.rounds.length >= 1, 'the first round');
    const before = watch.rounds.length;
    await remote.files.updateContent(projectId, 'plan.md', '# plan, theirs\n');
    await writeFile(path.join(dir, 'plan.md'), '# plan, mine\n');
    const round = await until(
      async () => watch.rounds.slice(before).find((report) => report.conflicts.length > 0),
      'the conflict',
    );
    const copy = round.conflicts[0]!.copy;
    expect(round.conflicts).toEqual([{ name: 'plan.md', copy }]);
    expect(await read(dir, 'plan.md')).toBe('# plan, mine\n');
    expect(await read(dir, copy)).toBe('# plan, theirs\n');
    expect(await remoteText('plan.md')).toBe('# plan, theirs\n');
    const last = await watch.stop();
    expect(last?.conflicts).toEqual([{ name: 'plan.md', copy }]);
  });

  it('rides out failed feed reads, and after a 410 syncs in full and follows from the new end', async () => {
    const dir = await folder({ 'a.md': '# a\n' });
    let held = 0;
    const flaky: typeof fetch = async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (url.pathname === '/api/changes' && url.searchParams.has('wait')) {
        held += 1;
        if (held <= 2) throw new TypeError('fetch failed'); // a dropped connection, a restarting server
        if (held === 3) {
          return new Response(JSON.stringify({ detail: 'Changes expired: list the project again' }), {
            status: 410,
            headers: { 'content-type': 'application/json' },
          });
        }
      }
      return fetch(input, init);
    };
    const client = createClient({ baseUrl: scene.server.url, apiKey: scene.account.apiKey, fetch: flaky });
    const watch = watching(dir, { client });
    // The first round, then after the 410 a second, full one (nothing changed on either side).
    await until(async () => watch.rounds.length >= 2, 'the round after the 410');
    expect(held).toBeGreaterThanOrEqual(3);
    expect(watch.errors.map((error) => (error as { status?: number }).status)).toContain(410);
    await remote.files.upload(projectId, 'later.md', '# later\n');
    await until(async () => (await read(dir, 'later.md')) === '# later\n', 'a change after the 410');
  });
});

describe('sync --watch across a server restart', () => {
  /** A server on `dataDir` (and on `port`, when given: the restarted one listens where the first did). */
  const serve = (dataDir: string, port = 0): Promise<ServerProcess> =>
    startServer({
      config: loadConfig({
        MDSTORE_DATA_DIR: dataDir,
        PORT: String(port),
        MDSTORE_RATE_LIMIT_STANDARD: '1000000',
        MDSTORE_LOG_LEVEL: 'silent',
      }),
      logger: createLogger({ level: 'silent' }),
      shutdownGraceMs: 500,
    });

  it('pushes what changed while the server was down, then follows the feed again', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'mdstore-watch-restart-'));
    folders.push(dataDir);
    let server = await serve(dataDir);
    stops.push(() => server.stop());
    const created = await server.runtime.store.accounts.create({ name: 'restart' });
    const apiKey = created.apiKey.apiKey;
    const project = created.defaultProject.id;
    const client = createClient({ baseUrl: server.url, apiKey });
    const dir = await folder({ 'a.md': '# a\n' });
    const controller = new AbortController();
    const rounds: SyncReport[] = [];
    const errors: unknown[] = [];
    const done = watchFolder({
      client,
      server: server.url,
      root: dir,
      projectId: project,
      signal: controller.signal,
      onSync: (report) => rounds.push(report),
      onError: (error) => errors.push(error),
      debounceMs: 100,
      waitSeconds: 5,
      backoffMs: 100,
    });
    stops.push(async () => {
      controller.abort();
      await done;
    });
    await until(async () => rounds.length >= 1, 'the first round');

    const port = Number(new URL(server.url).port);
    await server.stop();
    await writeFile(path.join(dir, 'offline.md'), '# written while the server was down\n');
    await until(async () => errors.length > 0, 'a failed attempt while down');
    server = await serve(dataDir, port);

    await until(
      async () =>
        (await client.files.readText(project, 'offline.md')) === '# written while the server was down\n',
      'the local change after the restart',
    );
    await client.files.upload(project, 'after.md', '# after the restart\n');
    await until(async () => (await read(dir, 'after.md')) === '# after the restart\n', 'a remote change');
  });
});

describe('mdstore sync DIR --watch', () => {
  it('refuses --dry-run with --watch (exit 2), and ends with exit 1 when the key is refused', async () => {
    const dir = await folder({ 'one.md': '# one\n' });
    const env = { MDSTORE_URL: scene.server.url, MDSTORE_API_KEY: scene.account.apiKey };
    const both = await runCli(['sync', dir, '--watch', '--dry-run'], { env });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--watch and --dry-run do not go together');
    const signal = AbortSignal.timeout(10_000);
    const refused = await runCli(['sync', dir, '--watch', '--project', projectId], {
      env: { ...env, MDSTORE_API_KEY: 'mds_not_a_key' },
      signal,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('401');
    expect(signal.aborted).toBe(false);
  });

  it('keeps syncing until SIGTERM, then exits 0', async () => {
    const dir = await folder({ 'one.md': '# one\n' });
    const child = spawn(process.execPath, [BIN, 'sync', dir, '--watch', '--json'], {
      env: {
        PATH: process.env.PATH,
        HOME: '/nonexistent',
        MDSTORE_URL: scene.server.url,
        MDSTORE_API_KEY: scene.account.apiKey,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    stops.push(async () => {
      child.kill('SIGKILL');
      await exited;
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    await until(async () => stdout.includes('\n'), 'the first round', 15_000);
    const first = JSON.parse(stdout.split('\n')[0]!) as SyncReport;
    expect(first.items).toEqual([{ name: 'one.md', action: 'upload' }]);
    await remote.files.upload(projectId, 'two.md', '# two\n');
    await until(async () => (await readdir(dir)).includes('two.md'), 'the remote change');
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(await read(dir, 'two.md')).toBe('# two\n');
  });
});
