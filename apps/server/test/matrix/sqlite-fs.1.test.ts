import { defineHttpSuitesOn } from './support.js';

// SQLite records and rate limiter, filesystem blobs: the embedded default, small content inline.
// Half 1 of the suites: the set is spread over two files so that two workers can run it side by side.
await defineHttpSuitesOn('sqlite-fs', { postgres: false, part: [1, 2] });
