import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openSqliteStore } from '@mdstore/sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackup } from '../../src/backup/create.js';
import { verifyBackup } from '../../src/backup/verify.js';
import { createRuntime } from '../../src/composition/index.js';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/logger.js';
import { programArgs, REPO_ROOT } from '../support/programs.js';
import { bytesOf, openPair, text } from './pairs.js';

/**
 * The backup commands of the admin CLI (extensions §16), run as processes on SQLite + fs stores, each in
 * its own data folder: create, verify, restore into an empty store, the refusals, the redo of a restore
 * cut short, and a backup killed mid-way that leaves nothing that verifies.
 */

const NODE_ARGS = ['--conditions=mdstore-source', '--import', 'tsx'];

interface Outcome {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

function cli(args: string[], dataDir: string): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...programArgs('cli'), ...args],
      { cwd: REPO_ROOT, env: { PATH: process.env.PATH, MDSTORE_DATA_DIR: dataDir } },
      (error, stdout, stderr) => {
        const status = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ status, stdout, stderr });
      },
    );
  });
}

let root: string;
const data = (name: string) => path.join(root, name);
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'mdstore-backup-cli-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('mdstore backup and restore', () => {
  it('backs up, verifies, restores into an empty store only, and names what is damaged', async () => {
    const created = await cli(['accounts', 'create', '--name', 'acme'], data('one'));
    expect(created.status, created.stderr).toBe(0);
    const account = JSON.parse(created.stdout) as { api_key: string; account_id: string };

    const backup = await cli(['backup', 'create', '--to', data('backup')], data('one'));
    expect(backup.status, backup.stderr).toBe(0);
    expect(JSON.parse(backup.stdout)).toMatchObject({
      path: data('backup'),
      rows: { accounts: 1, api_keys: 1, projects: 1 },
      checksum: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const [verified, restored] = await Promise.all([
      cli(['backup', 'verify', data('backup')], data('unused')),
      cli(['restore', data('backup')], data('two')),
    ]);
    expect(verified).toMatchObject({ status: 0, stderr: '' });
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true, problems: [] });
    expect(restored.status, restored.stderr).toBe(0);
    expect(JSON.parse(restored.stdout)).toMatchObject({ redone: false, rows: { accounts: 1 } });

    // The restored store, as the server opens it: the old key authenticates.
    const runtime = await createRuntime(loadConfig({ MDSTORE_DATA_DIR: data('two') }), {
      logger: silentLogger,
    });
    try {
      const principal = await runtime.store.authenticate({ apiKey: account.api_key });
      expect(principal.accountId).toBe(account.account_id);
    } finally {
      await runtime.close();
    }

    const accounts = path.join(data('backup'), 'records', 'accounts.jsonl');
    await writeFile(accounts, (await readFile(accounts, 'utf8')).replace('acme', 'acmf'));
    const [again, damaged] = await Promise.all([
      cli(['restore', data('backup-again')], data('two')),
      cli(['backup', 'verify', data('backup')], data('unused')),
    ]);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/^mdstore: .*manifest\.json: cannot be read/);
    // A damaged backup: exit 1, the file named.
    expect(damaged.status).toBe(1);
    expect(damaged.stderr).toBe(
      "mdstore: records/accounts.jsonl: SHA-256 or size differs from the manifest's\n",
    );
  }, 120_000);

  it('refuses a store left by an unfinished restore until the restore is run again, which redoes it', async () => {
    const source = await openPair('sqlite-fs');
    try {
      await source.store.accounts.create({ name: 'beta' });
      await createBackup(source, { to: data('backup-three') });
    } finally {
      await source.close();
    }
    // A restore that died after loading some rows.
    await mkdir(data('four'), { recursive: true });
    const dbPath = path.join(data('four'), 'mdstore.db');
    const store = await openSqliteStore({ path: dbPath });
    try {
      await store.archive.beginRestore();
      await store.archive.load({ table: 'accounts', rows: [['half', 'half', 'standard', 1]] });
    } finally {
      await store.close();
    }
    const refused = await cli(['accounts', 'list'], data('four'));
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/unfinished restore/);
    const redo = await cli(['restore', data('backup-three')], data('four'));
    expect(redo.status, redo.stderr).toBe(0);
    expect(JSON.parse(redo.stdout)).toMatchObject({ redone: true });
    const reopened = await openSqliteStore({ path: dbPath });
    try {
      expect(await reopened.archive.unfinishedRestore()).toBe(false);
      expect((await reopened.records.listAccounts()).map((a) => a.name)).toEqual(['beta']);
    } finally {
      await reopened.close();
    }
  }, 120_000);

  it('leaves nothing that verifies when a backup is killed mid-way', async () => {
    const script = path.join(root, 'slow-backup.mts');
    const source = (pkg: string) => JSON.stringify(path.join(REPO_ROOT, 'packages', pkg, 'src/index.ts'));
    // The backup of a store with a blob, whose blob store never answers the copy: the process is killed there.
    await writeFile(
      script,
      `
import { createFsBlobStore } from ${source('fs')};
import { openSqliteStore } from ${source('sqlite')};
import { createMdStore } from ${source('core')};
import { createBackup } from ${JSON.stringify(path.join(REPO_ROOT, 'apps/server/src/backup/create.ts'))};
const [dir, to] = process.argv.slice(2);
const sqlite = await openSqliteStore({ path: dir + '/mdstore.db' });
const blobs = createFsBlobStore({ root: dir + '/blobs' });
const store = createMdStore({ records: sqlite.records, blobs, rateLimiter: sqlite.rateLimiter, settings: { inlineMaxBytes: 0 } });
const created = await store.accounts.create({ name: 'killed' });
const principal = await store.authenticate({ apiKey: created.apiKey.apiKey });
await store.files.upload({ principal, projectId: created.defaultProject.id, filename: 'a.md',
  content: (async function* () { yield new TextEncoder().encode('# a blob\\n'); })() });
const hanging = { ...blobs, get: () => { process.stdout.write('copying\\n'); return new Promise(() => {}); } };
await createBackup({ archive: sqlite.archive, blobs: hanging, pair: { database: 'sqlite', blob_store: 'fs' } }, { to });
`,
    );
    const target = data('killed-backup');
    await mkdir(path.join(data('five'), 'blobs'), { recursive: true });
    const child = spawn(process.execPath, [...NODE_ARGS, script, data('five'), target], {
      cwd: path.join(REPO_ROOT, 'apps/server'),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('copying')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`the backup ended (${code}) before it was killed`)));
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGKILL');
    await exited;

    const left = (await readdir(root)).filter((name) => name.startsWith('killed-backup'));
    expect(left).toEqual([expect.stringMatching(/^killed-backup\.partial-[0-9a-f]{12}$/)]);
    expect((await verifyBackup(target)).ok).toBe(false);
    const partial = await verifyBackup(path.join(root, left[0]!));
    expect(partial.ok).toBe(false);
    expect(partial.problems).toEqual([expect.stringMatching(/^manifest\.json: cannot be read/)]);
  }, 120_000);

  it('a restore killed mid-way leaves a store that is refused, and running it again finishes it', async () => {
    const source = await openPair('sqlite-fs');
    let apiKey: string;
    try {
      const created = await source.store.accounts.create({ name: 'gamma' });
      apiKey = created.apiKey.apiKey;
      const principal = await source.store.authenticate({ apiKey });
      const at = { principal, projectId: created.defaultProject.id };
      await source.store.files.upload({
        ...at,
        filename: 'big.md',
        content: text(`# big\n${'y'.repeat(300)}\n`),
      });
      await source.store.files.upload({ ...at, filename: 'small.md', content: text('# small\n') });
      await createBackup(source, { to: data('backup-six') });
    } finally {
      await source.close();
    }
    const script = path.join(root, 'slow-restore.mts');
    const packageSource = (pkg: string) =>
      JSON.stringify(path.join(REPO_ROOT, 'packages', pkg, 'src/index.ts'));
    // A restore whose blob store never answers the first write: the process is killed there.
    await writeFile(
      script,
      `
import { createFsBlobStore } from ${packageSource('fs')};
import { openSqliteStore } from ${packageSource('sqlite')};
import { restoreBackup } from ${JSON.stringify(path.join(REPO_ROOT, 'apps/server/src/backup/restore.ts'))};
const [dir, from] = process.argv.slice(2);
const sqlite = await openSqliteStore({ path: dir + '/mdstore.db' });
const blobs = createFsBlobStore({ root: dir + '/blobs' });
const hanging = { ...blobs, put: () => { process.stdout.write('writing\\n'); return new Promise(() => {}); } };
await restoreBackup({ archive: sqlite.archive, blobs: hanging }, { from });
`,
    );
    await mkdir(path.join(data('six'), 'blobs'), { recursive: true });
    const child = spawn(process.execPath, [...NODE_ARGS, script, data('six'), data('backup-six')], {
      cwd: path.join(REPO_ROOT, 'apps/server'),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('writing')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`the restore ended (${code}) before it was killed`)));
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGKILL');
    await exited;

    const refused = await cli(['accounts', 'list'], data('six'));
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/unfinished restore/);
    const redo = await cli(['restore', data('backup-six')], data('six'));
    expect(redo.status, redo.stderr).toBe(0);
    expect(JSON.parse(redo.stdout)).toMatchObject({ redone: true, blobs: 1 });
    const runtime = await createRuntime(loadConfig({ MDSTORE_DATA_DIR: data('six') }), {
      logger: silentLogger,
    });
    try {
      const principal = await runtime.store.authenticate({ apiKey });
      const projectId = (await runtime.store.projects.list({ principal }))[0]!.id;
      const big = await runtime.store.files.download({ principal, projectId, filename: 'big.md' });
      expect((await bytesOf(big.content)).toString()).toBe(`# big\n${'y'.repeat(300)}\n`);
    } finally {
      await runtime.close();
    }
  }, 120_000);
});
