import { defineHttpSuitesOn } from './support.js';

// SQLite records and rate limiter, filesystem blobs: the embedded default, small content inline.
// Part 2 of 3 of the suites: the set is spread over three files that workers run side by side.
await defineHttpSuitesOn('sqlite-fs', { postgres: false, part: [2, 3] });
