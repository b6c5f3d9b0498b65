import { createHash } from 'node:crypto';
import {
  BlobNotFoundError,
  type BlobStore,
  type BlobStoreCapabilities,
  BlobTooLargeError,
  BucketNotFoundError,
  type ByteStream,
  type StoredBlob,
} from '@mdstore/core';

export interface MemoryBlobStoreOptions {
  /** URI scheme reported for blobs held here. Default `memory`. */
  scheme?: string;
}

/** Stored bytes are never mutated: a put replaces the whole object, so readers keep a stable snapshot. */
interface StoredObject {
  readonly bytes: Uint8Array;
  readonly sha256: string;
}

const READ_CHUNK_BYTES = 64 * 1024;
const CAPABILITIES: BlobStoreCapabilities = Object.freeze({ list: true });

/** Blobs kept in process memory, for tests and throw-away embedding. */
export function createMemoryBlobStore(options: MemoryBlobStoreOptions = {}): BlobStore {
  const buckets = new Map<string, Map<string, StoredObject>>();

  return {
    scheme: options.scheme ?? 'memory',
    supports: CAPABILITIES,

    async createBucket({ bucket, signal }) {
      signal?.throwIfAborted();
      if (!buckets.has(bucket)) buckets.set(bucket, new Map());
    },

    async deleteBucket({ bucket, signal }) {
      signal?.throwIfAborted();
      buckets.delete(bucket);
    },

    async bucketExists({ bucket, signal }) {
      signal?.throwIfAborted();
      return buckets.has(bucket);
    },

    /** Memory can always serve while the process runs. */
    async probe({ signal }) {
      signal?.throwIfAborted();
    },

    async put({ bucket, key, content, maxBytes, signal }): Promise<StoredBlob> {
      signal?.throwIfAborted();
      if (!buckets.has(bucket)) throw new BucketNotFoundError(bucket);
      const stored = await collect(content, maxBytes, signal);
      // The bucket may have been deleted while the content streamed in.
      const objects = buckets.get(bucket);
      if (!objects) throw new BucketNotFoundError(bucket);
      objects.set(key, stored);
      return { sizeBytes: stored.bytes.length, sha256: stored.sha256 };
    },

    async get({ bucket, key, range, signal }) {
      signal?.throwIfAborted();
      const stored = buckets.get(bucket)?.get(key);
      if (!stored) throw new BlobNotFoundError(bucket, key);
      const bytes = range ? stored.bytes.subarray(range.start, range.end + 1) : stored.bytes;
      return { sizeBytes: stored.bytes.length, content: readChunks(bytes, signal) };
    },

    async stat({ bucket, key, signal }) {
      signal?.throwIfAborted();
      const stored = buckets.get(bucket)?.get(key);
      return stored ? { sizeBytes: stored.bytes.length } : null;
    },

    async delete({ bucket, key, signal }) {
      signal?.throwIfAborted();
      buckets.get(bucket)?.delete(key);
    },

    async *list({ bucket, signal }) {
      signal?.throwIfAborted();
      const entries = [...(buckets.get(bucket) ?? new Map<string, StoredObject>()).entries()];
      for (const [key, stored] of entries) yield { key, sizeBytes: stored.bytes.length };
    },

    async close() {},
  };
}

/**
 * Reads the whole content, refusing it as soon as more than `maxBytes` arrived and giving up at once when
 * `signal` aborts (even while the producer is stalled). Chunks are copied on arrival: a producer may
 * reuse its buffers.
 */
async function collect(content: ByteStream, maxBytes: number, signal?: AbortSignal): Promise<StoredObject> {
  const iterator = content[Symbol.asyncIterator]();
  const abort = abortListener(signal);
  const hash = createHash('sha256');
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const step = await Promise.race([iterator.next(), abort.promise]);
      if (step.done) break;
      total += step.value.byteLength;
      if (total > maxBytes) throw new BlobTooLargeError(maxBytes);
      const chunk = new Uint8Array(step.value);
      hash.update(chunk);
      chunks.push(chunk);
    }
    signal?.throwIfAborted();
    return { bytes: new Uint8Array(Buffer.concat(chunks)), sha256: hash.digest('hex') };
  } catch (error) {
    stopQuietly(iterator);
    throw error;
  } finally {
    abort.dispose();
  }
}

/** A promise that rejects with the signal's reason once it aborts (never, without a signal). */
function abortListener(signal?: AbortSignal): { promise: Promise<never>; dispose: () => void } {
  if (!signal) return { promise: new Promise<never>(() => {}), dispose: () => {} };
  let onAbort = () => {};
  const promise = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  promise.catch(() => {}); // Observed through Promise.race; never an unhandled rejection.
  return { promise, dispose: () => signal.removeEventListener('abort', onAbort) };
}

/** Asks the producer to stop without waiting for it: it may be stalled, or already finished by a throw. */
function stopQuietly(iterator: AsyncIterator<Uint8Array>): void {
  try {
    iterator.return?.()?.catch(() => {});
  } catch {
    // A producer that fails to stop has nothing more to tell us.
  }
}

async function* readChunks(bytes: Uint8Array, signal?: AbortSignal): ByteStream {
  for (let offset = 0; offset < bytes.length; offset += READ_CHUNK_BYTES) {
    signal?.throwIfAborted();
    // A copy, so that a reader mutating its chunk cannot change the stored object.
    yield bytes.slice(offset, offset + READ_CHUNK_BYTES);
  }
}
