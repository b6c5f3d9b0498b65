import { defineHttpSuitesOn } from './support.js';

// PostgreSQL + S3 with every content in S3 (the tests' contents are small enough to be inline).
// Part 2 of 3 of the suites: the set is spread over three files that workers run side by side.
await defineHttpSuitesOn('postgres-s3-blobs', { postgres: true, part: [2, 3] });
