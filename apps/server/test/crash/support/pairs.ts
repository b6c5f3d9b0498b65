import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type RunningS3rver, startS3rver } from '@mdstore/s3/testing';
import pg from 'pg';
import type { ServerChild } from './server-process.js';
import { postgresS3Inspector, type StoreInspector, sqliteFsInspector } from './store-inspection.js';

/** What one test started or made, released when it ends (the two store pairs run concurrently). */
export class Resources {
  readonly children = new Set<ServerChild>();
  private readonly cleanups: (() => Promise<void>)[] = [];

  onDispose(cleanup: () => Promise<void>): void {
    this.cleanups.push(cleanup);
  }

  async tempDir(): Promise<string> {
    const dir = await mkdtemp(path.join(tmpdir(), 'mdstore-crash-'));
    this.onDispose(() => rm(dir, { recursive: true, force: true }));
    return dir;
  }

  async dispose(): Promise<void> {
    for (const child of this.children) child.kill('SIGKILL');
    await Promise.all([...this.children].map((child) => child.exited));
    for (const cleanup of this.cleanups.splice(0).reverse()) await cleanup().catch(() => {});
  }
}

export const baseEnv = (dataDir: string, maxFileBytes: number): Record<string, string> => ({
  PATH: process.env.PATH ?? '',
  MDSTORE_DATA_DIR: dataDir,
  PORT: '0',
  MDSTORE_LOG_LEVEL: 'info',
  MDSTORE_MAX_FILE_BYTES: String(maxFileBytes),
  MDSTORE_RATE_LIMIT_STANDARD: '1000000000',
  MDSTORE_RATE_LIMIT_PREMIUM: '1000000000',
});

export const TEST_DATABASE_URL =
  process.env.MDSTORE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 3_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Same rule as packages/postgres/test/support/pg-available.ts: with CI=true, never skip. */
const postgresProblem = await adminQuery('SELECT 1').then(
  () => undefined,
  (error: unknown) => (error instanceof Error ? error.message : String(error)),
);
export const skipPostgres = postgresProblem !== undefined && process.env.CI !== 'true';
if (skipPostgres) {
  console.log(`[crash] postgres+s3 skipped: ${TEST_DATABASE_URL} is unreachable (${postgresProblem})`);
}

export interface StorePair {
  readonly name: string;
  readonly env: Record<string, string>;
  readonly inspector: StoreInspector;
}

export async function sqliteFsPair(resources: Resources, maxFileBytes: number): Promise<StorePair> {
  const dataDir = path.join(await resources.tempDir(), 'data');
  return { name: 'sqlite+fs', env: baseEnv(dataDir, maxFileBytes), inspector: sqliteFsInspector(dataDir) };
}

/** A schema of its own on the test database and an s3rver of its own, both removed at the end. */
export async function postgresS3Pair(resources: Resources, maxFileBytes: number): Promise<StorePair> {
  const schema = `mdstore_crash_${randomBytes(6).toString('hex')}`;
  resources.onDispose(() => adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
  const s3: RunningS3rver = await startS3rver();
  resources.onDispose(() => s3.stop());
  const env = {
    ...baseEnv(path.join(await resources.tempDir(), 'data'), maxFileBytes),
    MDSTORE_DATABASE_URL: TEST_DATABASE_URL,
    MDSTORE_POSTGRES_SCHEMA: schema,
    MDSTORE_BLOB_STORE: 's3',
    MDSTORE_S3_ENDPOINT: s3.endpoint,
    MDSTORE_S3_FORCE_PATH_STYLE: 'true',
    MDSTORE_S3_CHECKSUM: 'WHEN_REQUIRED',
    MDSTORE_S3_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
  };
  const inspector = postgresS3Inspector({ databaseUrl: TEST_DATABASE_URL, schema, s3: s3.s3ClientOptions });
  return { name: 'postgres+s3', env, inspector };
}
