import { defineHttpSuitesOn } from './support.js';

// PostgreSQL (a fresh schema per server) and S3 (one s3rver for this file): the scale-out deployment.
// Part 3 of 3 of the suites: the set is spread over three files that workers run side by side.
await defineHttpSuitesOn('postgres-s3', { postgres: true, part: [3, 3] });
