import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { S3Objects, S3ObjectsOptions } from '@mdstore/s3';
import { MANIFEST } from './format.js';

/**
 * Where a backup lives (extensions §16): a folder, or an S3 prefix (`s3://bucket/prefix`). Both hold
 * the same files under the same names (format.ts); only how a backup is made whole differs:
 *
 * - a folder is written as a sibling `<dir>.partial-<random>` and renamed to `<dir>` when complete;
 * - an S3 prefix is written in place, `manifest.json` last: S3 has no rename, and without the manifest
 *   nothing verifies or restores, so what a backup killed on the way leaves is never taken for a backup.
 */
export interface BackupFiles {
  /** As shown to the operator: an absolute folder path or `s3://bucket/prefix`. */
  readonly path: string;
  /** The bytes of one file of the backup; rejects with `MissingFileError` when there is none. */
  read(name: string): Promise<AsyncIterable<Uint8Array>>;
}

export interface BackupLocation extends BackupFiles {
  /** Starts a new backup here; refuses a location that already holds something. */
  begin(): Promise<BackupWriter>;
  /** Deletes the backup here, manifest first (so that a deletion cut short leaves no backup). */
  remove(): Promise<void>;
  close(): Promise<void>;
}

export interface BackupWriter {
  /** Whether this backup already holds the file (a blob referenced twice is copied once). */
  has(name: string): Promise<boolean>;
  /** Writes one file, streaming, and answers its size and SHA-256. */
  write(name: string, content: AsyncIterable<Uint8Array | string>): Promise<FileDigest>;
  /** Makes the backup whole (after its manifest is written). */
  commit(): Promise<void>;
  /** Removes what this backup wrote (best effort). */
  abort(): Promise<void>;
}

export interface FileDigest {
  readonly bytes: number;
  readonly sha256: string;
}

/** A folder or an S3 prefix holding several backups, one per entry: where scheduled backups go. */
export interface BackupRoot {
  readonly path: string;
  /** The entries right under the root, with whether each holds a manifest. */
  entries(): Promise<{ readonly name: string; readonly complete: boolean }[]>;
  child(name: string): BackupLocation;
  /** Deletes an entry whole (a backup, or what a backup cut short left). */
  remove(name: string): Promise<void>;
  close(): Promise<void>;
}

export class MissingFileError extends Error {
  override readonly name = 'MissingFileError';
  constructor(readonly file: string) {
    super('missing');
  }
}

/** An error of the backup's destination that is the operator's to fix (an existing target, a bad URL). */
export class BackupTargetError extends Error {
  override readonly name = 'BackupTargetError';
}

/** S3 settings for `s3://` targets: the server's own (`MDSTORE_S3_*` and the SDK's credential chain). */
export type BackupS3Options = S3ObjectsOptions;

const S3_URL = /^s3:\/\/([^/]+)(?:\/(.*))?$/i;
const S3_BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

export const isS3Target = (target: string): boolean => /^s3:\/\//i.test(target);

