import {
  describeRateLimiterContract,
  describeRecordsArchiveContract,
  describeRecordsRepositoryContract,
} from '@mdstore/core/testing';
import { openSqliteStore, type SqliteStore } from '../src/index.js';
import { tempDatabase } from './temp-db.js';

/** A fresh database file per test, and every store opened on it, closed and removed by `cleanup`. */
async function openHarnessBase() {
  const database = await tempDatabase();
  const stores: SqliteStore[] = [];
  const open = async (): Promise<SqliteStore> => {
    const store = await openSqliteStore({ path: database.path });
    stores.push(store);
    return store;
  };
  const closeAll = () => Promise.all(stores.map((store) => store.close()));
  return {
    first: await open(),
    open,
    closeAll,
    async cleanup() {
      await closeAll();
      await database.remove();
    },
  };
}

describeRecordsRepositoryContract('sqlite', async () => {
  const base = await openHarnessBase();
  const harness = {
    repository: base.first.records,
    async reopen() {
      await base.closeAll();
      harness.repository = (await base.open()).records;
      return harness.repository;
    },
    openSecond: async () => (await base.open()).records,
    cleanup: base.cleanup,
  };
  return harness;
});

describeRateLimiterContract('sqlite', async () => {
  const base = await openHarnessBase();
  return {
    limiter: base.first.rateLimiter,
    openSecond: async () => (await base.open()).rateLimiter,
    cleanup: base.cleanup,
  };
});

describeRecordsArchiveContract('sqlite', async () => {
  const base = await openHarnessBase();
  return { archive: base.first.archive, records: base.first.records, cleanup: base.cleanup };
});
