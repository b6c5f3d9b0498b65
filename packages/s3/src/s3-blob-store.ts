import { Readable } from 'node:stream';
import {
  type BucketLocationConstraint,
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import {
  BlobNotFoundError,
  type BlobStore,
  BucketNotFoundError,
  isMdStoreError,
  StoreUnavailableError,
} from '@mdstore/core';
import { type LayoutMapping, layoutMapping, type ObjectAddress, type S3Layout } from './layout.js';
import {
  createRequester,
  hasS3Code,
  isNotFound,
  type Request,
  unavailable,
  unexpectedFailure,
} from './requests.js';
import { uploadObject } from './upload.js';

export type ChecksumMode = 'WHEN_SUPPORTED' | 'WHEN_REQUIRED';

export interface S3BlobStoreOptions {
  /** A ready client; when given, the connection options below are ignored and `close` leaves it open. */
  client?: S3Client;
  endpoint?: string;
  /** Defaults to the SDK's region chain, or `us-east-1` with a custom `endpoint`. */
  region?: string;
  forcePathStyle?: boolean;
  /** Defaults to the SDK's credential provider chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /**
   * `WHEN_REQUIRED` for stores that do not understand the SDK's default flexible checksums (s3rver and
   * older S3-compatible servers).
   */
  requestChecksumCalculation?: ChecksumMode;
  responseChecksumValidation?: ChecksumMode;
  layout?: S3Layout;
  /** Bytes buffered per upload part (S3 requires at least 5 MiB for every part but the last). */
  partSizeBytes?: number;
  /** Deadline of each request until its response arrives; none by default. */
  requestTimeoutMs?: number;
}

const DEFAULT_PART_SIZE_BYTES = 8 * 1024 * 1024;
const DELETE_BUCKET_ATTEMPTS = 5;
/** The most keys one DeleteObjects request (and one ListObjectsV2 page) takes. */
const DELETE_BATCH_SIZE = 1000;

export const createS3BlobStore = (options: S3BlobStoreOptions = {}): BlobStore => {
  const client = options.client ?? new S3Client(clientConfig(options));
  const ownsClient = options.client === undefined;
  const partSize = options.partSizeBytes ?? DEFAULT_PART_SIZE_BYTES;
  if (!Number.isSafeInteger(partSize) || partSize < 1) throw new RangeError('partSizeBytes must be positive');
  const layout = layoutMapping(options.layout ?? { kind: 'bucket-per-project' });
  const request = createRequester(options.requestTimeoutMs);
  const ops = objectOperations(client, request, layout);
  const buckets =
    layout.kind === 'bucket-per-project'
      ? perProjectBuckets(client, request, ops, locationConstraintFor(options))
      : prefixBuckets(client, request, layout, ops);

  return {
    scheme: 's3',
    supports: { list: true },
    createBucket: buckets.createBucket,
    deleteBucket: buckets.deleteBucket,
    bucketExists: buckets.bucketExists,

    /**
     * An authenticated request that fails when the endpoint, the credentials or the configured bucket
     * are wrong: `HeadBucket` on the one bucket of the single-bucket layout, else `ListBuckets` for at
     * most one bucket (which needs `s3:ListAllMyBuckets`). Any failure is `StoreUnavailableError`.
     */
    async probe({ signal }) {
      const physical = options.layout?.kind === 'single-bucket' ? options.layout.bucket : undefined;
      const what = physical === undefined ? 'ListBuckets' : 'HeadBucket';
      try {
        if (physical === undefined) {
          await request(what, signal, (o) => client.send(new ListBucketsCommand({ MaxBuckets: 1 }), o));
        } else {
          await request(what, signal, (o) => client.send(new HeadBucketCommand({ Bucket: physical }), o));
        }
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        throw isMdStoreError(error) ? error : unavailable(error, what);
      }
    },

    async put({ bucket, key, content, maxBytes, signal }) {
      await buckets.assertExists(bucket, signal);
      const target = layout.object(bucket, key);
      let stored: Awaited<ReturnType<typeof uploadObject>>;
      try {
        stored = await uploadObject({ client, request, target, content, maxBytes, partSize, signal });
      } catch (error) {
        if (hasS3Code(error, 'NoSuchBucket')) throw new BucketNotFoundError(bucket);
        throw unexpectedFailure(error, signal, 'upload');
      }
      await buckets.afterPut(bucket, key, signal);
      return stored;
    },

    async get({ bucket, key, range, signal }) {
      const address = layout.object(bucket, key);
      // A ranged GET: the store sends only the part asked for.
      const command = range ? { ...address, Range: `bytes=${range.start}-${range.end}` } : address;
      const response = await request('GetObject', signal, (o) =>
        client.send(new GetObjectCommand(command), o),
      ).catch((error: unknown) => {
        if (hasS3Code(error, 'NoSuchKey', 'NoSuchBucket') || isNotFound(error)) {
          throw new BlobNotFoundError(bucket, key);
        }
        throw unexpectedFailure(error, signal, 'GetObject');
      });
      const body = response.Body;
      if (!(body instanceof Readable)) {
        throw new StoreUnavailableError('S3 GetObject returned no readable body');
      }
      const content = readBody(body, signal);
      if (!range) return { sizeBytes: wholeSize(response), content };
      let first: number;
      try {
        first = servedFrom(response, range);
      } catch (error) {
        body.destroy();
        throw error;
      }
      const take = range.end - range.start + 1;
      const served = response.ContentLength;
      if (first === range.start && served === take) return { sizeBytes: wholeSize(response), content };
      return { sizeBytes: wholeSize(response), content: slice(content, range.start - first, take) };
    },

    async stat({ bucket, key, signal }) {
      const head = await ops.head(layout.object(bucket, key), signal);
      return head === null ? null : { sizeBytes: head.ContentLength ?? 0 };
    },

    async delete({ bucket, key, signal }) {
      const address = layout.object(bucket, key);
      try {
        await request('DeleteObject', signal, (o) => client.send(new DeleteObjectCommand(address), o));
      } catch (error) {
        if (hasS3Code(error, 'NoSuchBucket', 'NoSuchKey')) return;
        throw unexpectedFailure(error, signal, 'DeleteObject');
      }
    },

    list({ bucket, signal }) {
      return listKeys(ops, layout, bucket, signal);
    },

    async close() {
      if (ownsClient) client.destroy();
    },
  };
};

export const clientConfig = (options: S3BlobStoreOptions): S3ClientConfig => {
  const config: S3ClientConfig = {};
  if (options.endpoint !== undefined) config.endpoint = options.endpoint;
  const region = options.region ?? (options.endpoint !== undefined ? 'us-east-1' : undefined);
  if (region !== undefined) config.region = region;
  if (options.forcePathStyle !== undefined) config.forcePathStyle = options.forcePathStyle;
  if (options.credentials !== undefined) config.credentials = options.credentials;
  if (options.requestChecksumCalculation !== undefined) {
    config.requestChecksumCalculation = options.requestChecksumCalculation;
  }
  if (options.responseChecksumValidation !== undefined) {
    config.responseChecksumValidation = options.responseChecksumValidation;
  }
  return config;
};

/**
 * AWS creates buckets in us-east-1 unless told otherwise; with another configured region (and AWS
 * itself, not a custom endpoint, whose region names vary) the bucket must name its region.
 */
const locationConstraintFor = (options: S3BlobStoreOptions): BucketLocationConstraint | undefined => {
  if (options.client !== undefined || options.endpoint !== undefined) return undefined;
  if (options.region === undefined || options.region === 'us-east-1') return undefined;
  return options.region as BucketLocationConstraint;
};

/** The object's size: from `Content-Range` (`bytes a-b/size`) on a ranged answer, else its length. */
function wholeSize(response: { ContentLength?: number; ContentRange?: string }): number {
  const total = response.ContentRange?.split('/')[1];
  return total !== undefined && /^\d+$/.test(total) ? Number(total) : (response.ContentLength ?? 0);
}

/**
 * Where the bytes a ranged GET received start. S3 answers exactly the range asked for; a store that
 * ignores `Range` (a 200 with the whole object) or serves more than asked (s3rver answers `bytes=0-0`
 * with the whole object) is cut to the part asked for by the caller; one that serves a part not covering
 * it is a failure, never a short or shifted read.
 */
function servedFrom(
  response: { ContentLength?: number; ContentRange?: string },
  range: { readonly start: number; readonly end: number },
): number {
  const match = /^bytes (\d+)-(\d+)\/(?:\d+|\*)$/.exec(response.ContentRange ?? '');
  const first = match ? Number(match[1]) : 0;
  const last = match ? Number(match[2]) : (response.ContentLength ?? 0) - 1;
  if (first > range.start || last < range.end) {
    throw new StoreUnavailableError(
      `S3 GetObject answered bytes ${first}-${last} for the range ${range.start}-${range.end}`,
    );
  }
  return first;
}

/** `take` bytes of `content` after its first `skip`; stops reading (and releases it) once they are out. */
async function* slice(
  content: AsyncGenerator<Uint8Array>,
  skip: number,
  take: number,
): AsyncGenerator<Uint8Array> {
  let toSkip = skip;
  let left = take;
  for await (const chunk of content) {
    const from = Math.min(toSkip, chunk.byteLength);
    toSkip -= from;
    const part = chunk.subarray(from, from + left);
    left -= part.byteLength;
    if (part.byteLength > 0) yield part;
    if (left === 0) return;
  }
  if (left > 0) throw new StoreUnavailableError('S3 GetObject ended before the range asked for');
}

/** Reads the body as chunks; leaving early (or the caller aborting) destroys the HTTP response. */
async function* readBody(body: Readable, signal: AbortSignal | undefined): AsyncGenerator<Uint8Array> {
  const destroy = () => body.destroy();
  signal?.addEventListener('abort', destroy, { once: true });
  try {
    for await (const chunk of body) yield chunk as Uint8Array;
  } catch (error) {
    throw signal?.aborted ? signal.reason : unavailable(error, 'GetObject (reading the body)');
  } finally {
    signal?.removeEventListener('abort', destroy);
    body.destroy();
  }
}

type ObjectOperations = ReturnType<typeof objectOperations>;

const objectOperations = (client: S3Client, request: Request, layout: LayoutMapping) => ({
  /** HeadObject, or null when there is no such object (or bucket). */
  async head(address: ObjectAddress, signal?: AbortSignal) {
    try {
      return await request('HeadObject', signal, (o) => client.send(new HeadObjectCommand(address), o));
    } catch (error) {
      if (isNotFound(error)) return null;
      throw unexpectedFailure(error, signal, 'HeadObject');
    }
  },

  /** One page of S3 keys under the logical bucket's scope. */
  async listPage(bucket: string, continuationToken: string | undefined, signal?: AbortSignal) {
    const scope = layout.scope(bucket);
    const input = { Bucket: scope.Bucket, ...(scope.Prefix && { Prefix: scope.Prefix }) };
    const page = await request('ListObjectsV2', signal, (o) =>
      client.send(new ListObjectsV2Command({ ...input, ContinuationToken: continuationToken }), o),
    );
    const objects = (page.Contents ?? []).flatMap((entry) =>
      entry.Key === undefined ? [] : [{ s3Key: entry.Key, sizeBytes: entry.Size ?? 0 }],
    );
    return { objects, next: page.IsTruncated ? page.NextContinuationToken : undefined };
  },

  async deleteKeys(s3Bucket: string, s3Keys: readonly string[], signal?: AbortSignal) {
    for (let start = 0; start < s3Keys.length; start += DELETE_BATCH_SIZE) {
      const batch = s3Keys.slice(start, start + DELETE_BATCH_SIZE).map((Key) => ({ Key }));
      const result = await request('DeleteObjects', signal, (o) =>
        client.send(
          new DeleteObjectsCommand({ Bucket: s3Bucket, Delete: { Objects: batch, Quiet: true } }),
          o,
        ),
      );
      const failed = result.Errors ?? [];
      if (failed.length > 0) {
        const first = failed[0];
        throw new StoreUnavailableError(
          `S3 DeleteObjects failed for ${failed.length} keys (${first?.Code ?? 'unknown'}: ${first?.Key ?? ''})`,
        );
      }
    }
  },
});

async function* listKeys(
  ops: ObjectOperations,
  layout: LayoutMapping,
  bucket: string,
  signal: AbortSignal | undefined,
): AsyncGenerator<{ key: string; sizeBytes: number }> {
  let token: string | undefined;
  do {
    let page: Awaited<ReturnType<ObjectOperations['listPage']>>;
    try {
      page = await ops.listPage(bucket, token, signal);
    } catch (error) {
      if (layout.kind === 'bucket-per-project' && hasS3Code(error, 'NoSuchBucket')) {
        throw new BucketNotFoundError(bucket);
      }
      throw unexpectedFailure(error, signal, 'ListObjectsV2');
    }
    for (const { s3Key, sizeBytes } of page.objects) {
      const key = layout.logicalKey(bucket, s3Key);
      if (key !== undefined) yield { key, sizeBytes };
    }
    token = page.next;
  } while (token !== undefined);
}

/** The bucket methods of the port, plus the two hooks `put` needs around an upload. */
interface BucketOperations extends Pick<BlobStore, 'createBucket' | 'deleteBucket' | 'bucketExists'> {
  /** Rejects with `BucketNotFoundError` when the logical bucket is missing (where S3 would not tell). */
  assertExists(bucket: string, signal: AbortSignal | undefined): Promise<void>;
  /** Undoes a put that raced with the deletion of its logical bucket. */
  afterPut(bucket: string, key: string, signal: AbortSignal | undefined): Promise<void>;
}

const perProjectBuckets = (
  client: S3Client,
  request: Request,
  ops: ObjectOperations,
  locationConstraint: BucketLocationConstraint | undefined,
): BucketOperations => {
  const bucketExists = async ({ bucket, signal }: { bucket: string; signal?: AbortSignal }) => {
    try {
      await request('HeadBucket', signal, (o) => client.send(new HeadBucketCommand({ Bucket: bucket }), o));
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw unexpectedFailure(error, signal, 'HeadBucket');
    }
  };

  const emptyBucket = async (bucket: string, signal?: AbortSignal) => {
    // Always the first page again: what was listed has been deleted, so no continuation is needed.
    for (;;) {
      const page = await ops.listPage(bucket, undefined, signal);
      if (page.objects.length === 0) return;
      await ops.deleteKeys(
        bucket,
        page.objects.map((entry) => entry.s3Key),
        signal,
      );
    }
  };

  return {
    bucketExists,

    async createBucket({ bucket, signal }) {
      const configuration = locationConstraint && { LocationConstraint: locationConstraint };
      try {
        await request('CreateBucket', signal, (o) =>
          client.send(
            new CreateBucketCommand({ Bucket: bucket, CreateBucketConfiguration: configuration }),
            o,
          ),
        );
      } catch (error) {
        if (hasS3Code(error, 'BucketAlreadyOwnedByYou')) return;
        // Some stores (s3rver among them) answer this for a bucket of our own: ours if we can reach it.
        if (hasS3Code(error, 'BucketAlreadyExists') && (await bucketExists({ bucket, signal }))) return;
        throw unexpectedFailure(error, signal, 'CreateBucket');
      }
    },

    async deleteBucket({ bucket, signal }) {
      for (let attempt = 1; ; attempt += 1) {
        try {
          await emptyBucket(bucket, signal);
          await request('DeleteBucket', signal, (o) =>
            client.send(new DeleteBucketCommand({ Bucket: bucket }), o),
          );
          return;
        } catch (error) {
          if (hasS3Code(error, 'NoSuchBucket')) return;
          // An upload that landed after the bucket was emptied: empty it again.
          if (hasS3Code(error, 'BucketNotEmpty') && attempt < DELETE_BUCKET_ATTEMPTS) continue;
          throw unexpectedFailure(error, signal, 'DeleteBucket');
        }
      }
    },

    // S3 itself refuses uploads into a missing bucket (NoSuchBucket), so no extra request is needed.
    assertExists: async () => {},
    afterPut: async () => {},
  };
};

const prefixBuckets = (
  client: S3Client,
  request: Request,
  layout: LayoutMapping,
  ops: ObjectOperations,
): BucketOperations => {
  const markerExists = async (bucket: string, signal?: AbortSignal) =>
    (await ops.head(layout.marker(bucket), signal)) !== null;

  const deleteEverythingButMarker = async (bucket: string, signal?: AbortSignal) => {
    const scope = layout.scope(bucket);
    for (;;) {
      const page = await ops.listPage(bucket, undefined, signal);
      const keys = page.objects.map((entry) => entry.s3Key).filter((s3Key) => s3Key !== scope.Prefix);
      if (keys.length === 0) return;
      await ops.deleteKeys(scope.Bucket, keys, signal);
    }
  };

  const deleteMarker = async (bucket: string, signal?: AbortSignal) => {
    const marker = layout.marker(bucket);
    await request('DeleteObject', signal, (o) => client.send(new DeleteObjectCommand(marker), o));
  };

  return {
    bucketExists: ({ bucket, signal }) => markerExists(bucket, signal),

    async createBucket({ bucket, signal }) {
      const marker = layout.marker(bucket);
      try {
        await request('PutObject', signal, (o) =>
          client.send(new PutObjectCommand({ ...marker, Body: new Uint8Array(0), ContentLength: 0 }), o),
        );
      } catch (error) {
        throw unexpectedFailure(error, signal, 'PutObject (bucket marker)');
      }
    },

    async deleteBucket({ bucket, signal }) {
      try {
        await deleteEverythingButMarker(bucket, signal);
        // Marker last, so that an interrupted delete still shows the bucket (and can be retried).
        await deleteMarker(bucket, signal);
      } catch (error) {
        throw unexpectedFailure(error, signal, 'delete bucket prefix');
      }
    },

    async assertExists(bucket, signal) {
      if (!(await markerExists(bucket, signal))) throw new BucketNotFoundError(bucket);
    },

    async afterPut(bucket, key, signal) {
      if (await markerExists(bucket, signal)) return;
      // The bucket was deleted while we uploaded: do not leave an object behind under its prefix.
      const address = layout.object(bucket, key);
      await request('DeleteObject', signal, (o) => client.send(new DeleteObjectCommand(address), o)).catch(
        () => {},
      );
      throw new BucketNotFoundError(bucket);
    },
  };
};
