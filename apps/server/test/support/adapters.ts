import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BlobStore, MdStoreSettings, RateLimiter, RecordsRepository } from '@mdstore/core';
import { createFsBlobStore } from '@mdstore/fs';
import { createMemoryBlobStore, createMemoryRateLimiter, createMemoryRecords } from '@mdstore/memory';
import type { PostgresStore } from '@mdstore/postgres';
import type { S3Layout } from '@mdstore/s3';
import type { RunningS3rver } from '@mdstore/s3/testing';
import { openSqliteStore } from '@mdstore/sqlite';
import type pg from 'pg';
import { afterAll } from 'vitest';

// pg, the Postgres adapter, the AWS SDK and s3rver are imported on first use only: every HTTP test file
// imports this module, and most of them never touch Postgres or S3.

/** One fresh set of adapters for one test; `close` releases them (and drops any schema or folder). */
export interface TestAdapters {
  readonly records: RecordsRepository;
  readonly blobs: BlobStore;
  readonly rateLimiter: RateLimiter;
  /** Settings this set runs the core with (e.g. a storage form), under the test's own. */
  readonly settings?: Partial<MdStoreSettings>;
  close(): Promise<void>;
}

/**
 * The same adapters with every content in the blob store (`inlineMaxBytes: 0`): the HTTP suites run on
 * both storage forms, since the small contents of the tests would otherwise all be inline.
 */
const blobsOnly =
  (factory: AdapterFactory): AdapterFactory =>
  async () => ({ ...(await factory()), settings: { inlineMaxBytes: 0 } });

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

/** The database the Postgres tests use; override with MDSTORE_TEST_POSTGRES_URL. */
export const TEST_POSTGRES_URL =
  process.env.MDSTORE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Runs one statement on a short-lived connection of its own (never a pool under test). */
export async function adminQuery<R extends pg.QueryResultRow>(text: string, values?: unknown[]) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 3_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await client.query<R>(text, values);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A schema name no other test uses; the store creates the schema, `dropSchema` removes it. */
export const freshSchemaName = (): string => `mdstore_srv_${randomBytes(6).toString('hex')}`;

