import type { ArchiveRow, BlobStore, RecordsArchive } from '@mdstore/core';
import { BACKUP_PAGE_ROWS, BackupError } from './create.js';
import { blobFile, decodeRow, type Manifest } from './format.js';
import { type BackupFiles, openBackupLocation } from './location.js';
import { readLines, readManifest, verifyBackup } from './verify.js';

export interface RestoreTarget {
  readonly archive: RecordsArchive;
  readonly blobs: BlobStore;
}

export interface RestoreReport {
  readonly path: string;
  /** Rows loaded per table. */
  readonly rows: Readonly<Record<string, number>>;
  /** Blobs written (one per referencing revision or attachment key). */
  readonly blobs: number;
  /** Whether this run finished an earlier, interrupted restore. */
  readonly redone: boolean;
}

/**
 * Restores a backup into an empty store (extensions §16), in this order:
 *
 * 1. verifies the whole backup (every checksum) and that its schema and tables are the target's;
 * 2. `beginRestore`: refuses a store in use, and commits a marker (a redo first empties the tables);
 * 3. loads every table, page by page, one transaction per page;
 * 4. makes each active project's bucket and writes every referenced blob to its bucket and key, read
 *    back from the restored records (so the target's own layout is used), checking each digest;
 * 5. `finishRestore` removes the marker.
 *
 * A crash anywhere before 5 leaves the marker: the server (and a backup) refuses that store, and the
 * same command run again starts over from 2 (blobs already written are written again, same bytes).
 */
export async function restoreBackup(
  target: RestoreTarget,
  o: { from: string | BackupFiles; pageRows?: number },
): Promise<RestoreReport> {
  if (typeof o.from !== 'string') return restoreFiles(target, o.from, o.pageRows);
  const location = await openBackupLocation(o.from);
  try {
    return await restoreFiles(target, location, o.pageRows);
  } finally {
    await location.close();
  }
}

async function restoreFiles(
  target: RestoreTarget,
  files: BackupFiles,
  pageRowsOption: number | undefined,
): Promise<RestoreReport> {
  const root = files.path;
  const pageRows = pageRowsOption ?? BACKUP_PAGE_ROWS;
  const verified = await verifyBackup(files);
  if (!verified.ok) {
    throw new BackupError(`${root} is not a sound backup: ${verified.problems.slice(0, 3).join('; ')}`);
  }
  const manifest = await readManifest(files);
  checkCompatible(manifest, target.archive);

  const state = await target.archive.state();
  if (state === 'in-use') {
    throw new BackupError('The target store is not empty: a backup is restored only into an empty store');
  }
  const redone = state === 'restoring';
  await target.archive.beginRestore();
  const rows: Record<string, number> = {};
  for (const table of manifest.tables) {
    let page: ArchiveRow[] = [];
    let count = 0;
    await readLines(files, table.file, async (line) => {
      page.push(decodeRow(table.columns, line));
      count += 1;
      if (page.length >= pageRows) {
        await target.archive.load({ table: table.name, rows: page });
        page = [];
      }
    });
    await target.archive.load({ table: table.name, rows: page });
    rows[table.name] = count;
  }

  let blobs = 0;
  const snapshot = await target.archive.openSnapshot({ restoring: true });
  try {
    const projects = target.archive.tables.find((t) => t.name === 'projects')!;
    const bucketAt = projects.columns.findIndex((column) => column.name === 'bucket_name');
    const statusAt = projects.columns.findIndex((column) => column.name === 'status');
    for await (const page of snapshot.rows({ table: 'projects', pageSize: pageRows })) {
      for (const project of page) {
        if (project[statusAt] !== 'active') continue;
        const bucket = String(project[bucketAt]);
        if (!(await target.blobs.bucketExists({ bucket }))) await target.blobs.createBucket({ bucket });
      }
    }
    for await (const page of snapshot.blobs({ pageSize: pageRows })) {
      for (const ref of page) {
        const stored = await target.blobs.put({
          bucket: ref.bucket,
          key: ref.key,
          content: await files.read(blobFile(ref.sha256)),
          maxBytes: ref.sizeBytes,
        });
        if (stored.sha256 !== ref.sha256 || stored.sizeBytes !== ref.sizeBytes) {
          throw new BackupError(`The blob ${ref.sha256} was stored as ${stored.sha256}: the restore stops`);
        }
        blobs += 1;
      }
    }
  } finally {
    await snapshot.close();
  }
  await target.archive.finishRestore();
  return { path: root, rows, blobs, redone };
}

function checkCompatible(manifest: Manifest, archive: RecordsArchive): void {
  if (manifest.schema_version !== archive.schemaVersion) {
    throw new BackupError(
      `The backup has schema version ${manifest.schema_version}, the target store ${archive.schemaVersion}: restore it with the mdstore version that wrote it, then upgrade`,
    );
  }
  const expected = JSON.stringify(archive.tables.map(({ name, columns, key }) => ({ name, columns, key })));
  const found = JSON.stringify(manifest.tables.map(({ name, columns, key }) => ({ name, columns, key })));
  if (expected !== found) {
    throw new BackupError(
      "The backup's tables and columns are not the target store's: it cannot be restored here",
    );
  }
}
