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
import { type BackupLocation, BackupTargetError, type BackupWriter, openBackupLocation } from './location.js';

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
 * Writes a backup of the whole store to `to`: a folder path (which must not exist), or a location
 * (location.ts: a folder or an S3 prefix, which must be empty). Records, blobs, then the manifest, each
 * streamed; the location makes the backup whole only after the manifest (a folder is written as
 * `<to>.partial-<random>` and renamed; an S3 prefix gets its manifest last). A backup killed on the way
 * leaves files without a manifest, which never verify as a backup; one that fails removes what it wrote.
 *
 * Consistency: every table and the list of blobs are read from one snapshot of the records store
 * (`RecordsArchive.openSnapshot`), held until the last blob is copied: the backup holds exactly the
 * writes committed before the snapshot was opened, so every write acknowledged before the backup began.
 */
export async function createBackup(
  source: BackupSource,
  o: { to: string | BackupLocation; now?: () => Date; pageRows?: number; attempts?: number },
): Promise<BackupReport> {
  const attempts = o.attempts ?? BACKUP_ATTEMPTS;
  const location = typeof o.to === 'string' ? await openBackupLocation(o.to) : o.to;
  try {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await createBackupOnce(source, location, o);
      } catch (error) {
        // A blob retired after the snapshot: a new snapshot no longer references it.
        if (!(error instanceof BlobGoneError) || attempt >= attempts) throw error;
      }
    }
  } finally {
    if (typeof o.to === 'string') await location.close();
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
  location: BackupLocation,
  o: { now?: () => Date; pageRows?: number },
): Promise<BackupReport> {
  const pageRows = o.pageRows ?? BACKUP_PAGE_ROWS;
  let writer: BackupWriter;
  try {
    writer = await location.begin();
  } catch (error) {
    if (error instanceof BackupTargetError) throw new BackupError(error.message);
    throw error;
  }
  const createdAt = (o.now ?? (() => new Date()))();
  let snapshot: Awaited<ReturnType<RecordsArchive['openSnapshot']>> | undefined;
  try {
    snapshot = await source.archive.openSnapshot();
    const tables: TableEntry[] = [];
    for (const table of source.archive.tables) {
      const file = recordsFile(table.name);
      let rows = 0;
      const pages = snapshot.rows({ table: table.name, pageSize: pageRows });
      const digest = await writer.write(
        file,
        (async function* () {
          for await (const page of pages) {
            rows += page.length;
            yield page.map((row) => encodeRow(table, row)).join('');
          }
        })(),
      );
      tables.push({ name: table.name, columns: table.columns, key: table.key, file, rows, ...digest });
    }
    const blobs = await copyBlobs(source.blobs, snapshot.blobs({ pageSize: pageRows }), writer);
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
    await writer.write(MANIFEST, once(`${JSON.stringify(manifest, null, 2)}\n`));
    await writer.commit();
    return { path: location.path, manifest };
  } catch (error) {
    await snapshot?.close().catch(() => undefined);
    await writer.abort();
    throw error;
  }
}

async function* once(text: string): AsyncGenerator<string> {
  yield text;
}

/** Copies each referenced blob once (by SHA-256), checking its size and digest against the records. */
async function copyBlobs(
  store: BlobStore,
  pages: AsyncIterable<readonly { bucket: string; key: string; sha256: string; sizeBytes: number }[]>,
  writer: BackupWriter,
): Promise<BlobListEntry> {
  let count = 0;
  let totalBytes = 0;
  // The list is written as the blobs are copied: one stream of lines, fed as each blob is done.
  const lines = lineQueue();
  const listed = writer.write(BLOB_LIST, lines.stream);
  // A list that fails to be written (its upload broke) stops the copy at the next line, not never.
  listed.catch((error: unknown) => lines.broken(error));
  try {
    for await (const page of pages) {
      for (const ref of page) {
        const file = blobFile(ref.sha256);
        if (await writer.has(file)) continue;
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
        const written = await writer.write(file, content);
        if (written.sha256 !== ref.sha256 || written.bytes !== ref.sizeBytes) {
          throw new BackupError(
            `The blob ${ref.bucket}/${ref.key} holds ${written.bytes} bytes with SHA-256 ${written.sha256}, not the ${ref.sizeBytes} bytes with ${ref.sha256} its records say`,
          );
        }
        await lines.push(`${JSON.stringify({ sha256: ref.sha256, size_bytes: ref.sizeBytes })}\n`);
        count += 1;
        totalBytes += ref.sizeBytes;
      }
    }
    lines.end();
  } catch (error) {
    lines.fail(error);
    await listed.catch(() => undefined);
    throw error;
  }
  return { file: BLOB_LIST, count, total_bytes: totalBytes, ...(await listed) };
}

/**
 * An async stream of strings fed from outside: `push` waits while the consumer is behind (at most one
 * line is held), `end` finishes it, `fail` ends it with an error, `broken` tells it the consumer is gone.
 */
function lineQueue() {
  let pending: { value: string; taken: () => void; refused: (error: unknown) => void } | undefined;
  let brokenBy: { error: unknown } | undefined;
  let waiting: ((item: IteratorResult<string> | Error) => void) | undefined;
  let finished: IteratorResult<string> | Error | undefined;
  const deliver = (item: IteratorResult<string> | Error) => {
    const take = waiting;
    waiting = undefined;
    take?.(item);
    return take !== undefined;
  };
  async function* stream(): AsyncGenerator<string> {
    for (;;) {
      if (pending) {
        const { value, taken } = pending;
        pending = undefined;
        taken();
        yield value;
        continue;
      }
      if (finished) {
        if (finished instanceof Error) throw finished;
        return;
      }
      const item = await new Promise<IteratorResult<string> | Error>((resolve) => {
        waiting = resolve;
      });
      if (item instanceof Error) throw item;
      if (item.done) return;
      yield item.value;
    }
  }
  return {
    stream: stream(),
    push(value: string): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        if (brokenBy) reject(brokenBy.error);
        else if (!deliver({ value, done: false })) pending = { value, taken: resolve, refused: reject };
        else resolve();
      });
    },
    /** The consumer failed: the waiting push and every later one reject with its error. */
    broken(error: unknown) {
      brokenBy = { error };
      const waiting = pending;
      pending = undefined;
      waiting?.refused(error);
    },
    end() {
      finished = { value: undefined, done: true };
      deliver(finished);
    },
    fail(error: unknown) {
      finished = error instanceof Error ? error : new Error(String(error));
      deliver(finished);
    },
  };
}

/** A failure of a backup, a verify or a restore that is the backup's or the command's, not the store's. */
export class BackupError extends Error {
  override readonly name = 'BackupError';
}
