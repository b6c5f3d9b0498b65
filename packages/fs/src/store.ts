import { createHash, randomBytes } from 'node:crypto';
import { constants, type Dirent } from 'node:fs';
import { access, type FileHandle, mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { BlobStore, ByteStream, StoredBlob } from '@mdstore/core';
import {
  BlobNotFoundError,
  BlobTooLargeError,
  BucketNotFoundError,
  isMdStoreError,
  StoreUnavailableError,
} from '@mdstore/core';
import { syncDirectory } from './durable.js';
import {
  DIRECTORY_SUFFIX,
  decodeKey,
  OBJECT_SUFFIX,
  resolveBucketDir,
  resolveObjectPath,
} from './safe-path.js';

export interface FsBlobStoreOptions {
  /** Folder holding one directory per bucket, e.g. `$MDSTORE_DATA_DIR/blobs`; created if missing. */
  root: string;
}

/** Bytes handed to the reader per chunk. */
const READ_CHUNK_BYTES = 64 * 1024;
/** Uploads in progress, named `<pid>-<random>`, on the buckets' filesystem so a rename moves them. */
const TEMP_DIR = '.tmp';
/** Buckets being deleted, moved out of sight first so a half-deleted bucket is never visible. */
const TRASH_DIR = '.trash';

/** The BlobStore port on the local filesystem: one directory per bucket, one file per object. */
export function createFsBlobStore(options: FsBlobStoreOptions): BlobStore {
  const root = path.resolve(options.root);
  const tempDir = path.join(root, TEMP_DIR);
  const trashDir = path.join(root, TRASH_DIR);
  const ready = prepareRoot(root, tempDir, trashDir);
  // Every method awaits `ready` and reports its failure; this only keeps an unused store quiet.
  ready.catch(() => {});

  const run = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      await ready;
      return await work();
    } catch (error) {
      throw translate(error);
    }
  };

  return {
    scheme: 'file',
    supports: { list: true },

    createBucket: ({ bucket, signal }) =>
      run(async () => {
        const dir = resolveBucketDir(root, bucket);
        signal?.throwIfAborted();
        try {
          await mkdir(dir);
        } catch (error) {
          if (errorCode(error) !== 'EEXIST') throw error;
          return;
        }
        await syncDirectory(root);
      }),

    deleteBucket: ({ bucket, signal }) =>
      run(async () => {
        const dir = resolveBucketDir(root, bucket);
        signal?.throwIfAborted();
        const trashed = path.join(trashDir, uniqueName());
        try {
          await rename(dir, trashed);
        } catch (error) {
          if (errorCode(error) === 'ENOENT') return;
          throw error;
        }
        await syncDirectory(root);
        await syncDirectory(trashDir);
        await rm(trashed, { recursive: true, force: true });
      }),

    bucketExists: ({ bucket, signal }) =>
      run(async () => {
        const dir = resolveBucketDir(root, bucket);
        signal?.throwIfAborted();
        return isDirectory(dir);
      }),

    /**
     * What serving needs: the root is a directory this process may read, write and enter, and a file
     * can be created (and removed) where uploads start, the temp folder. A root moved away, replaced by
     * a file, or made read-only fails here (a missing bucket would not: `bucketExists` cannot tell).
     */
    probe: ({ signal }) =>
      run(async () => {
        signal?.throwIfAborted();
        if (!(await stat(root)).isDirectory()) {
          throw new StoreUnavailableError('Filesystem blob store failed: the root is not a directory');
        }
        await access(root, constants.R_OK | constants.W_OK | constants.X_OK);
        const probeFile = path.join(tempDir, `${uniqueName()}.probe`);
        const handle = await open(probeFile, 'wx');
        await handle.close();
        await unlink(probeFile);
      }),

    put: ({ bucket, key, content, maxBytes, signal }) =>
      run(async () => {
        const bucketDir = resolveBucketDir(root, bucket);
        const file = resolveObjectPath(bucketDir, key);
        signal?.throwIfAborted();
        if (!(await isDirectory(bucketDir))) throw new BucketNotFoundError(bucket);
        return writeAtomically({ bucket, bucketDir, file, tempDir, content, maxBytes, signal });
      }),

    get: ({ bucket, key, range, signal }) =>
      run(async () => {
        const file = resolveObjectPath(resolveBucketDir(root, bucket), key);
        signal?.throwIfAborted();
        let handle: FileHandle;
        try {
          handle = await open(file, 'r');
        } catch (error) {
          if (isMissing(error)) throw new BlobNotFoundError(bucket, key);
          throw error;
        }
        try {
          const { size } = await handle.stat();
          signal?.throwIfAborted();
          // A range is read in place with positioned reads: never more than the part asked for.
          const span = range
            ? { from: range.start, to: Math.min(range.end + 1, size) }
            : { from: 0, to: size };
          return { sizeBytes: size, content: readChunks(handle, span, signal) };
        } catch (error) {
          await handle.close();
          throw error;
        }
      }),

    stat: ({ bucket, key, signal }) =>
      run(async () => {
        const file = resolveObjectPath(resolveBucketDir(root, bucket), key);
        signal?.throwIfAborted();
        try {
          const stats = await stat(file);
          return stats.isFile() ? { sizeBytes: stats.size } : null;
        } catch (error) {
          if (isMissing(error)) return null;
          throw error;
        }
      }),

    delete: ({ bucket, key, signal }) =>
      run(async () => {
        const file = resolveObjectPath(resolveBucketDir(root, bucket), key);
        signal?.throwIfAborted();
        try {
          await unlink(file);
        } catch (error) {
          if (isMissing(error)) return;
          throw error;
        }
        await syncDirectory(path.dirname(file));
      }),

    list: ({ bucket, signal }) => listBucket({ root, bucket, ready, signal }),

    close: async () => {
      await ready.catch(() => {});
    },
  };
}

