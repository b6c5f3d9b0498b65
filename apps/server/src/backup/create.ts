import { createHash, randomBytes } from 'node:crypto';
import { type FileHandle, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { type BlobStore, isMdStoreError, type RecordsArchive } from '@mdstore/core';
import {
  BLOB_LIST,
  type BlobListEntry,
  blobFile,
  encodeRow,
  FORMAT,
  FORMAT_VERSION,
  MANIFEST,
  type Manifest,
  manifestChecksum,
  recordsFile,
  type TableEntry,
} from './format.js';

/** Rows per page read from the snapshot, and blob references per page: the bound on what is held at once. */
export const BACKUP_PAGE_ROWS = 500;

export interface BackupSource {
  readonly archive: RecordsArchive;
  readonly blobs: BlobStore;
  /** The pair, for the manifest: e.g. `{ database: 'sqlite', blob_store: 'fs' }`. */
  readonly pair: { readonly database: string; readonly blob_store: string };
}

export interface BackupReport {
  readonly path: string;
  readonly manifest: Manifest;
}

/**
 * Writes a backup of the whole store into `to`, which must not exist: everything is written into a
 * sibling directory `<to>.partial-<random>` (records, blobs, then the manifest, each synced), which is
 * renamed to `to` only when complete. A backup killed on the way leaves that partial directory, which has
 * no manifest until its last step, so it never verifies as a backup.
 *
 * Consistency: every table and the list of blobs are read from one snapshot of the records store
 * (`RecordsArchive.openSnapshot`), held until the last blob is copied: the backup holds exactly the
 * writes committed before the snapshot was opened, so every write acknowledged before the backup began.
 */
export async function createBackup(
  source: BackupSource,
  o: { to: string; now?: () => Date; pageRows?: number; attempts?: number },
): Promise<BackupReport> {
  const attempts = o.attempts ?? BACKUP_ATTEMPTS;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await createBackupOnce(source, o);
    } catch (error) {
      // A blob retired after the snapshot: a new snapshot no longer references it.
      if (!(error instanceof BlobGoneError) || attempt >= attempts) throw error;
    }
  }
}

/** How many snapshots a backup takes at most when blobs it references are retired under it. */
export const BACKUP_ATTEMPTS = 3;

/** A blob the snapshot references was deleted since (history pruned, a file or project deleted). */
export class BlobGoneError extends Error {
  override readonly name = 'BlobGoneError';
}

