import { ARCHIVE_TABLES, RECORD_TABLES, UNARCHIVED_TABLES } from '@mdstore/sql';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../src/index.js';
import { MIGRATION_LOCK_KEY } from '../src/migrations.js';
import { aFile, anAccount, aProject, useStores } from './support/fixtures.js';
import { adminQuery, skipPostgres, TEST_DATABASE_URL } from './support/pg-available.js';

const migrationRows = (schema: string) =>
  adminQuery<{ version: number; n: string }>(
    `SELECT version, count(*) AS n FROM ${schema}.mdstore_migrations GROUP BY version ORDER BY version`,
  );

describe.skipIf(skipPostgres)('postgres migrations', () => {
  const { open, newSchema } = useStores();

  it('creates the missing schema and every table in it', async () => {
    const schema = await newSchema();
    await open({ schema });
    const { rows } = await adminQuery<{ table_name: string }>(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
      [schema],
    );
    expect(rows.map((row) => row.table_name)).toEqual([
      'accounts',
      'api_keys',
      'attachments',
      'audit_entries',
      'blob_intents',
      'change_events',
      'change_feed_heads',
      'draft_files',
      'draft_reviews',
      'drafts',
      'embedding_cursors',
      'file_links',
      'file_revisions',
      'files',
      'inline_contents',
      'instances',
      'links',
      'mdstore_migrations',
      'projects',
      'rate_limits',
      'schedule_slots',
      'search_chunks',
      'search_documents',
      'search_words',
      'shares',
      'store_secrets',
      'trash_items',
      'vector_lists',
      'webhook_deliveries',
      'webhooks',
    ]);
  });

  it('has exactly the columns of the shared column description in every record table', async () => {
    const schema = await newSchema();
    await open({ schema });
    for (const table of RECORD_TABLES) {
      const { rows } = await adminQuery<{ column_name: string }>(
        'SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2',
        [schema, table.name],
      );
      const columns = rows.map((row) => row.column_name).sort();
      expect(columns, table.name).toEqual(table.columns.map((column) => column.name).sort());
    }
  });

  it('puts every table in a backup or names it as left out, and backs up exactly its columns (extensions §16)', async () => {
    const schema = await newSchema();
    await open({ schema });
    const { rows: tables } = await adminQuery<{ table_name: string }>(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = $1',
      [schema],
    );
    const names = tables.map((row) => row.table_name);
    expect(names.sort()).toEqual(
      [
        ...ARCHIVE_TABLES.map((table) => table.name),
        ...UNARCHIVED_TABLES.filter((name) => names.includes(name)),
      ].sort(),
    );
    const postgresType = {
      text: ['text'],
      integer: ['bigint', 'integer'],
      boolean: ['boolean'],
      bytes: ['bytea'],
    } as const;
    for (const table of ARCHIVE_TABLES) {
      const { rows } = await adminQuery<{ column_name: string; data_type: string }>(
        'SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2',
        [schema, table.name],
      );
      expect(rows.map((row) => row.column_name).sort(), table.name).toEqual(
        table.columns.map((column) => column.name).sort(),
      );
      for (const row of rows) {
        const column = table.columns.find((c) => c.name === row.column_name)!;
        expect(postgresType[column.type] as readonly string[], `${table.name}.${row.column_name}`).toContain(
          row.data_type,
        );
      }
    }
  });

  it('opens an existing schema as a role that may not create schemas in the database', async () => {
    const schema = await newSchema();
    const role = `${schema}_app`;
    await adminQuery(`CREATE SCHEMA ${schema}`);
    await adminQuery(`CREATE ROLE ${role} LOGIN`);
    try {
      await adminQuery(`GRANT USAGE, CREATE ON SCHEMA ${schema} TO ${role}`);
      const url = new URL(TEST_DATABASE_URL);
      url.username = role;
      const store = await open({ schema, connectionString: url.toString() });
      await expect(store.records.listAccounts()).resolves.toEqual([]);
      await store.close();
    } finally {
      await adminQuery(`DROP OWNED BY ${role} CASCADE`);
      await adminQuery(`DROP ROLE ${role}`);
    }
  });

  it('version 6: a key written with the columns of before is admin of the whole account, never expiring', async () => {
    const schema = await newSchema();
    const store = await open({ schema });
    await adminQuery(
      `INSERT INTO ${schema}.accounts (id, name, tier, created_at) VALUES ('a1', 'acme', 'standard', 1)`,
    );
    await adminQuery(
      `INSERT INTO ${schema}.api_keys (id, account_id, key_hash, created_at, revoked_at) VALUES ('k1', 'a1', 'h1', 2, NULL)`,
    );
    await expect(store.records.findApiKeyById({ keyId: 'k1' })).resolves.toEqual({
      id: 'k1',
      accountId: 'a1',
      keyHash: 'h1',
      name: '',
      role: 'admin',
      projectIds: null,
      pathPrefixes: null,
      expiresAt: null,
      createdAt: 2,
      revokedAt: null,
      lastUsedAt: null,
    });
  });

  it('version 17: the word list is filled from the documents indexed before, with their counts', async () => {
    const schema = await newSchema();
    const store = await open({ schema });
    const account = anAccount();
    const project = aProject({ accountId: account.id });
    const files = ['loam lob', 'lob lot'].map((text) => ({ file: aFile({ projectId: project.id }), text }));
    await store.records.withTransaction(async (tx) => {
      await tx.insertAccount({ account });
      await tx.insertProject({ project });
      for (const { file, text } of files) {
        await tx.insertFile({ file });
        await tx.indexFile({ file, contentText: text });
      }
    });
    // The schema as version 16 left it: documents indexed, no word list.
    await store.close();
    await adminQuery(`DROP TABLE ${schema}.search_words`);
    await adminQuery(`DELETE FROM ${schema}.mdstore_migrations WHERE version = 17`);
    const again = await open({ schema });
    await expect(again.records.expandSearchPrefix({ word: 'lo', limit: 10 })).resolves.toEqual([
      'loam',
      'lob',
      'lot',
    ]);
    const { rows } = await adminQuery<{ word: string; documents: number }>(
      `SELECT word, documents FROM ${schema}.search_words WHERE word LIKE 'gmgp%' ORDER BY word`,
    );
    // `lob` is in both documents: one delete leaves it listed.
    expect(rows.map((row) => row.documents)).toEqual([1, 2, 1]);
    await again.records.withTransaction((tx) => tx.deleteFile({ fileId: files[0]!.file.id }));
    await expect(again.records.expandSearchPrefix({ word: 'lo', limit: 10 })).resolves.toEqual([
      'lob',
      'lot',
    ]);
  });

  it('migrates exactly once when four instances start together on a fresh schema', async () => {
    const schema = await newSchema();
    const stores = await Promise.all([1, 2, 3, 4].map(() => open({ schema, poolMax: 1 })));
    expect(stores).toHaveLength(4);
    const { rows } = await migrationRows(schema);
    expect(rows).toEqual(MIGRATIONS.map((m) => ({ version: m.version, n: '1' })));
    // Every store works on the shared tables.
    for (const store of stores) await expect(store.records.listAccounts()).resolves.toEqual([]);
  });

  it('an up-to-date schema opens without waiting for the database-wide migration lock', async () => {
    const schema = await newSchema();
    await open({ schema });
    // Another instance migrating another schema holds the lock.
    const holder = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      // A store whose every statement may take 1 s: its migration check must not queue for the lock.
      const store = await open({ schema, statementTimeoutMs: 1_000 });
      expect(store.records).toBeDefined();
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
    }
  });

  it('applies nothing again on reopen and keeps the data', async () => {
    const schema = await newSchema();
    const first = await open({ schema });
    await first.records.withTransaction((tx) =>
      tx.insertAccount({ account: { id: 'a1', name: 'alpha', tier: 'premium', createdAt: 1 } }),
    );
    await first.close();
    const second = await open({ schema });
    await expect(second.records.findAccountById({ accountId: 'a1' })).resolves.toMatchObject({
      name: 'alpha',
    });
    const { rows } = await migrationRows(schema);
    expect(rows).toHaveLength(MIGRATIONS.length);
  });

  it('declares names and filenames COLLATE "C" and the partial unique index on active projects', async () => {
    const schema = await newSchema();
    await open({ schema });
    const { rows } = await adminQuery<{ table_name: string; column_name: string; collation_name: string }>(
      `SELECT table_name, column_name, collation_name FROM information_schema.columns
        WHERE table_schema = $1 AND column_name IN ('name', 'filename')
          AND table_name <> 'mdstore_migrations' ORDER BY table_name, column_name`,
      [schema],
    );
    expect(rows).toEqual([
      { table_name: 'accounts', column_name: 'name', collation_name: 'C' },
      { table_name: 'api_keys', column_name: 'name', collation_name: 'C' },
      { table_name: 'audit_entries', column_name: 'filename', collation_name: 'C' },
      { table_name: 'change_events', column_name: 'filename', collation_name: 'C' },
      { table_name: 'draft_files', column_name: 'filename', collation_name: 'C' },
      { table_name: 'file_revisions', column_name: 'filename', collation_name: 'C' },
      { table_name: 'files', column_name: 'filename', collation_name: 'C' },
      { table_name: 'projects', column_name: 'name', collation_name: 'C' },
      { table_name: 'search_chunks', column_name: 'filename', collation_name: 'C' },
      { table_name: 'shares', column_name: 'filename', collation_name: 'C' },
      { table_name: 'store_secrets', column_name: 'name', collation_name: 'C' },
      { table_name: 'trash_items', column_name: 'filename', collation_name: 'C' },
    ]);
    const index = await adminQuery<{ indexdef: string }>(
      `SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'projects_active_name_key'`,
      [schema],
    );
    expect(index.rows[0]?.indexdef).toMatch(
      /UNIQUE INDEX .*\(account_id, name\) WHERE \(status = 'active'::text\)/,
    );
  });

  it('parses int8 as a number on its own pool only, leaving the global pg parser alone', async () => {
    const store = await open();
    await store.records.withTransaction((tx) =>
      tx.insertAccount({ account: { id: 'a1', name: 'n', tier: 'standard', createdAt: 1_700_000_000_123 } }),
    );
    const account = await store.records.findAccountById({ accountId: 'a1' });
    expect(account?.createdAt).toBe(1_700_000_000_123);
    expect(pg.types.getTypeParser(20, 'text')('42')).toBe('42');
  });
});
