import type { RecordsRepository } from '@mdstore/core';
import { describeRateLimiterContract, describeRecordsRepositoryContract } from '@mdstore/core/testing';
import { createMemoryRateLimiter, createMemoryRecords } from '../src/index.js';

/**
 * The memory store is neither durable nor shared, so the contract skips those tests for it. To exercise
 * the suite's own durable and shared paths, these runs hand out several handles onto one store, which
 * is exactly what a durable, shared store looks like from the outside.
 */
function handleOnto(store: RecordsRepository): RecordsRepository {
  const supports = { durable: true, sharedBetweenProcesses: true };
  return new Proxy(store, {
    get(target, property) {
      if (property === 'supports') return supports;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describeRecordsRepositoryContract('memory, seen as durable and shared', async () => {
  const store = createMemoryRecords();
  return {
    repository: handleOnto(store),
    reopen: async () => handleOnto(store),
    openSecond: async () => handleOnto(store),
    cleanup: () => store.close(),
  };
});

describeRateLimiterContract('memory, with a second handle', async () => {
  const limiter = createMemoryRateLimiter();
  return { limiter, openSecond: async () => limiter, cleanup: () => limiter.close() };
});
