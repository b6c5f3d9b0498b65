import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BlobStore, RateLimiter, RecordsRepository } from '@mdstore/core';
import { createFsBlobStore } from '@mdstore/fs';
import { createMemoryBlobStore, createMemoryRateLimiter, createMemoryRecords } from '@mdstore/memory';
import { openSqliteStore } from '@mdstore/sqlite';

/** One fresh set of adapters for one test; `close` releases them (and drops any schema or folder). */
export interface TestAdapters {
  readonly records: RecordsRepository;
  readonly blobs: BlobStore;
  readonly rateLimiter: RateLimiter;
  close(): Promise<void>;
}

/**
 * Opens a fresh, empty set of adapters. The HTTP suites take one as a parameter so the same suites can
 * run on memory, on sqlite + fs and on postgres + s3.
 */
export type AdapterFactory = () => Promise<TestAdapters>;

export const memoryAdapters: AdapterFactory = async () => {
  const records = createMemoryRecords();
  const blobs = createMemoryBlobStore({ scheme: 'file' });
  const rateLimiter = createMemoryRateLimiter();
  return {
    records,
    blobs,
    rateLimiter,
    close: async () => {
      await Promise.all([records.close(), blobs.close(), rateLimiter.close()]);
    },
  };
};

/** The embedded default: SQLite records and rate limiter, filesystem blobs, in a fresh temp folder. */
export const sqliteFsAdapters: AdapterFactory = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mdstore-http-'));
  const sqlite = await openSqliteStore({ path: join(dir, 'mdstore.db') });
  const blobs = createFsBlobStore({ root: join(dir, 'blobs') });
  return {
    records: sqlite.records,
    blobs,
    rateLimiter: sqlite.rateLimiter,
    close: async () => {
      await blobs.close();
      await sqlite.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
};

/** Named adapter sets the HTTP suites can run on; add sqlite+fs and postgres+s3 here when they exist. */
export const ADAPTER_SETS: Record<string, AdapterFactory> = {
  memory: memoryAdapters,
  'sqlite-fs': sqliteFsAdapters,
};

/** The set named by `MDSTORE_HTTP_TEST_ADAPTERS` (default `memory`). */
export function selectedAdapters(): AdapterFactory {
  const name = process.env.MDSTORE_HTTP_TEST_ADAPTERS ?? 'memory';
  const factory = ADAPTER_SETS[name];
  if (!factory) throw new Error(`Unknown MDSTORE_HTTP_TEST_ADAPTERS '${name}'`);
  return factory;
}
