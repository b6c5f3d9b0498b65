export { createMemoryBlobStore, type MemoryBlobStoreOptions } from './blob-store.js';
export { createMemoryRateLimiter, type MemoryRateLimiterOptions } from './rate-limiter.js';
export { createMemoryRecords, type MemoryRecordsOptions } from './records.js';
