import { defineHttpSuitesOn } from './support.js';

// PostgreSQL (a fresh schema per server) and S3 (one s3rver for this file): the scale-out deployment.
// Half 2 of the suites: the set is spread over two files so that two workers can run it side by side.
await defineHttpSuitesOn('postgres-s3', { postgres: true, part: [2, 2] });
