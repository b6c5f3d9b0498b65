import { defineHttpSuitesOn } from './support.js';

// PostgreSQL (a fresh schema per server) and S3 (one s3rver for this file): the scale-out deployment.
await defineHttpSuitesOn('postgres-s3', { postgres: true });
// The same with every content in S3 (the tests' contents are small enough to be inline).
await defineHttpSuitesOn('postgres-s3-blobs', { postgres: true });
