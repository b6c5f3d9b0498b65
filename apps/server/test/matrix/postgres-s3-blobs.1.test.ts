import { defineHttpSuitesOn } from './support.js';

// PostgreSQL + S3 with every content in S3 (the tests' contents are small enough to be inline).
// Half 1 of the suites: the set is spread over two files so that two workers can run it side by side.
await defineHttpSuitesOn('postgres-s3-blobs', { postgres: true, part: [1, 2] });
