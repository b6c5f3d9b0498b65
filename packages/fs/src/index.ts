export { InvalidBlobNameError } from './safe-path.js';
export { createFsBlobStore, type FsBlobStoreOptions } from './store.js';
