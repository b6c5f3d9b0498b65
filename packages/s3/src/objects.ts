import { Readable } from 'node:stream';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  type GetObjectCommandOutput,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { type StoredBlob, StoreUnavailableError } from '@mdstore/core';
import { createRequester, hasS3Code, isNotFound, unexpectedFailure } from './requests.js';
import { clientConfig, type S3BlobStoreOptions } from './s3-blob-store.js';
import { uploadObject } from './upload.js';

/** The connection options of `createS3BlobStore`, for plain objects (backups, extensions §16). */
export type S3ObjectsOptions = Omit<S3BlobStoreOptions, 'layout'>;

/**
 * Plain objects by S3 bucket and key, with the blob store's connection settings and upload (streamed,
 * one part in memory at a time, all or nothing): for files mdstore writes outside its blob store, such as
 * backups. Keys are used as given.
 */
export interface S3Objects {
  /** Streams `content` to the object; the result is its size and SHA-256. */
  put(bucket: string, key: string, content: AsyncIterable<Uint8Array>): Promise<StoredBlob>;
  /** The object's bytes, or null when there is no such object. */
  get(bucket: string, key: string): Promise<AsyncIterable<Uint8Array> | null>;
  /** The object's size, or null when there is no such object. */
  head(bucket: string, key: string): Promise<number | null>;
  /** Every key under `prefix`, in S3's (byte) order. */
  keys(bucket: string, prefix: string): AsyncIterable<string>;
  /** The "folders" right under `prefix` (the common prefixes up to the next `/`, each ending in `/`). */
  folders(bucket: string, prefix: string): AsyncIterable<string>;
  /** Deletes the keys (missing ones are no error). */
  delete(bucket: string, keys: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

const DEFAULT_PART_SIZE_BYTES = 8 * 1024 * 1024;
const DELETE_BATCH_SIZE = 1000;

export const createS3Objects = (options: S3ObjectsOptions = {}): S3Objects => {
  const client = options.client ?? new S3Client(clientConfig(options));
  const ownsClient = options.client === undefined;
  const partSize = options.partSizeBytes ?? DEFAULT_PART_SIZE_BYTES;
  const request = createRequester(options.requestTimeoutMs);

  async function* list(bucket: string, prefix: string, delimiter: string | undefined) {
    let token: string | undefined;
    do {
      const page = await request('ListObjectsV2', undefined, (o) =>
        client.send(
          new ListObjectsV2Command({
            Bucket: bucket,
            ...(prefix && { Prefix: prefix }),
            ...(delimiter && { Delimiter: delimiter }),
            ContinuationToken: token,
          }),
          o,
        ),
      ).catch((error: unknown) => {
        throw unexpectedFailure(error, undefined, 'ListObjectsV2');
      });
      yield page;
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
  }

  return {
    async put(bucket, key, content) {
      try {
        return await uploadObject({
          client,
          request,
          target: { Bucket: bucket, Key: key },
          content,
          maxBytes: Number.MAX_SAFE_INTEGER,
          partSize,
          signal: undefined,
        });
      } catch (error) {
        throw unexpectedFailure(error, undefined, `upload of ${bucket}/${key}`);
      }
    },

    async get(bucket, key) {
      let response: GetObjectCommandOutput;
      try {
        response = await request('GetObject', undefined, (o) =>
          client.send(new GetObjectCommand({ Bucket: bucket, Key: key }), o),
        );
      } catch (error) {
        if (hasS3Code(error, 'NoSuchKey') || isNotFound(error)) return null;
        throw unexpectedFailure(error, undefined, 'GetObject');
      }
      const body = response.Body;
      if (!(body instanceof Readable))
        throw new StoreUnavailableError('S3 GetObject returned no readable body');
      return body as AsyncIterable<Uint8Array>;
    },

    async head(bucket, key) {
      try {
        const head = await request('HeadObject', undefined, (o) =>
          client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }), o),
        );
        return head.ContentLength ?? 0;
      } catch (error) {
        if (isNotFound(error)) return null;
        throw unexpectedFailure(error, undefined, 'HeadObject');
      }
    },

    async *keys(bucket, prefix) {
      for await (const page of list(bucket, prefix, undefined)) {
        for (const entry of page.Contents ?? []) if (entry.Key !== undefined) yield entry.Key;
      }
    },

    async *folders(bucket, prefix) {
      for await (const page of list(bucket, prefix, '/')) {
        for (const entry of page.CommonPrefixes ?? []) if (entry.Prefix !== undefined) yield entry.Prefix;
      }
    },

    async delete(bucket, keys) {
      for (let start = 0; start < keys.length; start += DELETE_BATCH_SIZE) {
        const batch = keys.slice(start, start + DELETE_BATCH_SIZE).map((Key) => ({ Key }));
        const result = await request('DeleteObjects', undefined, (o) =>
          client.send(
            new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: batch, Quiet: true } }),
            o,
          ),
        ).catch((error: unknown) => {
          throw unexpectedFailure(error, undefined, 'DeleteObjects');
        });
        const failed = (result.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
        if (failed.length > 0) {
          throw new StoreUnavailableError(
            `S3 DeleteObjects failed for ${failed.length} keys (${failed[0]?.Code ?? 'unknown'}: ${failed[0]?.Key ?? ''})`,
          );
        }
      }
    },

    async close() {
      if (ownsClient) client.destroy();
    },
  };
};
