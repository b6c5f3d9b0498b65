import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { RecordsRepository } from '@mdstore/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRuntime, TOKENS } from '../../src/composition/index.js';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/logger.js';
import { type ChildServer, REPO_ROOT, spawnServer } from './support.js';

const run = promisify(execFile);
const SCRIPT = path.join(REPO_ROOT, 'examples/walkthrough.sh');

let dir: string;
let server: ChildServer | undefined;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'mdstore-walkthrough-'));
});
afterEach(async () => {
  if (server?.child.exitCode === null) server.child.kill('SIGKILL');
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** The text between two marker lines, markers excluded. */
function between(text: string, start: string, end: string): string {
  const from = text.indexOf(start);
  const to = text.indexOf(end, from);
  expect(from, `marker ${start}`).toBeGreaterThanOrEqual(0);
  expect(to, `marker ${end}`).toBeGreaterThan(from);
  return text.slice(from + start.length, to);
}

describe('the first ten minutes', () => {
  it('the README shows exactly the commands the walkthrough script runs', async () => {
    const readme = await readFile(path.join(REPO_ROOT, 'README.md'), 'utf8');
    const script = await readFile(SCRIPT, 'utf8');
    const shown = between(readme, '<!-- walkthrough:start -->\n```sh\n', '```\n<!-- walkthrough:end -->');
    const runs = between(script, '# --- walkthrough: start ---\n', '# --- walkthrough: end ---');
    expect(shown).toBe(runs);
    expect(runs).toContain('curl');
    // Nothing a shell would take for a redirection, and no placeholder to fill in by hand.
    expect(runs).not.toMatch(/<[a-z_]+>/);
  });

  it('examples/walkthrough.sh runs top to bottom against a real server, and again', async () => {
    const dataDir = path.join(dir, 'data');
    const scratch = path.join(dir, 'tmp');
    const fresh = path.join(dir, 'fresh');
    await Promise.all([mkdir(scratch), mkdir(fresh)]);
    server = spawnServer({ MDSTORE_DATA_DIR: dataDir, PORT: '0' });
    const ready = await server.logLine(/^mdstore listening on /);
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      MDSTORE_DATA_DIR: dataDir,
      MDSTORE_URL: String(ready.url),
      TMPDIR: scratch,
    };
    for (let round = 1; round <= 2; round++) {
      // From an empty folder that is not the repository: the script finds the CLI by its own path.
      const { stdout } = await run('bash', [SCRIPT], { cwd: fresh, env, timeout: 120_000 });
      expect(stdout).toContain('"name":"Team notes"');
      expect(stdout).toContain('"description":"Notes of the whole team"');
      expect(stdout).toContain('"metadata":{"tags":["intro","reviewed"]}');
      expect(stdout).toContain('# Meeting notes');
      expect(stdout).toContain('"message":"Project deleted successfully"');
      const work = /^done: the files are in (.+)$/m.exec(stdout)?.[1];
      expect(work?.startsWith(scratch)).toBe(true);
      expect(await readFile(path.join(work!, 'downloads', 'hello.md'), 'utf8')).toBe(
        '# Hello\n\nThe first version.\n',
      );
    }
    expect(await readdir(fresh)).toEqual([]);

    // Two accounts, each left with its default project and the walkthrough's project deleted.
    const runtime = await createRuntime(loadConfig({ MDSTORE_DATA_DIR: dataDir }), { logger: silentLogger });
    try {
      const accounts = await runtime.store.accounts.list();
      expect(accounts.map((a) => a.name)).toEqual([
        expect.stringMatching(/^walkthrough-/),
        expect.stringMatching(/^walkthrough-/),
      ]);
      const records = runtime.container.resolve<RecordsRepository>(TOKENS.records);
      for (const account of accounts) {
        const projects = await records.listProjects({ accountId: account.id });
        expect(projects.map((p) => [p.name, p.status, p.fileCount])).toEqual([
          ['Default', 'active', 0],
          ['Team notes', 'deleted', 0],
        ]);
      }
    } finally {
      await runtime.close();
    }
  }, 300_000);
});
