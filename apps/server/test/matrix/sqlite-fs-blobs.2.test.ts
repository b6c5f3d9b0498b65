import { defineHttpSuitesOn } from './support.js';

// SQLite + files with every content in the blob store (the tests' contents are small enough to be inline).
// Part 2 of 3 of the suites: the set is spread over three files that workers run side by side.
await defineHttpSuitesOn('sqlite-fs-blobs', { postgres: false, part: [2, 3] });
