import { describe, expect, it } from 'vitest';
import { openPostgresStore } from '../src/index.js';
import { createPool, mergeStartupOptions } from '../src/pool.js';
import { adminQuery, createTempSchema, skipPostgres, TEST_DATABASE_URL } from './support/pg-available.js';

const poolOptions = (schema: string) => ({
  connectionString: TEST_DATABASE_URL,
  schema,
  poolMax: 1,
  connectTimeoutMs: 2_000,
  statementTimeoutMs: 1_234,
  idleInTransactionTimeoutMs: 2_345,
});

describe.skipIf(skipPostgres)('postgres pool', () => {
  it('gives every connection its timeouts and search_path from the start', async () => {
    const schema = await createTempSchema({ create: true });
    const { pool } = createPool(poolOptions(schema.name));
    try {
      const { rows } = await pool.query<{ st: string; it: string; sp: string }>(
        `SELECT current_setting('statement_timeout') AS st,
                current_setting('idle_in_transaction_session_timeout') AS it,
                current_schema() AS sp`,
      );
      expect(rows[0]).toEqual({ st: '1234ms', it: '2345ms', sp: schema.name });
    } finally {
      await pool.end();
      await schema.drop();
    }
  });

  it("keeps the connection string's own options beside ours (a string with `options` once dropped the search_path)", async () => {
    const schema = await createTempSchema({ create: true });
    const url = `${TEST_DATABASE_URL}${TEST_DATABASE_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent('-c synchronous_commit=off')}`;
    const { pool } = createPool({ ...poolOptions(schema.name), connectionString: url });
    try {
      const { rows } = await pool.query<{ sc: string; st: string; sp: string }>(
        `SELECT current_setting('synchronous_commit') AS sc, current_setting('statement_timeout') AS st,
                current_schema() AS sp`,
      );
      expect(rows[0]).toEqual({ sc: 'off', st: '1234ms', sp: schema.name });
    } finally {
      await pool.end();
      await schema.drop();
    }
  });

  it('a store opened with such a string migrates in its own schema', async () => {
    const schema = await createTempSchema();
    const url = `${TEST_DATABASE_URL}${TEST_DATABASE_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent('-c synchronous_commit=off')}`;
    const store = await openPostgresStore({ connectionString: url, schema: schema.name, poolMax: 1 });
    try {
      const { rows } = await adminQuery<{ n: string }>(
        "SELECT count(*) AS n FROM pg_tables WHERE schemaname = $1 AND tablename = 'mdstore_migrations'",
        [schema.name],
      );
      expect(rows[0]!.n).toBe('1');
    } finally {
      await store.close();
      await schema.drop();
    }
  });

  it('merges startup options: theirs first, ours after, the parameter taken out of the string', () => {
    expect(mergeStartupOptions('postgres://u@h/db', '-c a=1')).toEqual({
      connectionString: 'postgres://u@h/db',
      options: '-c a=1',
    });
    expect(
      mergeStartupOptions('postgres://u:p%40s@h:5/db?options=-c%20b%3D2&sslmode=disable', '-c a=1'),
    ).toEqual({
      connectionString: 'postgres://u:p%40s@h:5/db?sslmode=disable',
      options: '-c b=2 -c a=1',
    });
    expect(mergeStartupOptions('postgres://u@h/db?options=-c%20b%3D2', undefined)).toEqual({
      connectionString: 'postgres://u@h/db',
      options: '-c b=2',
    });
    expect(mergeStartupOptions('not a url', undefined)).toEqual({ connectionString: 'not a url' });
  });

  it('keeps the last error of a dropped idle connection instead of crashing, then reconnects', async () => {
    const schema = await createTempSchema({ create: true });
    const managed = createPool(poolOptions(schema.name));
    try {
      const { rows } = await managed.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const errored = new Promise((resolve) => managed.pool.once('error', resolve));
      await adminQuery('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      await errored;
      expect(managed.lastError()).toBeInstanceOf(Error);
      const again = await managed.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      expect(again.rows[0]!.pid).not.toBe(rows[0]!.pid);
    } finally {
      await managed.pool.end();
      await schema.drop();
    }
  });
});