/** `s3://bucket/some/prefix/` → bucket and the prefix without slashes at its ends (may be empty). */
export function parseS3Target(target: string): { bucket: string; prefix: string } {
  const match = S3_URL.exec(target);
  const bucket = match?.[1] ?? '';
  const prefix = (match?.[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (!S3_BUCKET.test(bucket))
    throw new BackupTargetError(`${target}: not s3://BUCKET/PREFIX with a valid bucket name`);
  if (prefix !== '' && prefix.split('/').some((part) => part === '' || part === '.' || part === '..'))
    throw new BackupTargetError(`${target}: the prefix has an empty, "." or ".." segment`);
  return { bucket, prefix };
}

/** One backup at a folder path or an `s3://` URL. */
export async function openBackupLocation(target: string, s3: BackupS3Options = {}): Promise<BackupLocation> {
  if (!isS3Target(target)) return folderLocation(path.resolve(target));
  const { bucket, prefix } = parseS3Target(target);
  const objects = await openS3Objects(s3);
  return s3Location(objects, bucket, prefix, true);
}

/** A folder or an `s3://` prefix of backups. */
export async function openBackupRoot(target: string, s3: BackupS3Options = {}): Promise<BackupRoot> {
  if (!isS3Target(target)) return folderRoot(path.resolve(target));
  const { bucket, prefix } = parseS3Target(target);
  return s3Root(await openS3Objects(s3), bucket, prefix);
}

async function openS3Objects(options: BackupS3Options): Promise<S3Objects> {
  // Loaded only for an s3:// target: a SQLite + fs instance backing up to a folder never loads the SDK.
  const { createS3Objects } = await import('@mdstore/s3');
  return createS3Objects(options);
}

/** Hashes and counts what passes, strings as UTF-8. */
function digesting(content: AsyncIterable<Uint8Array | string>) {
  const hash = createHash('sha256');
  let bytes = 0;
  let sha256: string | undefined;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    for await (const part of content) {
      const chunk = typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
      if (chunk.byteLength === 0) continue;
      hash.update(chunk);
      bytes += chunk.byteLength;
      yield chunk;
    }
    sha256 = hash.digest('hex');
  }
  return {
    chunks: chunks(),
    digest(): FileDigest {
      if (sha256 === undefined) throw new Error('digest() before the content ended');
      return { bytes, sha256 };
    },
  };
}

// ---- folders ----

function folderLocation(dir: string): BackupLocation {
  return {
    path: dir,
    read: (name) => readFileStream(path.join(dir, name), name),
    async begin() {
      if (await exists(dir))
        throw new BackupTargetError(`${dir} already exists: a backup goes to a new directory`);
      const partial = `${dir}.partial-${randomBytes(6).toString('hex')}`;
      await mkdir(partial, { recursive: true });
      const made = new Set<string>([partial]);
      return {
        has: (name) => exists(path.join(partial, name)),
        async write(name, content) {
          const file = path.join(partial, name);
          const parent = path.dirname(file);
          if (!made.has(parent)) {
            await mkdir(parent, { recursive: true });
            made.add(parent);
          }
          const handle = await open(file, 'wx');
          const passing = digesting(content);
          try {
            for await (const chunk of passing.chunks) await handle.write(chunk);
            await handle.sync();
          } finally {
            await handle.close();
          }
          return passing.digest();
        },
        async commit() {
          await syncDirectory(partial);
          await rename(partial, dir);
          await syncDirectory(path.dirname(dir));
        },
        async abort() {
          await rm(partial, { recursive: true, force: true }).catch(() => undefined);
        },
      };
    },
    async remove() {
      await rm(path.join(dir, MANIFEST), { force: true });
      await rm(dir, { recursive: true, force: true });
    },
    close: async () => {},
  };
}

function folderRoot(dir: string): BackupRoot {
  return {
    path: dir,
    async entries() {
      let names: string[];
      try {
        names = await readdir(dir);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw error;
      }
      return Promise.all(
        names.map(async (name) => ({ name, complete: await exists(path.join(dir, name, MANIFEST)) })),
      );
    },
    child: (name) => folderLocation(path.join(dir, name)),
    remove: (name) => folderLocation(path.join(dir, name)).remove(),
    close: async () => {},
  };
}

async function readFileStream(file: string, name: string): Promise<AsyncIterable<Uint8Array>> {
  if (!(await exists(file))) throw new MissingFileError(name);
  return createReadStream(file);
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

// ---- S3 ----

function s3Location(objects: S3Objects, bucket: string, prefix: string, owns: boolean): BackupLocation {
  const base = prefix === '' ? '' : `${prefix}/`;
  const key = (name: string) => base + name.split(path.sep).join('/');
  const shown = `s3://${bucket}/${prefix}`;
  const removeAll = async () => {
    // The manifest first: a deletion cut short leaves no backup, only files without one.
    await objects.delete(bucket, [key(MANIFEST)]);
    let batch: string[] = [];
    for await (const k of objects.keys(bucket, base)) {
      batch.push(k);
      if (batch.length >= 1000) {
        await objects.delete(bucket, batch);
        batch = [];
      }
    }
    if (batch.length > 0) await objects.delete(bucket, batch);
  };
  return {
    path: shown,
    async read(name) {
      const body = await objects.get(bucket, key(name));
      if (body === null) throw new MissingFileError(name);
      return body;
    },
    async begin() {
      for await (const _ of objects.keys(bucket, base)) {
        throw new BackupTargetError(`${shown} already holds objects: a backup goes to a new prefix`);
      }
      return {
        has: async (name) => (await objects.head(bucket, key(name))) !== null,
        async write(name, content) {
          const passing = digesting(content);
          await objects.put(bucket, key(name), passing.chunks);
          return passing.digest();
        },
        // The manifest, written last, is what makes the backup whole: nothing more to do.
        commit: async () => {},
        abort: () => removeAll().catch(() => undefined),
      };
    },
    remove: removeAll,
    close: async () => {
      if (owns) await objects.close();
    },
  };
}

function s3Root(objects: S3Objects, bucket: string, prefix: string): BackupRoot {
  const base = prefix === '' ? '' : `${prefix}/`;
  const child = (name: string) => s3Location(objects, bucket, base + name, false);
  return {
    path: `s3://${bucket}/${prefix}`,
    async entries() {
      const found: { name: string; complete: boolean }[] = [];
      for await (const folder of objects.folders(bucket, base)) {
        const name = folder.slice(base.length, -1);
        found.push({ name, complete: (await objects.head(bucket, `${folder}${MANIFEST}`)) !== null });
      }
      return found;
    },
    child,
    remove: (name) => child(name).remove(),
    close: () => objects.close(),
  };
}

/** The client settings of `s3://` targets from the configuration (`MDSTORE_S3_*`, as the blob store's). */
export function backupS3Options(config: {
  readonly endpoint?: string;
  readonly region?: string;
  readonly forcePathStyle?: boolean;
  readonly checksum?: 'WHEN_SUPPORTED' | 'WHEN_REQUIRED';
}): BackupS3Options {
  return {
    ...(config.endpoint !== undefined && { endpoint: config.endpoint }),
    ...(config.region !== undefined && { region: config.region }),
    ...(config.forcePathStyle !== undefined && { forcePathStyle: config.forcePathStyle }),
    ...(config.checksum !== undefined && {
      requestChecksumCalculation: config.checksum,
      responseChecksumValidation: config.checksum,
    }),
  };
}
