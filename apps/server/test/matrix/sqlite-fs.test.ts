import { defineHttpSuitesOn } from './support.js';

// SQLite records and rate limiter, filesystem blobs: the embedded default, small content inline.
await defineHttpSuitesOn('sqlite-fs', { postgres: false });
// The same with every content in the blob store (the tests' contents are small enough to be inline).
await defineHttpSuitesOn('sqlite-fs-blobs', { postgres: false });