/** Creates the layout and clears what crashed processes left behind. */
async function prepareRoot(root: string, tempDir: string, trashDir: string): Promise<void> {
  await mkdir(tempDir, { recursive: true });
  await mkdir(trashDir, { recursive: true });
  await removeOrphans(tempDir, (entry) => rm(entry, { force: true }));
  await removeOrphans(trashDir, (entry) => rm(entry, { recursive: true, force: true }));
  await syncDirectory(root);
}

/** Removes entries named `<pid>-…` whose process no longer runs: a killed writer cannot clean up. */
async function removeOrphans(dir: string, remove: (entry: string) => Promise<void>): Promise<void> {
  for (const name of await readdir(dir)) {
    const pid = ownerPid(name);
    if (pid !== null && isProcessRunning(pid)) continue;
    await remove(path.join(dir, name));
  }
}

function ownerPid(name: string): number | null {
  const match = /^(\d+)-/.exec(name);
  return match ? Number(match[1]) : null;
}

function isProcessRunning(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return errorCode(error) === 'EPERM';
  }
}

function uniqueName(): string {
  return `${process.pid}-${randomBytes(12).toString('hex')}`;
}

interface WriteJob {
  bucket: string;
  bucketDir: string;
  file: string;
  tempDir: string;
  content: ByteStream;
  maxBytes: number;
  signal: AbortSignal | undefined;
}

/** Streams into a temp file, makes it durable, then renames it over the object: all or nothing. */
async function writeAtomically(job: WriteJob): Promise<StoredBlob> {
  const temp = path.join(job.tempDir, `${uniqueName()}.tmp`);
  const handle = await open(temp, 'wx');
  let closed = false;
  try {
    const stored = await copyInto(handle, job.content, job.maxBytes, job.signal);
    await handle.sync();
    closed = true;
    await handle.close();
    job.signal?.throwIfAborted();
    const created = await makeParents(job.bucket, job.bucketDir, path.dirname(job.file));
    job.signal?.throwIfAborted();
    await renameIntoBucket(job, temp);
    await syncParents(job, created);
    return stored;
  } catch (error) {
    if (!closed) await handle.close().catch(() => {});
    await rm(temp, { force: true }).catch(() => {});
    throw error;
  }
}

