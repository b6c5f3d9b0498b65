import { describe, expect, it } from 'vitest';
import { createPool } from '../src/pool.js';
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