async function createBackupOnce(
  source: BackupSource,
  o: { to: string; now?: () => Date; pageRows?: number },
): Promise<BackupReport> {
  const target = path.resolve(o.to);
  if (await exists(target))
    throw new BackupError(`${target} already exists: a backup goes to a new directory`);
  const pageRows = o.pageRows ?? BACKUP_PAGE_ROWS;
  const partial = `${target}.partial-${randomBytes(6).toString('hex')}`;
  await mkdir(path.join(partial, 'records'), { recursive: true });
  const createdAt = (o.now ?? (() => new Date()))();
  const snapshot = await source.archive.openSnapshot();
  try {
    const tables: TableEntry[] = [];
    for (const table of source.archive.tables) {
      const file = recordsFile(table.name);
      const out = await HashedFile.create(path.join(partial, file));
      let rows = 0;
      try {
        for await (const page of snapshot.rows({ table: table.name, pageSize: pageRows })) {
          await out.write(page.map((row) => encodeRow(table, row)).join(''));
          rows += page.length;
        }
      } finally {
        await out.close();
      }
      tables.push({ name: table.name, columns: table.columns, key: table.key, file, rows, ...out.digest() });
    }
    const blobs = await copyBlobs(source.blobs, snapshot.blobs({ pageSize: pageRows }), partial);
    await snapshot.close();

    const content: Omit<Manifest, 'checksum'> = {
      format: FORMAT,
      format_version: FORMAT_VERSION,
      schema_version: snapshot.schemaVersion,
      created_at: createdAt.toISOString(),
      source: source.pair,
      tables,
      blobs,
    };
    const manifest: Manifest = { ...content, checksum: manifestChecksum(content) };
    const out = await HashedFile.create(path.join(partial, MANIFEST));
    await out.write(`${JSON.stringify(manifest, null, 2)}\n`);
    await out.close();
    await syncDirectory(partial);
    await rename(partial, target);
    await syncDirectory(path.dirname(target));
    return { path: target, manifest };
  } catch (error) {
    await snapshot.close().catch(() => undefined);
    await rm(partial, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }
}

/** Copies each referenced blob once (by SHA-256), checking its size and digest against the records. */
async function copyBlobs(
  store: BlobStore,
  pages: AsyncIterable<readonly { bucket: string; key: string; sha256: string; sizeBytes: number }[]>,
  dir: string,
): Promise<BlobListEntry> {
  const list = await HashedFile.create(path.join(dir, BLOB_LIST));
  let count = 0;
  let totalBytes = 0;
  try {
    for await (const page of pages) {
      for (const ref of page) {
        const file = path.join(dir, blobFile(ref.sha256));
        if (await exists(file)) continue;
        let content: AsyncIterable<Uint8Array>;
        try {
          content = (await store.get({ bucket: ref.bucket, key: ref.key })).content;
        } catch (error) {
          if (isMdStoreError(error, 'BLOB_NOT_FOUND') || isMdStoreError(error, 'BUCKET_NOT_FOUND')) {
            throw new BlobGoneError(
              `The blob ${ref.bucket}/${ref.key} the snapshot references is gone (a write retired it after the backup began): run the backup again`,
            );
          }
          throw error;
        }
        await mkdir(path.dirname(file), { recursive: true });
        const temporary = `${file}.tmp`;
        const out = await HashedFile.create(temporary);
        try {
          for await (const chunk of content) await out.write(chunk);
        } finally {
          await out.close();
        }
        const written = out.digest();
        if (written.sha256 !== ref.sha256 || written.bytes !== ref.sizeBytes) {
          throw new BackupError(
            `The blob ${ref.bucket}/${ref.key} holds ${written.bytes} bytes with SHA-256 ${written.sha256}, not the ${ref.sizeBytes} bytes with ${ref.sha256} its records say`,
          );
        }
        await rename(temporary, file);
        await list.write(`${JSON.stringify({ sha256: ref.sha256, size_bytes: ref.sizeBytes })}\n`);
        count += 1;
        totalBytes += ref.sizeBytes;
      }
    }
  } finally {
    await list.close();
  }
  return { file: BLOB_LIST, count, total_bytes: totalBytes, ...list.digest() };
}

/** A failure of a backup, a verify or a restore that is the backup's or the command's, not the store's. */
export class BackupError extends Error {
  override readonly name = 'BackupError';
}

/** A file written in order, hashed as it goes, synced at close. */
export class HashedFile {
  private readonly hash = createHash('sha256');
  private bytes = 0;
  private constructor(private readonly handle: FileHandle) {}

  static async create(file: string): Promise<HashedFile> {
    return new HashedFile(await open(file, 'wx'));
  }

  async write(data: string | Uint8Array): Promise<void> {
    const buffer = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    this.hash.update(buffer);
    this.bytes += buffer.byteLength;
    await this.handle.write(buffer);
  }

  private closed = false;
  private sha256: string | undefined;
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.sha256 = this.hash.digest('hex');
    try {
      await this.handle.sync();
    } finally {
      await this.handle.close();
    }
  }

  digest(): { bytes: number; sha256: string } {
    if (this.sha256 === undefined) throw new Error('digest() before close()');
    return { bytes: this.bytes, sha256: this.sha256 };
  }
}

export async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } catch {
    // Some filesystems refuse to sync a directory; the files themselves are synced.
  } finally {
    await handle.close();
  }
}
