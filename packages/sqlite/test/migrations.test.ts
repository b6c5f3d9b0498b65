import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ARCHIVE_TABLES, RECORD_TABLES, UNARCHIVED_TABLES } from '@mdstore/sql';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrateSqlite, openSqliteStore, SQLITE_SCHEMA_VERSION } from '../src/index.js';
import { applyMigrations } from '../src/migrations.js';
import { MIGRATIONS } from '../src/schema.js';
import { tempDatabase } from './temp-db.js';

const TABLES = [
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
  'projects',
  'rate_limits',
  'schedule_slots',
  'search_chunks',
  'search_fts',
  'search_fts_config',
  'search_fts_data',
  'search_fts_docsize',
  'search_fts_idx',
  'search_texts',
  'shares',
  'store_secrets',
  'trash_items',
  'vector_lists',
  'webhook_deliveries',
  'webhooks',
];

let database: Awaited<ReturnType<typeof tempDatabase>>;
beforeEach(async () => {
  database = await tempDatabase();
});
afterEach(async () => {
  await database.remove();
});

const withDb = <T>(use: (db: Database.Database) => T): T => {
  const db = new Database(database.path);
  try {
    return use(db);
  } finally {
    db.close();
  }
};
const userVersion = () => withDb((db) => Number(db.pragma('user_version', { simple: true })));
const tableNames = () =>
  withDb((db) =>
    db
      .prepare<[], { name: string }>("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
      .all()
      .map((row) => row.name),
  );

describe('migrations', () => {
  it('gives every record table exactly the columns of the shared column description', async () => {
    const store = await openSqliteStore({ path: database.path });
    await store.close();
    withDb((db) => {
      for (const table of RECORD_TABLES) {
        const columns = db
          .prepare<[string], { name: string }>('SELECT name FROM pragma_table_info(?)')
          .all(table.name)
          .map((row) => row.name)
          .sort();
        expect(columns, table.name).toEqual(table.columns.map((column) => column.name).sort());
      }
    });
  });

  it('puts every table in a backup or names it as left out, and backs up exactly its columns (extensions §16)', async () => {
    const store = await openSqliteStore({ path: database.path });
    await store.close();
    // FTS5's own tables (search_fts_data, …) belong to search_fts.
    const tables = tableNames().filter((name) => !name.startsWith('search_fts_'));
    expect(tables).toEqual(
      [
        ...ARCHIVE_TABLES.map((table) => table.name),
        ...UNARCHIVED_TABLES.filter((name) => tables.includes(name)),
      ].sort(),
    );
    withDb((db) => {
      for (const table of ARCHIVE_TABLES) {
        const columns = db
          .prepare<[string], { name: string; type: string }>('SELECT name, type FROM pragma_table_info(?)')
          .all(table.name)
          .map((row) => `${row.name} ${row.type}`)
          .sort();
        const sqliteType = { text: 'TEXT', integer: 'INTEGER', boolean: 'INTEGER', bytes: 'BLOB' } as const;
        expect(columns, table.name).toEqual(
          table.columns.map((column) => `${column.name} ${sqliteType[column.type]}`).sort(),
        );
      }
    });
  });

  it('version 2 gives every existing file its revision row at its stored revision, content where it was', async () => {
    await withDbAsync((db) =>
      applyMigrations(db, { busyTimeoutMs: 1_000, migrations: MIGRATIONS.slice(0, 1) }),
    );
    withDb((db) => {
      db.exec(`INSERT INTO accounts VALUES ('a1', 'acme', 'standard', 1);
        INSERT INTO projects VALUES ('p1', 'a1', 'docs', NULL, 'mdstore-p1', 0, 'active', 2, 30, 1, 9);
        INSERT INTO files VALUES ('f1', 'p1', 'a.md', 10, '${'a'.repeat(64)}', '{"k":1}', 'f1/b1', 1, 2, 3);
        INSERT INTO files VALUES ('f2', 'p1', 'b.md', 20, '${'b'.repeat(64)}', NULL, 'f2/b2', 7, 4, 8);`);
    });
    const store = await openSqliteStore({ path: database.path });
    try {
      const second = await store.records.findFile({ projectId: 'p1', filename: 'b.md' });
      expect(second).toMatchObject({
        contentKey: 'f2/b2',
        inline: false,
        revision: 7,
        frontmatterJson: null,
      });
      expect(await store.records.listRevisionContents({ fileId: 'f2' })).toEqual([
        { revision: 7, contentKey: 'f2/b2', inline: false, sizeBytes: 20, createdAt: expect.any(Number) },
      ]);
      expect(await store.records.findRevision({ fileId: 'f1', revision: 1 })).toMatchObject({
        change: 'created',
        metadataJson: '{"k":1}',
        sha256: 'a'.repeat(64),
        createdAt: 3,
      });
      expect(await store.records.isBlobReferenced({ bucket: 'mdstore-p1', key: 'f1/b1' })).toBe(true);
      expect(await store.records.findProjectById({ projectId: 'p1' })).toMatchObject({
        fileCount: 2,
        totalSizeBytes: 30,
        historySizeBytes: 0,
        keepRevisions: 20,
        requireIfMatch: false,
        trashRetentionDays: 0,
      });
      // Version 3 (search) indexes nothing by itself: the start-up backfill reads these files.
      expect((await store.records.listUnindexedFiles({ limit: 10 })).map((file) => file.id)).toEqual([
        'f1',
        'f2',
      ]);
    } finally {
      await store.close();
    }
  });

  it('version 6 makes every existing key an admin key of the whole account, never expiring', async () => {
    await withDbAsync((db) =>
      applyMigrations(db, { busyTimeoutMs: 1_000, migrations: MIGRATIONS.slice(0, 5) }),
    );
    withDb((db) => {
      db.exec(`INSERT INTO accounts VALUES ('a1', 'acme', 'standard', 1);
        INSERT INTO api_keys VALUES ('k1', 'a1', '${'c'.repeat(64)}', 2, NULL);`);
    });
    const store = await openSqliteStore({ path: database.path });
    try {
      expect(await store.records.findApiKeyById({ keyId: 'k1' })).toEqual({
        id: 'k1',
        accountId: 'a1',
        keyHash: 'c'.repeat(64),
        name: '',
        role: 'admin',
        projectIds: null,
        pathPrefixes: null,
        expiresAt: null,
        createdAt: 2,
        revokedAt: null,
        lastUsedAt: null,
      });
    } finally {
      await store.close();
    }
  });

  it('version 15 gives existing projects keep_revisions_days 0 and existing revisions no recorded name', async () => {
    await withDbAsync((db) =>
      applyMigrations(db, { busyTimeoutMs: 1_000, migrations: MIGRATIONS.slice(0, 1) }),
    );
    withDb((db) => {
      db.exec(`INSERT INTO accounts VALUES ('a1', 'acme', 'standard', 1);
        INSERT INTO projects VALUES ('p1', 'a1', 'docs', NULL, 'mdstore-p1', 0, 'active', 1, 10, 1, 9);
        INSERT INTO files VALUES ('f1', 'p1', 'a.md', 10, '${'a'.repeat(64)}', NULL, 'f1/b1', 3, 2, 3);`);
    });
    await withDbAsync((db) =>
      applyMigrations(db, { busyTimeoutMs: 1_000, migrations: MIGRATIONS.slice(0, 14) }),
    );
    const store = await openSqliteStore({ path: database.path });
    try {
      expect((await store.records.findProjectById({ projectId: 'p1' }))?.keepRevisionsDays).toBe(0);
      expect(await store.records.findRevision({ fileId: 'f1', revision: 3 })).toMatchObject({
        filename: null,
        createdAt: 3,
      });
    } finally {
      await store.close();
    }
  });

  it('version 13 rebuilds api_keys for the propose role: every key and column kept, unique hash kept', async () => {
    await withDbAsync((db) =>
      applyMigrations(db, { busyTimeoutMs: 1_000, migrations: MIGRATIONS.slice(0, 12) }),
    );
    withDb((db) => {
      db.exec(`INSERT INTO accounts VALUES ('a1', 'acme', 'standard', 1);
        INSERT INTO api_keys (id, account_id, key_hash, created_at, revoked_at, name, role, project_ids_json,
          expires_at, last_used_at) VALUES ('k1', 'a1', '${'c'.repeat(64)}', 2, 5, 'ci', 'read', '["p1"]', 9, 4);`);
      expect(() =>
        db.exec(`INSERT INTO api_keys (id, account_id, key_hash, created_at, role)
          VALUES ('k2', 'a1', '${'d'.repeat(64)}', 3, 'propose')`),
      ).toThrow(/CHECK/);
    });
    const store = await openSqliteStore({ path: database.path });
    try {
      expect(await store.records.findApiKeyById({ keyId: 'k1' })).toEqual({
        id: 'k1',
        accountId: 'a1',
        keyHash: 'c'.repeat(64),
        name: 'ci',
        role: 'read',
        projectIds: ['p1'],
        pathPrefixes: null,
        expiresAt: 9,
        createdAt: 2,
        revokedAt: 5,
        lastUsedAt: 4,
      });
      const proposer = {
        ...(await store.records.findApiKeyById({ keyId: 'k1' }))!,
        id: 'k2',
        role: 'propose' as const,
      };
      await store.records.withTransaction((tx) =>
        tx.insertApiKey({ apiKey: { ...proposer, keyHash: 'd'.repeat(64) } }),
      );
      expect((await store.records.findApiKeyById({ keyId: 'k2' }))?.role).toBe('propose');
      await expect(
        store.records.withTransaction((tx) => tx.insertApiKey({ apiKey: { ...proposer, id: 'k3' } })),
      ).rejects.toThrow();
    } finally {
      await store.close();
    }
  });

  it('the latest version is the last migration', () => {
    expect(SQLITE_SCHEMA_VERSION).toBe(MIGRATIONS.at(-1)!.version);
    const versions = MIGRATIONS.map((migration) => migration.version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(SQLITE_SCHEMA_VERSION).toBeGreaterThanOrEqual(1);
  });

  it('a fresh database gets every migration, in WAL mode', async () => {
    const report = await migrateSqlite({ path: database.path });
    expect(report).toEqual({
      fromVersion: 0,
      toVersion: SQLITE_SCHEMA_VERSION,
      applied: MIGRATIONS.map((migration) => migration.version),
    });
    expect(userVersion()).toBe(SQLITE_SCHEMA_VERSION);
    expect(tableNames()).toEqual(TABLES);
    expect(withDb((db) => db.pragma('journal_mode', { simple: true }))).toBe('wal');
  });

  it('reopening applies nothing new and keeps the data', async () => {
    const store = await openSqliteStore({ path: database.path });
    await store.records.withTransaction((tx) =>
      tx.insertAccount({ account: { id: 'a1', name: 'acme', tier: 'standard', createdAt: 1 } }),
    );
    await store.close();
    expect(await migrateSqlite({ path: database.path })).toEqual({
      fromVersion: SQLITE_SCHEMA_VERSION,
      toVersion: SQLITE_SCHEMA_VERSION,
      applied: [],
    });
    const again = await openSqliteStore({ path: database.path });
    expect(await again.records.listAccounts()).toHaveLength(1);
    await again.close();
  });

  it('applies only the migrations newer than the database', async () => {
    await migrateSqlite({ path: database.path });
    const next = {
      version: SQLITE_SCHEMA_VERSION + 1,
      description: 'test',
      sql: 'CREATE TABLE extra (x INTEGER)',
    };
    const report = withDbAsync((db) =>
      applyMigrations(db, { busyTimeoutMs: 1_000, migrations: [...MIGRATIONS, next] }),
    );
    expect(await report).toEqual({
      fromVersion: SQLITE_SCHEMA_VERSION,
      toVersion: next.version,
      applied: [next.version],
    });
    expect(tableNames()).toContain('extra');
  });

  it('rolls back a failing migration whole: no half schema, version unchanged', async () => {
    await migrateSqlite({ path: database.path });
    const broken = {
      version: SQLITE_SCHEMA_VERSION + 1,
      description: 'broken',
      sql: 'CREATE TABLE half_done (x INTEGER); CREATE TABLE accounts (x INTEGER);',
    };
    await expect(
      withDbAsync((db) => applyMigrations(db, { busyTimeoutMs: 1_000, migrations: [...MIGRATIONS, broken] })),
    ).rejects.toThrow(/already exists/);
    expect(userVersion()).toBe(SQLITE_SCHEMA_VERSION);
    expect(tableNames()).not.toContain('half_done');
  });

  it('refuses a database written by a newer schema', async () => {
    await migrateSqlite({ path: database.path });
    withDb((db) => db.pragma(`user_version = ${SQLITE_SCHEMA_VERSION + 1}`));
    await expect(openSqliteStore({ path: database.path })).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
    });
  });

  it('is safe when several processes open a fresh file at once', async () => {
    const script = fileURLToPath(new URL('./fixtures/open-and-insert.ts', import.meta.url));
    const run = promisify(execFile);
    const processes = Array.from({ length: 4 }, (_, index) =>
      run(
        process.execPath,
        ['--conditions=mdstore-source', '--import', 'tsx', script, database.path, `p${index}`],
        {
          cwd: fileURLToPath(new URL('..', import.meta.url)),
        },
      ),
    );
    const outputs = await Promise.all(processes);
    const applied = outputs.map(({ stdout }) => JSON.parse(stdout) as { applied: number[] });
    // Exactly one process created the schema; the others found it done.
    expect(applied.filter((report) => report.applied.length > 0)).toHaveLength(1);
    expect(userVersion()).toBe(SQLITE_SCHEMA_VERSION);
    const names = withDb((db) =>
      db.prepare<[], { name: string }>('SELECT name FROM accounts ORDER BY name').all(),
    );
    expect(names.map((row) => row.name)).toEqual(['p0', 'p1', 'p2', 'p3']);
  }, 60_000);
});

async function withDbAsync<T>(use: (db: Database.Database) => Promise<T>): Promise<T> {
  const db = new Database(database.path);
  try {
    return await use(db);
  } finally {
    db.close();
  }
}
