import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackup } from '../../src/backup/create.js';
import { BLOB_LIST } from '../../src/backup/format.js';
import { type BackupLocation, openBackupLocation, parseS3Target } from '../../src/backup/location.js';
import { openPair, text } from './pairs.js';

/** Where backups go (extensions §16): `s3://` places as parsed, and a destination that breaks mid-way. */

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'mdstore-backup-location-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('s3:// places', () => {
  it('are a bucket and a prefix without slashes at its ends; anything else is refused', () => {
    expect(parseS3Target('s3://my-backups/mdstore/nightly/')).toEqual({
      bucket: 'my-backups',
      prefix: 'mdstore/nightly',
    });
    expect(parseS3Target('s3://my-backups')).toEqual({ bucket: 'my-backups', prefix: '' });
    expect(parseS3Target('S3://my-backups//x')).toEqual({ bucket: 'my-backups', prefix: 'x' });
    for (const wrong of ['s3://', 's3://My_Bucket/x', 's3://b/x', 's3://bucket/a//b', 's3://bucket/a/../b'])
      expect(() => parseS3Target(wrong), wrong).toThrow(/s3:\/\/|segment/);
  });
});

describe('a destination that breaks mid-way', () => {
  it('stops the backup with its error (the blob list cannot be written) and leaves nothing', async () => {
    const pair = await openPair('sqlite-fs');
    try {
      const created = await pair.store.accounts.create({ name: 'broken-list' });
      const principal = await pair.store.authenticate({ apiKey: created.apiKey.apiKey });
      for (const n of [1, 2, 3])
        await pair.store.files.upload({
          principal,
          projectId: created.defaultProject.id,
          filename: `${n}.md`,
          content: text(`# ${n}\n${String(n).repeat(100)}\n`),
        });
      const real = await openBackupLocation(path.join(root, 'broken'));
      // The list's writer takes its first line, then fails: later lines have nobody to take them.
      const breaking: BackupLocation = {
        ...real,
        async begin() {
          const writer = await real.begin();
          return {
            ...writer,
            async write(name, content) {
              if (name !== BLOB_LIST) return writer.write(name, content);
              for await (const _ of content) throw new Error('the disk of the list broke');
              throw new Error('no line came');
            },
          };
        },
      };
      await expect(createBackup(pair, { to: breaking })).rejects.toThrow('the disk of the list broke');
      expect(await readdir(root)).toEqual([]);
    } finally {
      await pair.close();
    }
  }, 60_000);
});
