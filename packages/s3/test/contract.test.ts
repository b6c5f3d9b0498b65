import { CreateBucketCommand, DeleteBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { describeBlobStoreContract } from '@mdstore/core/testing';
import { afterAll, beforeAll } from 'vitest';
import { createS3BlobStore } from '../src/index.js';
import { type RunningS3rver, startS3rver } from '../src/testing/index.js';
import { uniqueBucket } from './helpers.js';

// One s3rver (with its own fresh directory) for this file. The suite names its buckets randomly, and each
// single-bucket harness gets a physical bucket of its own, so tests never see each other's objects.
let s3rver: RunningS3rver;

beforeAll(async () => {
  s3rver = await startS3rver();
});

afterAll(async () => {
  await s3rver?.stop();
});

describeBlobStoreContract('s3 (bucket-per-project, on s3rver)', async () => {
  const store = createS3BlobStore({ ...s3rver.s3ClientOptions, layout: { kind: 'bucket-per-project' } });
  return { store, cleanup: () => store.close() };
});

describeBlobStoreContract(
  's3 (single-bucket, 1 MiB parts, on s3rver)',
  async () => {
    const bucket = uniqueBucket('physical');
    const admin = new S3Client(s3rver.s3ClientOptions);
    await admin.send(new CreateBucketCommand({ Bucket: bucket }));
    const store = createS3BlobStore({
      ...s3rver.s3ClientOptions,
      layout: { kind: 'single-bucket', bucket },
      partSizeBytes: 1024 * 1024,
    });
    return {
      store,
      cleanup: async () => {
        admin.destroy();
        await store.close();
      },
      // The one configured bucket is gone (the store's test left it empty): nothing can be stored.
      breakStore: async () => {
        await admin.send(new DeleteBucketCommand({ Bucket: bucket }));
      },
    };
  },
  { breakable: true },
);
