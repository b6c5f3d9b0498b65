import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type RunningS3rver, startS3rver } from '@mdstore/s3/testing';
import pg from 'pg';
import { describe, type ExpectStatic, it } from 'vitest';
import { CrashViolation, runCrashLoop, summary } from './support/crash-loop.js';
import type { ServerChild } from './support/server-process.js';
import { postgresS3Inspector, type StoreInspector, sqliteFsInspector } from './support/store-inspection.js';

/**
 * The crash suite: what a 2xx promises must hold when the server process is SIGKILLed at any moment.
 * CI size: about 20 kills per store pair, bounded to ~90 s each. Full size: `MDSTORE_CRASH_FULL=1`
 * (200 kills per pair) or `MDSTORE_CRASH_KILLS=<n>`, with no time bound. `MDSTORE_CRASH_SEED` replays
 * a run's workload choices (timing still varies). See docs/reliability.md.
 */
const FULL = process.env.MDSTORE_CRASH_KILLS !== undefined || process.env.MDSTORE_CRASH_FULL === '1';
const KILLS = FULL ? Number(process.env.MDSTORE_CRASH_KILLS ?? 200) : 20;
const BUDGET_MS = FULL ? Number.POSITIVE_INFINITY : 90_000;
const TIMEOUT_MS = FULL ? KILLS * 20_000 : 150_000;
const MAX_FILE_BYTES = 262_144;
const SEED = Number(process.env.MDSTORE_CRASH_SEED ?? randomBytes(4).readUInt32BE());

if (!Number.isSafeInteger(KILLS) || KILLS < 1) throw new Error('MDSTORE_CRASH_KILLS must be a whole number');

/** What one test started or made, released when it ends (the two store pairs run concurrently). */
class Resources {
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

const baseEnv = (dataDir: string): Record<string, string> => ({
  PATH: process.env.PATH ?? '',
  MDSTORE_DATA_DIR: dataDir,
  PORT: '0',
  MDSTORE_LOG_LEVEL: 'info',
  MDSTORE_MAX_FILE_BYTES: String(MAX_FILE_BYTES),
  MDSTORE_RATE_LIMIT_STANDARD: '1000000000',
  MDSTORE_RATE_LIMIT_PREMIUM: '1000000000',
});

async function crash(
  expect: ExpectStatic,
  resources: Resources,
  pair: { name: string; env: Record<string, string>; inspector: StoreInspector },
): Promise<void> {
  const began = Date.now();
  try {
    const stats = await runCrashLoop({
      env: pair.env,
      inspector: pair.inspector,
      maxFileBytes: MAX_FILE_BYTES,
      kills: KILLS,
      budgetMs: BUDGET_MS,
      seed: SEED,
      workers: 6,
      children: resources.children,
    });
    console.log(summary(pair.name, SEED, stats, Date.now() - began));
    expect(stats.kills).toBeGreaterThan(0);
    if (FULL) expect(stats.kills).toBeGreaterThanOrEqual(KILLS);
  } catch (error) {
    if (error instanceof CrashViolation) expect.fail(error.message);
    throw error;
  } finally {
    pair.inspector.close();
    await resources.dispose();
  }
}

const TEST_DATABASE_URL = process.env.MDSTORE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

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
const skipPostgres = postgresProblem !== undefined && process.env.CI !== 'true';
if (skipPostgres) {
  console.log(`[crash] postgres+s3 skipped: ${TEST_DATABASE_URL} is unreachable (${postgresProblem})`);
}

// The two pairs share nothing, so they run side by side to keep the CI run short.
describe.concurrent('the crash suite', () => {
  it(`on sqlite + fs keeps every acknowledged write through ${KILLS} SIGKILLs`, {
    timeout: TIMEOUT_MS,
  }, async ({ expect }) => {
    const resources = new Resources();
    const dataDir = path.join(await resources.tempDir(), 'data');
    await crash(expect, resources, {
      name: 'sqlite+fs',
      env: baseEnv(dataDir),
      inspector: sqliteFsInspector(dataDir),
    });
  });

  it.skipIf(skipPostgres)(
    `on postgres + s3 keeps every acknowledged write through ${KILLS} SIGKILLs`,
    { timeout: TIMEOUT_MS },
    async ({ expect }) => {
      const resources = new Resources();
      const schema = `mdstore_crash_${randomBytes(6).toString('hex')}`;
      resources.onDispose(() => adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
      const s3: RunningS3rver = await startS3rver();
      resources.onDispose(() => s3.stop());
      const env = {
        ...baseEnv(path.join(await resources.tempDir(), 'data')),
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
      const inspector = postgresS3Inspector({
        databaseUrl: TEST_DATABASE_URL,
        schema,
        s3: s3.s3ClientOptions,
      });
      await crash(expect, resources, { name: 'postgres+s3', env, inspector });
    },
  );
});
