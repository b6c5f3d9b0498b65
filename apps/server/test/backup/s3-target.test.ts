import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { BlobStore } from '@mdstore/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackup } from '../../src/backup/create.js';
import { openBackupLocation } from '../../src/backup/location.js';
import { restoreBackup } from '../../src/backup/restore.js';
import { verifyBackup } from '../../src/backup/verify.js';
import { createRuntime } from '../../src/composition/index.js';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/logger.js';
import { fileS3rver } from '../support/adapters.js';
import { programArgs } from '../support/programs.js';
import { bytesOf, openPair, text } from './pairs.js';

/**
 * Extensions §16, backups at `s3://bucket/prefix` (against s3rver): the same backup as in a folder
 * (same manifest checksum), written streaming in parts, verified and restored from there, by the CLI
 * with the server's S3 settings; a non-empty prefix refused; a backup that fails removes what it wrote,
 * and one killed on the way leaves objects without a manifest, which neither verify nor restore.
 */

const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const NODE_ARGS = ['--conditions=mdstore-source', '--import', 'tsx'];
const BUCKET = 'mdstore-backups';

let root: string;
let s3: Awaited<ReturnType<typeof fileS3rver>>;
let client: S3Client;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'mdstore-backup-s3-'));
  s3 = await fileS3rver();
  const { createS3BlobStore } = await import('@mdstore/s3');
  const store = createS3BlobStore(s3.s3ClientOptions);
  await store.createBucket({ bucket: BUCKET });
  await store.close();
  client = new S3Client(s3.s3ClientOptions);
});
afterAll(async () => {
  client?.destroy();
  await rm(root, { recursive: true, force: true });
});

const keysUnder = async (prefix: string): Promise<string[]> => {
  const listed = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
  return (listed.Contents ?? []).map((entry) => entry.Key!).sort();
};

const BIG = `# big\n${'b'.repeat(3000)}\n`;

async function filledPair() {
  const pair = await openPair('sqlite-fs');
  const created = await pair.store.accounts.create({ name: 'to-s3' });
  const principal = await pair.store.authenticate({ apiKey: created.apiKey.apiKey });
  const at = { principal, projectId: created.defaultProject.id };
  await pair.store.files.upload({ ...at, filename: 'big.md', content: text(BIG) });
  await pair.store.files.upload({ ...at, filename: 'copy.md', content: text(BIG) });
  for (let n = 0; n < 30; n += 1)
    await pair.store.files.upload({ ...at, filename: `small/${n}.md`, content: text(`# ${n}\n`) });
  return { pair, apiKey: created.apiKey.apiKey };
}

describe('backups at an S3 prefix', () => {
  it('are the same backup as in a folder, streamed in parts, verified and restored from S3', async () => {
    const { pair, apiKey } = await filledPair();
    // Parts of 1 KiB: the records and the blob go up as multipart uploads, a part at a time.
    const target = await openBackupLocation(`s3://${BUCKET}/same/backup/`, {
      ...s3.s3ClientOptions,
      partSizeBytes: 1024,
    });
    try {
      const inS3 = await createBackup(pair, { to: target });
      const inFolder = await createBackup(pair, { to: path.join(root, 'same-folder') });
      expect(inS3.path).toBe(`s3://${BUCKET}/same/backup`);
      expect(inS3.manifest.checksum).toBe(inFolder.manifest.checksum);
      // The blob referenced twice is there once.
      expect(inS3.manifest.blobs.count).toBe(1);
      expect((await keysUnder('same/backup/')).filter((k) => k.includes('/blobs/'))).toHaveLength(1);
      const verified = await verifyBackup(target);
      expect(verified.ok, verified.problems.join('\n')).toBe(true);

      const into = await openPair('sqlite-fs');
      try {
        const report = await restoreBackup(into, { from: target });
        expect(report.path).toBe(`s3://${BUCKET}/same/backup`);
        const principal = await into.store.authenticate({ apiKey });
        const projectId = (await into.store.projects.list({ principal }))[0]!.id;
        const big = await into.store.files.download({ principal, projectId, filename: 'big.md' });
        expect((await bytesOf(big.content)).toString()).toBe(BIG);
        const again = await createBackup(into, { to: path.join(root, 'same-again') });
        expect(again.manifest.checksum).toBe(inS3.manifest.checksum);
      } finally {
        await into.close();
      }

      // A prefix that holds anything is refused, and left as it was.
      const before = await keysUnder('same/backup/');
      await expect(createBackup(pair, { to: target })).rejects.toThrow(/already holds objects/);
      expect(await keysUnder('same/backup/')).toEqual(before);
    } finally {
      await target.close();
      await pair.close();
    }
  }, 120_000);

  it('a backup that fails removes what it wrote: nothing under the prefix verifies', async () => {
    const { pair } = await filledPair();
    const failing: BlobStore = {
      ...pair.blobs,
      get: async () => {
        throw new Error('the blob store broke');
      },
    };
    const target = await openBackupLocation(`s3://${BUCKET}/failed`, s3.s3ClientOptions);
    try {
      await expect(createBackup({ ...pair, blobs: failing }, { to: target })).rejects.toThrow(
        'the blob store broke',
      );
      expect(await keysUnder('failed/')).toEqual([]);
      const verified = await verifyBackup(target);
      expect(verified.problems).toEqual([expect.stringMatching(/^manifest\.json: cannot be read/)]);
      // The prefix is free again: the next backup goes there.
      expect((await createBackup(pair, { to: target })).manifest.blobs.count).toBe(1);
    } finally {
      await target.close();
      await pair.close();
    }
  }, 120_000);

  it('a backup killed on the way leaves objects without a manifest, which neither verify nor restore', async () => {
    const script = path.join(root, 'killed-s3-backup.mts');
    const source = (pkg: string) => JSON.stringify(path.join(REPO_ROOT, 'packages', pkg, 'src/index.ts'));
    const backupModule = (file: string) =>
      JSON.stringify(path.join(REPO_ROOT, 'apps/server/src/backup', file));
    await writeFile(
      script,
      `
import { createFsBlobStore } from ${source('fs')};
import { openSqliteStore } from ${source('sqlite')};
import { createMdStore } from ${source('core')};
import { createBackup } from ${backupModule('create.ts')};
import { openBackupLocation } from ${backupModule('location.ts')};
const [dir, to, options] = process.argv.slice(2);
const sqlite = await openSqliteStore({ path: dir + '/mdstore.db' });
const blobs = createFsBlobStore({ root: dir + '/blobs' });
const store = createMdStore({ records: sqlite.records, blobs, rateLimiter: sqlite.rateLimiter, settings: { inlineMaxBytes: 0 } });
const created = await store.accounts.create({ name: 'killed' });
const principal = await store.authenticate({ apiKey: created.apiKey.apiKey });
await store.files.upload({ principal, projectId: created.defaultProject.id, filename: 'a.md',
  content: (async function* () { yield new TextEncoder().encode('# a blob\\n'); })() });
const hanging = { ...blobs, get: () => { process.stdout.write('copying\\n'); return new Promise(() => {}); } };
const location = await openBackupLocation(to, JSON.parse(options));
await createBackup({ archive: sqlite.archive, blobs: hanging, pair: { database: 'sqlite', blob_store: 'fs' } }, { to: location });
`,
    );
    const data = path.join(root, 'killed-data');
    await mkdir(path.join(data, 'blobs'), { recursive: true });
    const to = `s3://${BUCKET}/killed`;
    const child = spawn(
      process.execPath,
      [...NODE_ARGS, script, data, to, JSON.stringify(s3.s3ClientOptions)],
      { cwd: path.join(REPO_ROOT, 'apps/server'), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('copying')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`the backup ended (${code}) before it was killed`)));
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGKILL');
    await exited;

    // The records went up; the manifest, written last, did not.
    const left = await keysUnder('killed/');
    expect(left).toContain('killed/records/accounts.jsonl');
    expect(left).not.toContain('killed/manifest.json');
    const location = await openBackupLocation(to, s3.s3ClientOptions);
    const into = await openPair('sqlite-fs');
    try {
      const verified = await verifyBackup(location);
      expect(verified.ok).toBe(false);
      expect(verified.problems).toEqual([expect.stringMatching(/^manifest\.json: cannot be read/)]);
      await expect(restoreBackup(into, { from: location })).rejects.toThrow(/is not a sound backup/);
      expect(await into.archive.state()).toBe('empty');
    } finally {
      await into.close();
      await location.close();
    }
  }, 120_000);
});

