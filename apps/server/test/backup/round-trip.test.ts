import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobNotFoundError, type MdStore, type Principal } from '@mdstore/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackup } from '../../src/backup/create.js';
import type { Manifest } from '../../src/backup/format.js';
import { restoreBackup } from '../../src/backup/restore.js';
import { verifyBackup } from '../../src/backup/verify.js';
import { skipWithoutPostgres } from '../support/adapters.js';
import { bytesOf, openPair, type Pair, type PairName, text } from './pairs.js';

/**
 * Extensions §16: a store filled through the core on one pair, backed up, restored into an empty store of
 * the other pair and backed up again, gives the same backup (but for its date and source); the restored
 * store serves the same files, byte for byte, with the same ETags, history, trash, links, feed, and its
 * old API keys still work.
 */

const skip = await skipWithoutPostgres('backup round trip');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mdstore-backups-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Filled {
  readonly apiKeys: readonly string[];
  readonly projectIds: readonly string[];
}

const BIG = `# Big\n\n${'A paragraph long enough to be stored as a blob, not inline. '.repeat(8)}\n`;

async function fill(store: MdStore): Promise<Filled> {
  const alice = await store.accounts.create({ name: 'alice' });
  const bob = await store.accounts.create({ name: 'bob' });
  const second = await store.apiKeys.create({ account: 'alice', role: 'read', name: 'reader' });
  const principal = await store.authenticate({ apiKey: alice.apiKey.apiKey });
  const project = await store.projects.create({
    principal,
    body: { name: 'docs', settings: { keep_revisions: 2, trash_retention_days: 7 } },
  });
  const at = { principal, projectId: project.id };
  await store.files.upload({ ...at, filename: 'a.md', content: text('# A\n\nSee [b](b.md) and [[c]].\n') });
  await store.files.upload({ ...at, filename: 'b.md', content: text(BIG) });
  await store.files.upload({ ...at, filename: 'notes/c.md', content: text(`${BIG}\nc\n`) });
  await store.files.upload({ ...at, filename: 'gone.md', content: text(`${BIG}\ngone\n`) });
  // History: three versions of a.md kept to two (one blob among them).
  await store.files.updateContent({ ...at, filename: 'a.md', content: text(`${BIG}\n[b](b.md)\n`) });
  await store.files.updateContent({ ...at, filename: 'a.md', content: text('# A again\n[b](b.md)\n') });
  await store.files.delete({ ...at, filename: 'gone.md' });
  // An attachment in the trash (extensions §12): its item's kind and content type are backed up too.
  await store.attachments.write({
    ...at,
    path: 'files/gone.bin',
    contentType: 'application/octet-stream',
    content: text(`${BIG}\nbin\n`),
  });
  await store.attachments.delete({ ...at, path: 'files/gone.bin' });
  // Another account's default project, with one file of each form.
  const bobPrincipal = await store.authenticate({ apiKey: bob.apiKey.apiKey });
  const bobAt = { principal: bobPrincipal, projectId: bob.defaultProject.id };
  await store.files.upload({ ...bobAt, filename: 'x.md', content: text('# x\n') });
  await store.files.upload({ ...bobAt, filename: 'y.md', content: text(BIG) });
  return {
    apiKeys: [alice.apiKey.apiKey, second.apiKey, bob.apiKey.apiKey],
    projectIds: [project.id, alice.defaultProject.id, bob.defaultProject.id],
  };
}

