import {
  describeRateLimiterContract,
  describeRecordsArchiveContract,
  describeRecordsRepositoryContract,
  type RateLimiterHarness,
  type RecordsHarness,
} from '@mdstore/core/testing';
import { afterAll, describe } from 'vitest';
import { openPostgresStore, type PostgresStore } from '../src/index.js';
import { emptySchema, withoutSynchronousCommit } from '../src/testing.js';
import {
  createTempSchema,
  skipPostgres,
  TEST_DATABASE_URL,
  type TempSchema,
} from './support/pg-available.js';

/**
 * Migrated schemas emptied after a harness and handed to the next one, as if fresh (migrating one costs
 * many times emptying it: `emptySchema`); one that cannot be emptied is dropped at once, the rest when the
 * file ends. The migrations themselves are proven on fresh schemas by `migrations.test.ts`.
 */
const reusable: TempSchema[] = [];
afterAll(async () => {
  await Promise.all(reusable.splice(0).map((schema) => schema.drop()));
});

/** A migrated, empty schema per harness; every store opened on it is closed and the schema emptied at cleanup. */
const openSchemaFixture = async () => {
  const schema = reusable.pop() ?? (await createTempSchema());
  const stores: PostgresStore[] = [];
  const openStore = async () => {
    const store = await openPostgresStore({
      connectionString: withoutSynchronousCommit(TEST_DATABASE_URL),
      schema: schema.name,
      poolMax: 3,
    });
    stores.push(store);
    return store;
  };
  const cleanup = async () => {
    await Promise.all(stores.map((store) => store.close()));
    try {
      await emptySchema(TEST_DATABASE_URL, schema.name);
      reusable.push(schema);
    } catch {
      await schema.drop();
    }
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