export async function dropSchema(name: string): Promise<void> {
  await adminQuery(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
}

let postgresProbe: Promise<string | undefined> | undefined;

/** Why Postgres cannot be used (undefined when it can). Probed once per test file. */
export function postgresUnreachableReason(): Promise<string | undefined> {
  postgresProbe ??= adminQuery('SELECT 1').then(
    () => undefined,
    (error: unknown) => (error instanceof Error ? error.message || String(error) : String(error)),
  );
  return postgresProbe;
}

/**
 * Whether the Postgres tests must be skipped: only when Postgres is unreachable outside CI. With
 * `CI=true` they always run, so an unreachable database fails them instead of hiding them. The reason is
 * printed once.
 */
export async function skipWithoutPostgres(what: string): Promise<boolean> {
  const reason = await postgresUnreachableReason();
  const skip = reason !== undefined && process.env.CI !== 'true';
  if (skip) console.warn(`[${what}] skipped: ${TEST_POSTGRES_URL} is unreachable (${reason})`);
  return skip;
}

// One s3rver per test file, started by the first postgres-s3 harness and stopped after the file's tests.
let sharedS3rver: Promise<RunningS3rver> | undefined;

export function fileS3rver(): Promise<RunningS3rver> {
  sharedS3rver ??= import('@mdstore/s3/testing').then(({ startS3rver }) => startS3rver());
  return sharedS3rver;
}

// Registered on the test file that (statically) imports this module; a no-op when no s3rver was started.
afterAll(async () => {
  const running = sharedS3rver;
  sharedS3rver = undefined;
  if (running) await (await running).stop();
});

/**
 * Migrated schemas this test file has emptied and may hand out again: the HTTP suites open one store per
 * test on the Postgres sets, and emptying a schema (`emptySchema` of `@mdstore/postgres/testing`) costs a
 * small part of migrating a fresh one. One that cannot be emptied is dropped at once; the rest are dropped
 * when the file's tests end.
 */
const reusableSchemas: string[] = [];
const createdSchemas = new Set<string>();

async function emptyForReuse(schema: string): Promise<void> {
  createdSchemas.add(schema);
  try {
    const { emptySchema } = await import('@mdstore/postgres/testing');
    await emptySchema(TEST_POSTGRES_URL, schema);
    reusableSchemas.push(schema);
  } catch {
    createdSchemas.delete(schema);
    await dropSchema(schema).catch(() => undefined);
  }
}

afterAll(async () => {
  reusableSchemas.length = 0;
  const schemas = [...createdSchemas];
  createdSchemas.clear();
  await Promise.all(schemas.map((schema) => dropSchema(schema).catch(() => undefined)));
});

/**
 * PostgreSQL records and rate limiter in a migrated, empty schema (emptied on close for the next test;
 * `synchronous_commit` off, since these suites prove HTTP behaviour, not Postgres's durability), S3 blobs in
 * the file's s3rver:
 * the scale-out deployment. `layout` picks one bucket per project, or prefixes in one bucket (for stores
 * with a bucket quota); that one bucket is created here, as an operator would.
 */
const postgresS3 =
  (layoutKind: 'bucket-per-project' | 'single-bucket'): AdapterFactory =>
  async () => {
    const s3 = await fileS3rver();
    const layout: S3Layout =
      layoutKind === 'single-bucket'
        ? { kind: 'single-bucket', bucket: await createPhysicalBucket(s3) }
        : { kind: 'bucket-per-project' };
    const [{ openPostgresStore }, { withoutSynchronousCommit }, { createS3BlobStore }] = await Promise.all([
      import('@mdstore/postgres'),
      import('@mdstore/postgres/testing'),
      import('@mdstore/s3'),
    ]);
    const schema = reusableSchemas.pop() ?? freshSchemaName();
    let postgres: PostgresStore;
    try {
      postgres = await openPostgresStore({
        connectionString: withoutSynchronousCommit(TEST_POSTGRES_URL),
        schema,
        poolMax: 4,
      });
    } catch (error) {
      await dropSchema(schema).catch(() => undefined);
      throw error;
    }
    const blobs = createS3BlobStore({ ...s3.s3ClientOptions, layout });
    return {
      records: postgres.records,
      blobs,
      rateLimiter: postgres.rateLimiter,
      close: async () => {
        await blobs.close();
        await postgres.close();
        await emptyForReuse(schema);
      },
    };
  };

async function createPhysicalBucket(s3: RunningS3rver): Promise<string> {
  const { CreateBucketCommand, S3Client } = await import('@aws-sdk/client-s3');
  const bucket = `mdstore-all-${randomBytes(6).toString('hex')}`;
  const client = new S3Client(s3.s3ClientOptions);
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    client.destroy();
  }
  return bucket;
}

export const postgresS3Adapters: AdapterFactory = postgresS3('bucket-per-project');
export const postgresS3SingleBucketAdapters: AdapterFactory = postgresS3('single-bucket');

/** Named adapter sets the HTTP suites run on (see `test/matrix`). */
export const ADAPTER_SETS: Record<string, AdapterFactory> = {
  memory: memoryAdapters,
  'sqlite-fs': sqliteFsAdapters,
  'sqlite-fs-blobs': blobsOnly(sqliteFsAdapters),
  'postgres-s3': postgresS3Adapters,
  'postgres-s3-blobs': blobsOnly(postgresS3Adapters),
  'postgres-s3-single-bucket': postgresS3SingleBucketAdapters,
};

let fileOverride: string | undefined;

/**
 * Makes `selectedAdapters` answer `name` until called with undefined: how a matrix file runs the HTTP
 * suites on one set whatever `MDSTORE_HTTP_TEST_ADAPTERS` says.
 */
export function useAdapterSet(name: string | undefined): void {
  if (name !== undefined && !ADAPTER_SETS[name]) throw new Error(`Unknown adapter set '${name}'`);
  fileOverride = name;
}

/** The name of the set `selectedAdapters` answers (for test output). */
export const selectedAdapterName = (): string =>
  fileOverride ?? process.env.MDSTORE_HTTP_TEST_ADAPTERS ?? 'memory';

/** The set chosen by `useAdapterSet`, else by `MDSTORE_HTTP_TEST_ADAPTERS` (default `memory`). */
export function selectedAdapters(): AdapterFactory {
  const name = selectedAdapterName();
  const factory = ADAPTER_SETS[name];
  if (!factory) throw new Error(`Unknown MDSTORE_HTTP_TEST_ADAPTERS '${name}'`);
  return factory;
}
