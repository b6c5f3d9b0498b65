export type { S3Layout } from './layout.js';
export { createS3Objects, type S3Objects, type S3ObjectsOptions } from './objects.js';
export { type ChecksumMode, createS3BlobStore, type S3BlobStoreOptions } from './s3-blob-store.js';
