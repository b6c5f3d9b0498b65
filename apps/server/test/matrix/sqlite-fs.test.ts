import { defineHttpSuitesOn } from './support.js';

// SQLite records and rate limiter, filesystem blobs: the embedded default.
await defineHttpSuitesOn('sqlite-fs', { postgres: false });
