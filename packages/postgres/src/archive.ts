import type { RecordsArchive } from '@mdstore/core';
import { type ArchiveEngine, type SqlExecutor, sqlArchive } from '@mdstore/sql';
import type pg from 'pg';
import { POSTGRES_DIALECT } from './dialect.js';
import { translateError } from './errors.js';
import { postgresExecutor, type Query } from './executor.js';
import { MIGRATIONS } from './migrations.js';

/** The schema version this code writes and expects (its last migration). */
export const POSTGRES_SCHEMA_VERSION: number = MIGRATIONS.at(-1)?.version ?? 0;

const clientQuery =
  (client: pg.PoolClient): Query =>
  async (text, values) => {
    try {
      return await client.query(text, values);
    } catch (error) {
      throw translateError(error);
    }
  };

/**
 * Runs `work` on a client of its own inside `begin … COMMIT`; rolls back (and drops a client whose
 * connection failed) on any error. The pool's timeouts are lifted for the transaction: a snapshot is held
 * while a backup writes its files, and a restore's page may be large.
 */
async function onClient<T>(
  pool: pg.Pool,
  begin: string,
  work: (x: SqlExecutor, client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect().catch((error: unknown) => {
    throw translateError(error);
  });
  try {
    await client.query(begin);
    await client.query('SET LOCAL idle_in_transaction_session_timeout = 0');
    await client.query('SET LOCAL statement_timeout = 0');
    return await work(postgresExecutor(clientQuery(client)), client);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release(error instanceof Error ? error : true);
    throw translateError(error);
  }
}

/**
 * The archive of a Postgres store (extensions §16): a snapshot is a `REPEATABLE READ READ ONLY`
 * transaction on a client of the pool (its snapshot is taken by its first query, before `openSnapshot`
 * resolves; it blocks no writer); each page of a restore is one transaction.
 */
export function postgresArchive(pool: pg.Pool, query: Query): RecordsArchive {
  const engine: ArchiveEngine = {
    dialect: POSTGRES_DIALECT,
    schemaVersion: POSTGRES_SCHEMA_VERSION,
    binary: (column) => `${column} COLLATE "C"`,
    reader: postgresExecutor(query),
    async openSnapshot() {
      let held: { client: pg.PoolClient; executor: SqlExecutor } | undefined;
      await onClient(pool, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', async (executor, client) => {
        await client.query('SELECT 1 FROM mdstore_migrations LIMIT 1');
        held = { client, executor };
      });
      const { client, executor } = held!;
      let closed = false;
      return {
        executor,
        async close() {
          if (closed) return;
          closed = true;
          try {
            await client.query('COMMIT');
            client.release();
          } catch (error) {
            client.release(error instanceof Error ? error : true);
          }
        },
      };
    },
    write: (work) =>
      onClient(pool, 'BEGIN', async (executor, client) => {
        const result = await work(executor);
        await client.query('COMMIT');
        client.release();
        return result;
      }),
  };
  return sqlArchive(engine);
}