/** Everything a client sees of the store, read through the core. */
async function observe(store: MdStore, filled: Filled) {
  const seen: Record<string, unknown> = {};
  for (const apiKey of filled.apiKeys) {
    const principal: Principal = await store.authenticate({ apiKey });
    seen[`principal ${apiKey.slice(-6)}`] = { accountId: principal.accountId, role: principal.role };
    seen[`changes ${apiKey.slice(-6)}`] = await store.changes.list({ principal });
    for (const projectId of filled.projectIds) {
      const project = await store.projects.get({ principal, projectId }).catch(() => null);
      if (project === null) continue;
      seen[`project ${projectId}`] = project;
      const list = await store.files.list({ principal, projectId });
      seen[`files ${projectId}`] = list;
      for (const file of list.files) {
        const at = { principal, projectId, filename: file.filename };
        const download = await store.files.download(at);
        seen[`file ${projectId} ${file.filename}`] = {
          view: download.file,
          bytes: (await bytesOf(download.content)).toString('base64'),
          revisions: await store.files.listRevisions(at),
          links: await store.files.links(at),
        };
      }
      seen[`trash ${projectId}`] = await store.trash.list({ principal, projectId });
    }
  }
  // `storagePath` names the blob store's scheme (`file://`, `s3://`): the one thing a pair shows of itself.
  return JSON.parse(JSON.stringify(seen).replace(/"(?:s3|file):\/\//g, '"blob://')) as unknown;
}

const content = (manifest: Manifest) => {
  const { created_at: _, source: __, ...rest } = manifest;
  return rest;
};

async function roundTrip(from: PairName, to: PairName) {
  const source = await openPair(from);
  const target = await openPair(to);
  const again = await openPair(from);
  try {
    const filled = await fill(source.store);
    const first = await createBackup(source, { to: join(dir, `${from}-first`) });
    expect(first.manifest.source).toEqual(source.pair);
    expect((await verifyBackup(first.path)).problems).toEqual([]);
    expect(first.manifest.blobs.count).toBeGreaterThan(0);
    expect(first.manifest.tables.find((t) => t.name === 'inline_contents')?.rows).toBeGreaterThan(0);
    expect(first.manifest.tables.find((t) => t.name === 'trash_items')?.rows).toBe(2);
    expect(first.manifest.tables.find((t) => t.name === 'links')?.rows).toBeGreaterThan(0);

    const restored = await restoreBackup(target, { from: first.path });
    expect(restored.redone).toBe(false);
    expect(await target.archive.state()).toBe('in-use');
    const second = await createBackup(target, { to: join(dir, `${from}-to-${to}`) });
    expect(second.manifest.source).toEqual(target.pair);
    expect(content(second.manifest)).toEqual(content(first.manifest));

    expect(await observe(target.store, filled)).toEqual(await observe(source.store, filled));
    // The search index is not in a backup: the server's start-up backfill rebuilds it.
    expect((await source.store.maintenance.backfillSearch()).indexed).toBe(0);
    expect((await target.store.maintenance.backfillSearch()).indexed).toBeGreaterThanOrEqual(5);

    // And back again, into an empty store of the first pair.
    await restoreBackup(again, { from: second.path });
    const third = await createBackup(again, { to: join(dir, `${from}-to-${to}-back`) });
    expect(content(third.manifest)).toEqual(content(first.manifest));
    expect(await observe(again.store, filled)).toEqual(await observe(source.store, filled));
    // The restored store takes new writes after the restored ones.
    const principal = await again.store.authenticate({ apiKey: filled.apiKeys[0]! });
    const written = await again.store.files.updateContent({
      principal,
      projectId: filled.projectIds[0]!,
      filename: 'b.md',
      content: text('# B, after the restore\n'),
    });
    expect(written.revision).toBe(2);
  } finally {
    await Promise.all([source.close(), target.close(), again.close()]);
  }
}

describe.skipIf(skip)('backup and restore across the adapter pairs', () => {
  it('SQLite + fs → Postgres + S3 → SQLite + fs', () => roundTrip('sqlite-fs', 'postgres-s3'), 120_000);
  it('Postgres + S3 → SQLite + fs → Postgres + S3', () => roundTrip('postgres-s3', 'sqlite-fs'), 120_000);
});

const opened: Pair[] = [];
afterAll(async () => {
  await Promise.all(opened.map((pair) => pair.close()));
});
const emptyPair = async () => {
  const pair = await openPair('sqlite-fs');
  opened.push(pair);
  return pair;
};

describe('a backup refused or found broken', () => {
  it('takes a new snapshot when a blob it references is retired under it, and gives up after three', async () => {
    const source = await openPair('sqlite-fs');
    try {
      await fill(source.store);
      let failures = 2;
      const retiring = {
        ...source.blobs,
        get: (q: Parameters<typeof source.blobs.get>[0]) =>
          failures-- > 0 ? Promise.reject(new BlobNotFoundError(q.bucket, q.key)) : source.blobs.get(q),
      };
      const backup = await createBackup({ ...source, blobs: retiring }, { to: join(dir, 'retired') });
      expect((await verifyBackup(backup.path)).ok).toBe(true);
      failures = 3;
      await expect(
        createBackup({ ...source, blobs: retiring }, { to: join(dir, 'retired-thrice') }),
      ).rejects.toThrow(/is gone .*run the backup again/);
      const left = (await readdir(dir)).filter((name) => name.startsWith('retired-thrice'));
      expect(left).toEqual([]);
    } finally {
      await source.close();
    }
  });

  it('restores only into an empty store, and verify names each damaged file', async () => {
    const source = await openPair('sqlite-fs');
    try {
      await fill(source.store);
      const backup = await createBackup(source, { to: join(dir, 'damaged') });
      await expect(createBackup(source, { to: backup.path })).rejects.toThrow(/already exists/);
      await expect(restoreBackup(source, { from: backup.path })).rejects.toThrow(/not empty/);

      const accounts = join(backup.path, 'records/accounts.jsonl');
      const original = await readFile(accounts, 'utf8');
      await writeFile(accounts, original.replace('alice', 'alicf'));
      const [firstBlob] = (await readFile(join(backup.path, 'blobs.jsonl'), 'utf8')).split('\n');
      const { sha256 } = JSON.parse(firstBlob!) as { sha256: string };
      const blob = join('blobs', sha256.slice(0, 2), sha256);
      const blobBytes = await readFile(join(backup.path, blob));
      await writeFile(join(backup.path, blob), Buffer.concat([blobBytes, Buffer.from('x')]));
      const { ok, problems } = await verifyBackup(backup.path);
      expect(ok).toBe(false);
      expect(problems).toEqual([
        "records/accounts.jsonl: SHA-256 or size differs from the manifest's",
        expect.stringMatching(new RegExp(`^${blob}: holds ${blobBytes.length + 1} bytes`)),
      ]);
      await expect(restoreBackup(await emptyPair(), { from: backup.path })).rejects.toThrow(
        /not a sound backup/,
      );
      await writeFile(accounts, original);
      await writeFile(join(backup.path, blob), blobBytes);
      expect((await verifyBackup(backup.path)).ok).toBe(true);
      // Without its manifest (a backup cut short), nothing verifies.
      await rm(join(backup.path, 'manifest.json'));
      expect((await verifyBackup(backup.path)).problems).toEqual([
        expect.stringMatching(/^manifest\.json: cannot be read .*not a complete backup$/),
      ]);
    } finally {
      await source.close();
    }
  });
});
