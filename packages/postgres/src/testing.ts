import pg from 'pg';
import { assertSchemaName } from './pool.js';

/**
 * For test suites that open many stores: empties a migrated schema so that it can be handed out again as
 * if it were fresh (migrated and empty). Every table but the migrations' own is emptied by `DELETE`, with
 * foreign keys and triggers off for that one transaction (`session_replication_role = replica`, which
 * needs a superuser, as the test database's `postgres` is), and every sequence restarts. `TRUNCATE` does
 * the same far more slowly: it makes and syncs new files for every table and index (measured on a loaded
 * 2-core machine: 0.9–1.6 s against 15–40 ms, and 1.8 s to migrate a fresh schema). Past 5 s waiting for
 * a lock (a connection a test left open) it throws, and the caller should drop the schema instead.
 */
export async function emptySchema(connectionString: string, schemaName: string): Promise<void> {
  const schema = assertSchemaName(schemaName);
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 3_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; kind: 'table' | 'sequence' }>(
      `SELECT tablename AS name, 'table' AS kind FROM pg_tables
         WHERE schemaname = $1 AND tablename <> 'mdstore_migrations'
       UNION ALL SELECT sequencename, 'sequence' FROM pg_sequences WHERE schemaname = $1`,
      [schema],
    );
    const quoted = (name: string) => `"${schema}"."${name.replaceAll('"', '""')}"`;
    const statements = rows.map((row) =>
      row.kind === 'table'
        ? `DELETE FROM ${quoted(row.name)};`
        : `SELECT setval('${quoted(row.name).replaceAll("'", "''")}', 1, false);`,
    );
    await client.query(
      `SET lock_timeout = 5000; BEGIN; SET LOCAL session_replication_role = replica; ${statements.join(' ')} COMMIT`,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * `connectionString` with `synchronous_commit` off for its sessions: for test suites that prove behaviour,
 * not that Postgres survives a power cut, so that a commit does not wait for the WAL to reach the disk.
 * (A SIGKILL of the process under test loses nothing either way: Postgres itself keeps running.)
 */
export const withoutSynchronousCommit = (connectionString: string): string =>
  `${connectionString}${connectionString.includes('?') ? '&' : '?'}options=${encodeURIComponent('-c synchronous_commit=off')}`;