async function copyInto(
  handle: FileHandle,
  content: ByteStream,
  maxBytes: number,
  signal: AbortSignal | undefined,
): Promise<StoredBlob> {
  const hash = createHash('sha256');
  let sizeBytes = 0;
  const chunks = content[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      const step = await nextChunk(chunks, signal);
      if (step.done) {
        finished = true;
        break;
      }
      const chunk = step.value;
      if (!(chunk instanceof Uint8Array)) throw new TypeError('Blob content must yield Uint8Array chunks');
      sizeBytes += chunk.byteLength;
      if (sizeBytes > maxBytes) throw new BlobTooLargeError(maxBytes);
      hash.update(chunk);
      await writeFully(handle, chunk);
    }
  } finally {
    // Stop the producer (e.g. destroy a request stream) when we quit before its end; not awaited
    // because a stalled producer must not hold the failure back.
    if (!finished)
      void Promise.resolve()
        .then(() => chunks.return?.())
        .catch(() => {});
  }
  return { sizeBytes, sha256: hash.digest('hex') };
}

/** The next chunk, or the abort reason as soon as the signal fires, even while the producer stalls. */
async function nextChunk(
  chunks: AsyncIterator<Uint8Array>,
  signal: AbortSignal | undefined,
): Promise<IteratorResult<Uint8Array>> {
  signal?.throwIfAborted();
  if (!signal) return chunks.next().catch(rethrowContentError);
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
  });
  // Listen before pulling: the producer may run, and the signal fire, inside `next()` itself.
  signal.addEventListener('abort', onAbort, { once: true });
  const next = chunks.next().catch(rethrowContentError);
  try {
    if (signal.aborted) onAbort();
    return await Promise.race([next, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
    next.catch(() => {});
  }
}

function rethrowContentError(error: unknown): never {
  throw contentError(error);
}

/** Errors that must reach the caller untranslated: the content's own failures. */
const passThrough = new WeakSet<object>();

function contentError(error: unknown): unknown {
  if (typeof error === 'object' && error !== null) passThrough.add(error);
  return error;
}

async function writeFully(handle: FileHandle, chunk: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < chunk.byteLength) {
    const { bytesWritten } = await handle.write(chunk, offset, chunk.byteLength - offset);
    offset += bytesWritten;
  }
}

/**
 * Creates the object's missing parent directories one level at a time below the bucket, never the
 * bucket itself: a bucket deleted meanwhile is reported, not silently recreated. Returns those created.
 */
async function makeParents(bucket: string, bucketDir: string, parent: string): Promise<string[]> {
  const levels: string[] = [];
  for (let dir = parent; dir !== bucketDir; dir = path.dirname(dir)) levels.unshift(dir);
  const created: string[] = [];
  for (const dir of levels) {
    try {
      await mkdir(dir);
      created.push(dir);
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT') throw new BucketNotFoundError(bucket);
      if (code !== 'EEXIST') throw error;
    }
  }
  return created;
}

/**
 * Makes the rename durable. A project deletion may move the whole bucket to the trash right after the
 * rename: the directories are then gone, and so is the object with its bucket — report that as such.
 */
async function syncParents(job: WriteJob, created: readonly string[]): Promise<void> {
  try {
    await syncDirectory(path.dirname(job.file));
    for (const dir of created) await syncDirectory(path.dirname(dir));
  } catch (error) {
    if (errorCode(error) === 'ENOENT' && !(await isDirectory(job.bucketDir))) {
      throw new BucketNotFoundError(job.bucket);
    }
    throw error;
  }
}

async function renameIntoBucket(job: WriteJob, temp: string): Promise<void> {
  try {
    await rename(temp, job.file);
  } catch (error) {
    // ENOENT is the bucket deleted meanwhile, unless the temp file itself vanished.
    if (errorCode(error) === 'ENOENT' && !(await isDirectory(job.bucketDir))) {
      throw new BucketNotFoundError(job.bucket);
    }
    throw error;
  }
}

