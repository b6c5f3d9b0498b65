import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createClient } from '@mdstore/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RealServer, startRealServer } from '../../client/test/support/server.js';
import { BIN, removeFolder, runCli, spawnCli, tempFolder, writeFiles } from './support/cli.js';
import { slowProxy } from './support/proxy.js';

/** Whether a process runs (a zombie left unreaped does not count). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
}

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const run = promisify(execFile);

let server: RealServer;
const folders: string[] = [];
beforeAll(async () => {
  server = await startRealServer();
});
afterAll(async () => {
  await server?.stop();
});
afterEach(async () => {
  await Promise.all(folders.splice(0).map(removeFolder));
});
async function folder(files: Record<string, string> = {}) {
  const dir = await tempFolder(files);
  folders.push(dir);
  return dir;
}

describe('the mdstore command as a process', () => {
  it('npx mdstore runs from a clone without a build, from any folder, with the exit codes documented', async () => {
    const account = await server.account();
    const cwd = await folder();
    const env = {
      PATH: process.env.PATH,
      HOME: cwd,
      MDSTORE_URL: server.url,
      MDSTORE_API_KEY: account.apiKey,
    };
    const npx = await run('npx', ['--no-install', 'mdstore', '--version'], { cwd: REPO, env });
    expect(npx.stdout.trim()).toBe('0.1.0');
    await writeFiles(cwd, { 'note.md': '# note\n' });
    const put = await spawnCli(['put', 'note.md'], { cwd, env });
    expect(put).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^uploaded note\.md \(7 B, revision 1\)\n$/),
    });
    expect((await spawnCli(['cat', 'note.md'], { cwd, env })).stdout).toBe('# note\n');
    expect((await spawnCli(['cat', 'missing.md'], { cwd, env })).code).toBe(1);
    expect((await spawnCli(['frobnicate'], { cwd, env })).code).toBe(2);
  });

  it('shows a progress bar on a terminal, and none when the output is not one', async () => {
    const account = await server.account();
    const dir = await folder(
      Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`f${i}.md`, `# ${i}\n`])),
    );
    const env = { ...process.env, MDSTORE_URL: server.url, MDSTORE_API_KEY: account.apiKey, HOME: dir };
    // script(1) gives the command a pseudo-terminal.
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} push ${JSON.stringify(dir)}`;
    const tty = await run('script', ['-qec', command, '/dev/null'], { env });
    expect(tty.stdout).toMatch(/push \[[\u2588\u2591]+\] \d+\/8/);
    expect(tty.stdout).toContain('push: 8 uploaded');
    const piped = await spawnCli(['push', dir], {
      env: { MDSTORE_URL: server.url, MDSTORE_API_KEY: account.apiKey },
    });
    expect(piped.code).toBe(0);
    expect(piped.stderr).toBe('');
    expect(piped.stdout).not.toMatch(/\u2588|\u2591/);
  });

  it('the launcher killed outright takes the command it runs from the sources with it', async () => {
    const account = await server.account();
    const dir = await folder(
      Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`n${i}.md`, `# ${i}\n`])),
    );
    const proxy = await slowProxy(server.url, 200);
    try {
      // Two files per changeset: the state is saved after each changeset the server acknowledged.
      const child = spawn(process.execPath, [BIN, 'sync', dir, '--jobs', '1', '--batch', '2'], {
        env: { PATH: process.env.PATH, HOME: dir, MDSTORE_URL: proxy.url, MDSTORE_API_KEY: account.apiKey },
        stdio: 'ignore',
      });
      const lock = path.join(dir, '.mdstore-sync.lock');
      let worker = 0;
      for (let i = 0; i < 500 && !worker; i++) {
        await delay(20);
        worker = Number((await readFile(lock, 'utf8').catch(() => '')).trim());
      }
      expect(worker).toBeGreaterThan(0);
      expect(worker).not.toBe(child.pid);
      child.kill('SIGKILL');
      let stopped = false;
      for (let i = 0; i < 250 && !stopped; i++) {
        await delay(20);
        stopped = !running(worker);
      }
      expect(stopped).toBe(true);
    } finally {
      await proxy.close();
    }
  });

  it('a sync killed in the middle resumes: what landed is not sent again, nothing is lost', async () => {
    const account = await server.account();
    const client = createClient({ baseUrl: server.url, apiKey: account.apiKey });
    const files = Object.fromEntries(
      Array.from({ length: 24 }, (_, i) => [`note ${String(i).padStart(2, '0')}.md`, `# ${i}\n`]),
    );
    const dir = await folder(files);
    const proxy = await slowProxy(server.url, 60);
    try {
      // Two files per changeset: the state is saved after each changeset the server acknowledged.
      const child = spawn(process.execPath, [BIN, 'sync', dir, '--jobs', '1', '--batch', '2'], {
        env: { PATH: process.env.PATH, HOME: dir, MDSTORE_URL: proxy.url, MDSTORE_API_KEY: account.apiKey },
        stdio: 'ignore',
        detached: true,
      });
      const stateFile = path.join(dir, '.mdstore-sync.json');
      let recorded = 0;
      for (let i = 0; i < 600 && recorded < 5; i++) {
        await delay(20);
        const text = await readFile(stateFile, 'utf8').catch(() => undefined);
        // Every read parses: the state is replaced whole, never written in place.
        if (text !== undefined) recorded = Object.keys(JSON.parse(text).files).length;
      }
      // The whole process group: the launcher and the process it runs.
      const exited = new Promise((resolve) => child.once('exit', resolve));
      const worker = Number((await readFile(path.join(dir, '.mdstore-sync.lock'), 'utf8')).trim());
      process.kill(-child.pid!, 'SIGKILL');
      await exited;
      for (let i = 0; i < 250 && running(worker); i++) await delay(20);
      const state = JSON.parse(await readFile(stateFile, 'utf8'));
      const done = Object.keys(state.files).length;
      expect(done).toBeGreaterThanOrEqual(5);
      expect(done).toBeLessThan(24);
      expect(existsSync(path.join(dir, '.mdstore-sync.lock'))).toBe(true);

      const resumed = await runCli(['sync', dir, '--json'], {
        env: { MDSTORE_URL: server.url, MDSTORE_API_KEY: account.apiKey },
      });
      expect(resumed.stderr).toBe('');
      expect(resumed.code).toBe(0);
      const report = JSON.parse(resumed.stdout) as { items: Array<{ name: string; action: string }> };
      // Only files the state did not know are looked at; at most the changeset in flight (two files) had
      // landed unrecorded: those are recorded, not sent again.
      expect(report.items.every((item) => !(item.name in state.files))).toBe(true);
      expect(report.items.filter((item) => item.action === 'record').length).toBeLessThanOrEqual(2);
      expect(report.items.length).toBe(24 - done);
      const listed = (await client.files.list(account.defaultProjectId)).files;
      expect(listed.map((f) => f.filename)).toEqual(Object.keys(files).sort());
      expect(listed.every((f) => f.revision === 1)).toBe(true);
    } finally {
      await proxy.close();
    }
  });
});
