import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type {
  BlobStore,
  ChangeNotifier,
  RateLimiter,
  RecordsArchive,
  RecordsRepository,
} from '@mdstore/core';
import type { BlobStoreConfig, DatabaseConfig } from '../config/index.js';

/**
 * How each adapter package is loaded: on demand, so that a driver or SDK the configuration does not use
 * (`pg`, `@aws-sdk/client-s3`, `better-sqlite3`) is never loaded. Tests may replace an entry.
 */
export interface AdapterModules {
  sqlite(): Promise<Pick<typeof import('@mdstore/sqlite'), 'openSqliteStore'>>;
  postgres(): Promise<Pick<typeof import('@mdstore/postgres'), 'openPostgresStore'>>;
  fs(): Promise<Pick<typeof import('@mdstore/fs'), 'createFsBlobStore'>>;
  s3(): Promise<Pick<typeof import('@mdstore/s3'), 'createS3BlobStore'>>;
}

export const defaultAdapterModules: AdapterModules = {
  sqlite: () => import('@mdstore/sqlite'),
  postgres: () => import('@mdstore/postgres'),
  fs: () => import('@mdstore/fs'),
  s3: () => import('@mdstore/s3'),
};

/** The records repository and the rate limiter, which share one database. */
export interface OpenedDatabase {
  readonly records: RecordsRepository;
  readonly rateLimiter: RateLimiter;
  /** Backups and restore (extensions §16). */
  readonly archive?: RecordsArchive;
  /** Notices of change events committed by other instances (Postgres `LISTEN`); none for SQLite. */
  readonly changeNotices?: ChangeNotifier;
  close(): Promise<void>;
}

export interface DatabaseHooks {
  /** A store that can lose durability (SQLite's WAL sync) calls it once when it does (see main.ts). */
  readonly onDurabilityLost?: (error: Error) => void;
}

export async function openDatabase(
  config: DatabaseConfig,
  modules: AdapterModules,
  hooks: DatabaseHooks = {},
): Promise<OpenedDatabase> {
  if (config.kind === 'postgres') {
    const { openPostgresStore } = await modules.postgres();
    return openPostgresStore(
      config.schema === undefined
        ? { connectionString: config.connectionString }
        : { connectionString: config.connectionString, schema: config.schema },
    );
  }
  const { openSqliteStore } = await modules.sqlite();
  await mkdir(path.dirname(config.path), { recursive: true });
  return openSqliteStore({
    path: config.path,
    ...(hooks.onDurabilityLost && { onDurabilityLost: hooks.onDurabilityLost }),
  });
}

export async function openBlobStore(config: BlobStoreConfig, modules: AdapterModules): Promise<BlobStore> {
  if (config.kind === 'fs') {
    const { createFsBlobStore } = await modules.fs();
    await mkdir(config.root, { recursive: true });
    return createFsBlobStore({ root: config.root });
  }
  const { createS3BlobStore } = await modules.s3();
  return createS3BlobStore({
    endpoint: config.endpoint,
    region: config.region,
    forcePathStyle: config.forcePathStyle,
    requestChecksumCalculation: config.checksum,
    responseChecksumValidation: config.checksum,
    layout:
      config.bucket === undefined
        ? { kind: 'bucket-per-project' }
        : { kind: 'single-bucket', bucket: config.bucket },
  });
}
