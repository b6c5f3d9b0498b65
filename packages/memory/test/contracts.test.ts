import {
  describeBlobStoreContract,
  describeRateLimiterContract,
  describeRecordsRepositoryContract,
} from '@mdstore/core/testing';
import { createMemoryBlobStore, createMemoryRateLimiter, createMemoryRecords } from '../src/index.js';

describeRecordsRepositoryContract('memory', async () => {
  const repository = createMemoryRecords();
  return { repository, cleanup: () => repository.close() };
});

describeBlobStoreContract('memory', async () => {
  const store = createMemoryBlobStore();
  return { store, cleanup: () => store.close() };
});

describeRateLimiterContract('memory', async () => {
  const limiter = createMemoryRateLimiter();
  return { limiter, cleanup: () => limiter.close() };
});
