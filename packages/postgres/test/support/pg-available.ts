import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The database the tests use; override with MDSTORE_TEST_POSTGRES_URL. */
export const TEST_DATABASE_URL =
  process.env.MDSTORE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const probe = async (): Promise<string | undefined> => {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 3_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message || String(error) : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
};

const unreachableReason = await probe();

/**
 * True when the tests must be skipped: Postgres is unreachable and we are not in CI. In CI (`CI=true`)
 * the tests always run, so an unreachable database fails them instead of hiding them.
 */
export const skipPostgres = unreachableReason !== undefined && process.env.CI !== 'true';

if (skipPostgres) {
  console.warn(`[postgres] tests skipped: ${TEST_DATABASE_URL} is unreachable (${unreachableReason})`);
}

/** Runs one statement on a short-lived connection of its own (never the pool under test). */
export const adminQuery = async <R extends pg.QueryResultRow>(text: string, values?: unknown[]) => {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 3_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await client.query<R>(text, values);
  } finally {
    await client.end().catch(() => undefined);
  }
};

export interface TempSchema {
  readonly name: string;
  /** Drops the schema and everything in it; safe to call twice or when it was never created. */
  drop(): Promise<void>;
}

/**
 * A fresh schema name, `mdstore_test_<random>`. The schema itself is created by the store under test
 * (it creates its schema when missing) unless `create` is set.
 */
export const createTempSchema = async (o: { create?: boolean } = {}): Promise<TempSchema> => {
  const name = `mdstore_test_${randomBytes(6).toString('hex')}`;
  if (o.create) await adminQuery(`CREATE SCHEMA ${name}`);
  return { name, drop: async () => void (await adminQuery(`DROP SCHEMA IF EXISTS ${name} CASCADE`)) };
};