/**
 * Reads bytes `from` (inclusive) to `to` (exclusive) of the open file in chunks; the handle is closed
 * when iteration ends, fails or is abandoned.
 */
function readChunks(
  handle: FileHandle,
  span: { readonly from: number; readonly to: number },
  signal: AbortSignal | undefined,
): ByteStream {
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await handle.close();
  };
  async function* chunks(): AsyncGenerator<Uint8Array> {
    try {
      let position = span.from;
      while (position < span.to) {
        signal?.throwIfAborted();
        const length = Math.min(READ_CHUNK_BYTES, span.to - position);
        // A fresh buffer per read: the consumer may keep every chunk it was given.
        const buffer = Buffer.allocUnsafe(length);
        const { bytesRead } = await handle.read(buffer, 0, length, position);
        if (bytesRead === 0) return;
        position += bytesRead;
        yield buffer.subarray(0, bytesRead);
      }
    } catch (error) {
      throw translate(error);
    } finally {
      await close();
    }
  }
  return {
    [Symbol.asyncIterator]() {
      const generator = chunks();
      return {
        next: () => generator.next(),
        // `return` waits for a pending read, then runs the generator's `finally`; a generator never
        // started skips that `finally`, so closing here too covers a stream dropped unread.
        return: async (value?: unknown) => {
          const result = await generator.return(value as undefined);
          await close();
          return result;
        },
        throw: (error?: unknown) => generator.throw(error),
        [Symbol.asyncIterator]() {
          return this;
        },
      };
    },
  };
}

async function* listBucket(o: {
  root: string;
  bucket: string;
  ready: Promise<void>;
  signal: AbortSignal | undefined;
}): AsyncGenerator<{ key: string; sizeBytes: number }> {
  try {
    const bucketDir = resolveBucketDir(o.root, o.bucket);
    await o.ready;
    o.signal?.throwIfAborted();
    if (!(await isDirectory(bucketDir))) throw new BucketNotFoundError(o.bucket);
    yield* walk(bucketDir, [], o.signal);
  } catch (error) {
    throw translate(error);
  }
}

/** Yields every object below `dir`; names the store did not make (stray files) are skipped. */
async function* walk(
  dir: string,
  segments: string[],
  signal: AbortSignal | undefined,
): AsyncGenerator<{ key: string; sizeBytes: number }> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    // A directory removed while walking (a concurrent bucket delete) simply holds nothing.
    if (isMissing(error)) return;
    throw error;
  }
  for (const entry of entries) {
    signal?.throwIfAborted();
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && entry.name.endsWith(DIRECTORY_SUFFIX)) {
      yield* walk(full, [...segments, entry.name], signal);
    } else if (entry.isFile() && entry.name.endsWith(OBJECT_SUFFIX)) {
      const key = decodeKey([...segments, entry.name]);
      if (key === null) continue;
      const size = await fileSize(full);
      if (size !== null) yield { key, sizeBytes: size };
    }
  }
}

async function fileSize(file: string): Promise<number | null> {
  try {
    return (await stat(file)).size;
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

async function isDirectory(dir: string): Promise<boolean> {
  try {
    return (await stat(dir)).isDirectory();
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function isMissing(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * Filesystem failures (ENOSPC, EIO, EACCES…) become `StoreUnavailableError` so callers can branch on
 * the code; the core's own errors, aborts, invalid names and the content's errors pass unchanged.
 */
function translate(error: unknown): unknown {
  if (isMdStoreError(error)) return error;
  if (typeof error === 'object' && error !== null && passThrough.has(error)) return error;
  const syscall = (error as { syscall?: unknown } | null)?.syscall;
  const code = errorCode(error);
  if (code !== undefined && typeof syscall === 'string') {
    return new StoreUnavailableError(`Filesystem blob store failed: ${code} (${syscall})`, { cause: error });
  }
  return error;
}
