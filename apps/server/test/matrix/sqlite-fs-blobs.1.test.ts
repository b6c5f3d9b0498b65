import { defineHttpSuitesOn } from './support.js';

// SQLite + files with every content in the blob store (the tests' contents are small enough to be inline).
// Half 1 of the suites: the set is spread over two files so that two workers can run it side by side.
await defineHttpSuitesOn('sqlite-fs-blobs', { postgres: false, part: [1, 2] });
