import {
  describeRateLimiterContract,
  describeRecordsArchiveContract,
  describeRecordsRepositoryContract,
  type RateLimiterHarness,
  type RecordsHarness,
} from '@mdstore/core/testing';
import { describe } from 'vitest';
import { openPostgresStore, type PostgresStore } from '../src/index.js';
import { createTempSchema, skipPostgres, TEST_DATABASE_URL } from './support/pg-available.js';

/** A fresh schema per harness, every store opened on it closed and the schema dropped at cleanup. */
const openSchemaFixture = async () => {
  const schema = await createTempSchema();
  const stores: PostgresStore[] = [];
  const openStore = async () => {
    const store = await openPostgresStore({
      connectionString: TEST_DATABASE_URL,
      schema: schema.name,
      poolMax: 3,
    });
    stores.push(store);
    return store;
  };
  const cleanup = async () => {
    await Promise.all(stores.map((store) => store.close()));
    await schema.drop();
  };
  return { openStore, cleanup };
};

const openRecordsHarness = async (): Promise<RecordsHarness> => {
  const fixture = await openSchemaFixture();
  let current = await fixture.openStore();
  return {
    repository: current.records,
    async reopen() {
      await current.close();
      current = await fixture.openStore();
      return current.records;
    },
    openSecond: async () => (await fixture.openStore()).records,
    cleanup: fixture.cleanup,
  };
};

const openRateLimiterHarness = async (): Promise<RateLimiterHarness> => {
  const fixture = await openSchemaFixture();
  const store = await fixture.openStore();
  return {
    limiter: store.rateLimiter,
    openSecond: async () => (await fixture.openStore()).rateLimiter,
    cleanup: fixture.cleanup,
  };
};

describe.skipIf(skipPostgres)('postgres contract suites', () => {
  describeRecordsRepositoryContract('postgres', openRecordsHarness);
  describeRateLimiterContract('postgres', openRateLimiterHarness);
  describeRecordsArchiveContract('postgres', async () => {
    const fixture = await openSchemaFixture();
    const store = await fixture.openStore();
    return { archive: store.archive, records: store.records, cleanup: fixture.cleanup };
  });
});
