/** Bytes as they flow: any async iterable of chunks (Node streams and web streams both are). */
export type ByteStream = AsyncIterable<Uint8Array>;

export interface StoredBlob {
  readonly sizeBytes: number;
  /** Lower-case hex SHA-256 of the stored bytes. */
  readonly sha256: string;
}

export interface BlobStoreCapabilities {
  /** `list` enumerates a bucket's keys (used by the consistency check). */
  readonly list: boolean;
}

/**
 * Content storage. Buckets are valid S3 bucket names (3-63 characters of `a-z`, `0-9`, `-`); keys are
 * 1-1024 bytes of UTF-8 without NUL, case-sensitive, and may contain any other character: an adapter
 * maps them to its own namespace so that no key can escape its bucket or collide with another.
 * Every method accepts an abort signal; an aborted call rejects and leaves nothing half-written.
 */
export interface BlobStore {
  /** URI scheme of `storage_path` for blobs held here, e.g. `file` or `s3`. */
  readonly scheme: string;
  readonly supports: BlobStoreCapabilities;

  /** Creates the bucket; creating an existing bucket succeeds. */
  createBucket(o: { bucket: string; signal?: AbortSignal }): Promise<void>;
  /** Removes the bucket and every object in it; removing a missing bucket succeeds. */
  deleteBucket(o: { bucket: string; signal?: AbortSignal }): Promise<void>;
  bucketExists(o: { bucket: string; signal?: AbortSignal }): Promise<boolean>;

  /**
   * Readiness (`/readyz`): resolves when the store can serve reads and writes now, rejects with a
   * `StoreUnavailableError` when it cannot (a filesystem root gone, unreadable or not a directory; an
   * object store unreachable or refusing the credentials). Cheap enough to run every second; creates
   * nothing that stays and no bucket.
   */
  probe(o: { signal?: AbortSignal }): Promise<void>;

  /**
   * Streams `content` into `key`, all or nothing: the object becomes visible only once complete and
   * durable, and replaces any object at that key atomically. Rejects with `BlobTooLargeError` as soon as
   * more than `maxBytes` arrive, with `BucketNotFoundError` when the bucket is missing, and with the
   * content's own error when the content iterable throws; in every failure nothing is stored.
   */
  put(o: {
    bucket: string;
    key: string;
    content: ByteStream;
    maxBytes: number;
    signal?: AbortSignal;
  }): Promise<StoredBlob>;

  /**
   * Opens the object for reading: rejects with `BlobNotFoundError` before any byte is produced when it
   * is missing. Leaving the iteration early releases every resource the read holds. With `range`
   * (inclusive offsets, `start <= end < size`), only those bytes are read and produced; `sizeBytes` is
   * still the whole object's size.
   */
  get(o: {
    bucket: string;
    key: string;
    range?: { readonly start: number; readonly end: number };
    signal?: AbortSignal;
  }): Promise<{ sizeBytes: number; content: ByteStream }>;

  /** Size of the object, or null when it is missing. */
  stat(o: { bucket: string; key: string; signal?: AbortSignal }): Promise<{ sizeBytes: number } | null>;

  /** Deletes the object; deleting a missing object (or one in a missing bucket) succeeds. */
  delete(o: { bucket: string; key: string; signal?: AbortSignal }): Promise<void>;

  /** Every key of the bucket with its size, in no particular order. Only when `supports.list`. */
  list?(o: { bucket: string; signal?: AbortSignal }): AsyncIterable<{ key: string; sizeBytes: number }>;

  close(): Promise<void>;
}