interface Outcome {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

describe('mdstore backup … s3:// (the CLI, with the server S3 settings)', () => {
  const cli = (args: string[], dataDir: string): Promise<Outcome> =>
    new Promise((resolve) => {
      execFile(
        process.execPath,
        [...programArgs('cli'), ...args],
        {
          cwd: REPO_ROOT,
          env: {
            PATH: process.env.PATH,
            MDSTORE_DATA_DIR: dataDir,
            MDSTORE_S3_ENDPOINT: s3.endpoint,
            MDSTORE_S3_FORCE_PATH_STYLE: 'true',
            MDSTORE_S3_CHECKSUM: 'WHEN_REQUIRED',
            // The SDK's own credential chain, as for the blob store.
            AWS_ACCESS_KEY_ID: 'S3RVER',
            AWS_SECRET_ACCESS_KEY: 'S3RVER',
            AWS_REGION: 'us-east-1',
          },
        },
        (error, stdout, stderr) => {
          const status = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
          resolve({ status, stdout, stderr });
        },
      );
    });

  it('creates, verifies and restores a backup at s3://bucket/prefix, and refuses a used prefix', async () => {
    const one = path.join(root, 'cli-one');
    const two = path.join(root, 'cli-two');
    const created = await cli(['accounts', 'create', '--name', 'acme'], one);
    expect(created.status, created.stderr).toBe(0);
    const account = JSON.parse(created.stdout) as { api_key: string; account_id: string };
    const to = `s3://${BUCKET}/cli/first`;

    const backup = await cli(['backup', 'create', '--to', to], one);
    expect(backup.status, backup.stderr).toBe(0);
    expect(JSON.parse(backup.stdout)).toMatchObject({ path: to, rows: { accounts: 1, api_keys: 1 } });
    const [verified, restored, again] = await Promise.all([
      cli(['backup', 'verify', to], path.join(root, 'cli-unused')),
      cli(['restore', to], two),
      cli(['backup', 'create', '--to', to], one),
    ]);
    expect(verified.status, verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true, problems: [] });
    expect(restored.status, restored.stderr).toBe(0);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/already holds objects/);
    const bad = await cli(['backup', 'verify', 's3://Not_A_Bucket/x'], path.join(root, 'cli-unused'));
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/valid bucket name/);

    const runtime = await createRuntime(loadConfig({ MDSTORE_DATA_DIR: two }), { logger: silentLogger });
    try {
      const principal = await runtime.store.authenticate({ apiKey: account.api_key });
      expect(principal.accountId).toBe(account.account_id);
    } finally {
      await runtime.close();
    }
  }, 120_000);
});
