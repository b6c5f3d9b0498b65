import type pg from 'pg';
import { quoteIdentifier } from './pool.js';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/**
 * Append-only: never edit an applied migration, add a new version instead.
 *
 * - Names, filenames and ids are `COLLATE "C"`: byte order, which for UTF-8 is Unicode code point order,
 *   the order the records port promises, whatever the database's default collation. Every column that is
 *   compared with another one has the same collation, so joins never mix collations.
 * - Times are BIGINT epoch milliseconds, so they read back exactly as written (no timestamptz rounding).
 * - Metadata is TEXT, not JSONB: the JSON must read back byte for byte (JSONB reorders keys).
 * - No foreign keys: the port's only integrity rules are its unique rules, and every adapter must accept
 *   the same writes; the domain keeps references consistent.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial',
    sql: `
      CREATE TABLE accounts (
        id TEXT COLLATE "C" PRIMARY KEY,
        name TEXT COLLATE "C" NOT NULL,
        tier TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        CONSTRAINT accounts_name_key UNIQUE (name)
      );
      CREATE INDEX accounts_created_idx ON accounts (created_at, id);

      CREATE TABLE api_keys (
        id TEXT COLLATE "C" PRIMARY KEY,
        account_id TEXT COLLATE "C" NOT NULL,
        key_hash TEXT COLLATE "C" NOT NULL,
        created_at BIGINT NOT NULL,
        revoked_at BIGINT,
        CONSTRAINT api_keys_key_hash_key UNIQUE (key_hash)
      );
      CREATE INDEX api_keys_account_idx ON api_keys (account_id, created_at, id);

      CREATE TABLE projects (
        id TEXT COLLATE "C" PRIMARY KEY,
        account_id TEXT COLLATE "C" NOT NULL,
        name TEXT COLLATE "C" NOT NULL,
        description TEXT,
        bucket_name TEXT COLLATE "C" NOT NULL,
        is_default BOOLEAN NOT NULL,
        status TEXT NOT NULL,
        file_count BIGINT NOT NULL,
        total_size_bytes BIGINT NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      -- Names are unique among an account's active projects only: deleted ones free their name.
      CREATE UNIQUE INDEX projects_active_name_key ON projects (account_id, name) WHERE status = 'active';
      CREATE INDEX projects_account_idx ON projects (account_id, created_at, id);
      CREATE INDEX projects_status_idx ON projects (status, created_at, id);
      CREATE INDEX projects_bucket_idx ON projects (bucket_name);

      CREATE TABLE files (
        id TEXT COLLATE "C" PRIMARY KEY,
        project_id TEXT COLLATE "C" NOT NULL,
        filename TEXT COLLATE "C" NOT NULL,
        size_bytes BIGINT NOT NULL,
        sha256 TEXT NOT NULL,
        metadata_json TEXT,
        blob_key TEXT COLLATE "C" NOT NULL,
        revision INTEGER NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        CONSTRAINT files_project_filename_key UNIQUE (project_id, filename)
      );
      CREATE INDEX files_project_blob_key_idx ON files (project_id, blob_key);

      CREATE TABLE blob_intents (
        id TEXT COLLATE "C" PRIMARY KEY,
        kind TEXT NOT NULL,
        bucket TEXT COLLATE "C" NOT NULL,
        key TEXT COLLATE "C",
        owner_instance_id TEXT COLLATE "C" NOT NULL,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
      );

      CREATE TABLE instances (
        id TEXT COLLATE "C" PRIMARY KEY,
        hostname TEXT NOT NULL,
        pid INTEGER NOT NULL,
        started_at BIGINT NOT NULL,
        heartbeat_at BIGINT NOT NULL
      );

      CREATE TABLE rate_limits (
        key TEXT COLLATE "C" PRIMARY KEY,
        used INTEGER NOT NULL,
        window_ends_at BIGINT NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: 'revisions, inline content, project settings and storage counters',
    // Every file gets a revision row for its current state, at its stored revision number; its content
    // stays where it is (the blob store), only the column is renamed.
    sql: `
      ALTER TABLE projects
        ADD COLUMN history_size_bytes BIGINT NOT NULL DEFAULT 0,
        ADD COLUMN trash_size_bytes BIGINT NOT NULL DEFAULT 0,
        ADD COLUMN require_if_match BOOLEAN NOT NULL DEFAULT FALSE,
        ADD COLUMN keep_revisions INTEGER NOT NULL DEFAULT 20,
        ADD COLUMN trash_retention_days INTEGER NOT NULL DEFAULT 0;

      ALTER TABLE files RENAME COLUMN blob_key TO content_key;
      DROP INDEX files_project_blob_key_idx;
      ALTER TABLE files
        ADD COLUMN inline BOOLEAN NOT NULL DEFAULT FALSE,
        ADD COLUMN frontmatter_json TEXT;

      CREATE TABLE file_revisions (
        file_id TEXT COLLATE "C" NOT NULL,
        revision INTEGER NOT NULL,
        project_id TEXT COLLATE "C" NOT NULL,
        size_bytes BIGINT NOT NULL,
        sha256 TEXT NOT NULL,
        metadata_json TEXT,
        change TEXT NOT NULL,
        content_key TEXT COLLATE "C" NOT NULL,
        inline BOOLEAN NOT NULL,
        created_at BIGINT NOT NULL,
        PRIMARY KEY (file_id, revision)
      );
      CREATE INDEX file_revisions_content_idx ON file_revisions (project_id, content_key);
      INSERT INTO file_revisions (file_id, revision, project_id, size_bytes, sha256, metadata_json, change,
        content_key, inline, created_at)
      SELECT id, revision, project_id, size_bytes, sha256, metadata_json,
        CASE WHEN revision = 1 THEN 'created' ELSE 'content' END, content_key, FALSE, updated_at
      FROM files;

      CREATE TABLE inline_contents (
        project_id TEXT COLLATE "C" NOT NULL,
        content_key TEXT COLLATE "C" NOT NULL,
        bytes BYTEA NOT NULL,
        PRIMARY KEY (project_id, content_key)
      );
    `,
  },
  {
    version: 3,
    name: 'indexes of the paged file lists',
    // One index per sort of List Files, each ending in the tie-break `filename`, so that a keyset page is
    // a range scan of `limit` rows (forwards or backwards); `filename` order uses the unique key.
    sql: `
      CREATE INDEX files_created_order_idx ON files (project_id, created_at, filename);
      CREATE INDEX files_updated_order_idx ON files (project_id, updated_at, filename);
      CREATE INDEX files_size_order_idx ON files (project_id, size_bytes, filename);
    `,
  },
  {
    version: 4,
    name: 'search index (tsvector + GIN) and indexed texts',
    // One row per indexed file: the text it was indexed with (its content's first 1 MiB; snippets and
    // re-indexing read it) and its words as a tsvector of the core's `ftsTerm` lexemes, built by the
    // adapter (never by a text search configuration). Files stored before are indexed at start-up.
    sql: `
      CREATE TABLE search_documents (
        file_id TEXT COLLATE "C" PRIMARY KEY,
        project_id TEXT COLLATE "C" NOT NULL,
        text TEXT NOT NULL,
        lexemes TSVECTOR NOT NULL
      );
      CREATE INDEX search_documents_project_idx ON search_documents (project_id);
      CREATE INDEX search_documents_lexemes_idx ON search_documents USING GIN (lexemes);
    `,
  },
  {
    version: 5,
    name: 'trash',
    // One row per deleted file kept for trash_retention_days, the file's record copied in; its revisions
    // and inline contents stay in their tables under the same file id.
    sql: `
      CREATE TABLE trash_items (
        id TEXT COLLATE "C" PRIMARY KEY,
        project_id TEXT COLLATE "C" NOT NULL,
        deleted_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        file_id TEXT COLLATE "C" NOT NULL,
        filename TEXT COLLATE "C" NOT NULL,
        size_bytes BIGINT NOT NULL,
        sha256 TEXT NOT NULL,
        metadata_json TEXT,
        frontmatter_json TEXT,
        content_key TEXT COLLATE "C" NOT NULL,
        inline BOOLEAN NOT NULL,
        revision INTEGER NOT NULL,
        file_created_at BIGINT NOT NULL,
        file_updated_at BIGINT NOT NULL
      );
      CREATE INDEX trash_items_listing_idx ON trash_items (project_id, deleted_at, id);
      CREATE INDEX trash_items_expiry_idx ON trash_items (expires_at, id);
    `,
  },
  {
    version: 6,
    name: 'key roles, project scopes, expiry, names and last use; audit log',
    // Extensions §8. Keys made before are `admin` for the whole account (project_ids_json NULL).
    sql: `
      ALTER TABLE api_keys ADD COLUMN name TEXT COLLATE "C" NOT NULL DEFAULT '';
      ALTER TABLE api_keys ADD COLUMN role TEXT NOT NULL DEFAULT 'admin'
        CHECK (role IN ('read', 'write', 'admin'));
      ALTER TABLE api_keys ADD COLUMN project_ids_json TEXT;
      ALTER TABLE api_keys ADD COLUMN expires_at BIGINT;
      ALTER TABLE api_keys ADD COLUMN last_used_at BIGINT;
      CREATE TABLE audit_entries (
        id TEXT COLLATE "C" PRIMARY KEY,
        at BIGINT NOT NULL,
        account_id TEXT COLLATE "C",
        key_id TEXT COLLATE "C",
        action TEXT NOT NULL,
        project_id TEXT COLLATE "C",
        filename TEXT COLLATE "C",
        status INTEGER NOT NULL,
        request_id TEXT,
        ip TEXT
      );
      CREATE INDEX audit_entries_account_idx ON audit_entries (account_id, at, id);
      CREATE INDEX audit_entries_age_idx ON audit_entries (at);
    `,
  },
  {
    version: 7,
    name: 'change feed, feed heads and shared store secrets',
    // Extensions §7 and §3. A head row per account is locked by the writing transaction's upsert until
    // its commit: seq order is commit order per account (docs/architecture.md, "The change feed").
    sql: `
      CREATE TABLE change_events (
        account_id TEXT COLLATE "C" NOT NULL,
        seq BIGINT NOT NULL,
        type TEXT NOT NULL,
        project_id TEXT COLLATE "C" NOT NULL,
        filename TEXT COLLATE "C",
        from_name TEXT COLLATE "C",
        revision BIGINT,
        etag TEXT,
        size_bytes BIGINT,
        sha256 TEXT,
        changeset_id TEXT,
        at BIGINT NOT NULL,
        PRIMARY KEY (account_id, seq)
      );
      CREATE INDEX change_events_age_idx ON change_events (at);
      CREATE TABLE change_feed_heads (
        account_id TEXT COLLATE "C" PRIMARY KEY,
        last_seq BIGINT NOT NULL,
        pruned_through BIGINT NOT NULL
      );
      CREATE TABLE store_secrets (
        name TEXT COLLATE "C" PRIMARY KEY,
        value TEXT NOT NULL
      );
      `,
  },
  {
    version: 8,
    name: 'webhooks and their deliveries log',
    // Extensions §7: the delivery state and lease live on the webhook's row.
    sql: `
      CREATE TABLE webhooks (
        id TEXT COLLATE "C" PRIMARY KEY,
        account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
        url TEXT NOT NULL,
        events_json TEXT NOT NULL,
        project_id TEXT COLLATE "C",
        secret TEXT NOT NULL,
        active BOOLEAN NOT NULL,
        disabled_reason TEXT,
        created_at BIGINT NOT NULL,
        cursor_seq BIGINT,
        attempt INTEGER NOT NULL,
        next_attempt_at BIGINT,
        lease_owner TEXT,
        lease_expires_at BIGINT
      );
      CREATE INDEX webhooks_account_idx ON webhooks (account_id, created_at, id);
      CREATE INDEX webhooks_active_idx ON webhooks (active, id);
      CREATE TABLE webhook_deliveries (
        id TEXT COLLATE "C" PRIMARY KEY,
        webhook_id TEXT COLLATE "C" NOT NULL,
        event_seq BIGINT NOT NULL,
        attempt INTEGER NOT NULL,
        status_code INTEGER,
        error TEXT,
        duration_ms INTEGER NOT NULL,
        at BIGINT NOT NULL
      );
      CREATE INDEX webhook_deliveries_listing_idx ON webhook_deliveries (webhook_id, at, id);
      CREATE INDEX webhook_deliveries_age_idx ON webhook_deliveries (at);
    `,
  },
  {
    version: 9,
    name: 'changeset id and message of revisions',
    // Extensions §9.
    sql: `
      ALTER TABLE file_revisions ADD COLUMN changeset_id TEXT COLLATE "C";
      ALTER TABLE file_revisions ADD COLUMN message TEXT;
    `,
  },
  {
    version: 10,
    name: 'link index',
    // Extensions §9: one entry per file (its name's stem, its headings) and its links, resolved when
    // read by joining with files (late resolution, no rescan).
    sql: `
      CREATE TABLE file_links (
        file_id TEXT COLLATE "C" PRIMARY KEY,
        project_id TEXT COLLATE "C" NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('indexed', 'too_large')),
        stem TEXT COLLATE "C" NOT NULL,
        slugs_json TEXT NOT NULL,
        headings_json TEXT NOT NULL
      );
      CREATE INDEX file_links_stem_idx ON file_links (project_id, stem);
      CREATE TABLE links (
        file_id TEXT COLLATE "C" NOT NULL,
        seq INTEGER NOT NULL,
        project_id TEXT COLLATE "C" NOT NULL,
        line INTEGER NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('markdown', 'wiki')),
        raw TEXT NOT NULL,
        path TEXT COLLATE "C",
        stem TEXT COLLATE "C",
        anchor TEXT,
        start_offset INTEGER,
        end_offset INTEGER,
        PRIMARY KEY (file_id, seq)
      );
      CREATE INDEX links_path_idx ON links (project_id, path);
      CREATE INDEX links_stem_idx ON links (project_id, stem);
    `,
  },
  {
    version: 11,
    name: 'share links',
    // Extensions §11.
    sql: `
      CREATE TABLE shares (
        id TEXT COLLATE "C" PRIMARY KEY,
        account_id TEXT COLLATE "C" NOT NULL,
        project_id TEXT COLLATE "C" NOT NULL,
        filename TEXT COLLATE "C",
        prefix TEXT COLLATE "C",
        token_hash TEXT COLLATE "C" NOT NULL UNIQUE,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        revoked_at BIGINT,
        CHECK ((filename IS NULL) <> (prefix IS NULL))
      );
      CREATE INDEX shares_project_idx ON shares (project_id, created_at, id);
    `,
  },
  {
    version: 12,
    name: 'the key that made a share',
    // Issue 34, finding 10: a share ends with its creating key.
    sql: `ALTER TABLE shares ADD COLUMN created_by TEXT COLLATE "C";`,
  },
  {
    version: 13,
    name: 'drafts, their files and reviews; the propose role',
    // Extensions §13 (and §8's roles).
    sql: `
      CREATE TABLE drafts (
        id TEXT COLLATE "C" PRIMARY KEY,
        account_id TEXT COLLATE "C" NOT NULL,
        project_id TEXT COLLATE "C" NOT NULL,
        title TEXT NOT NULL,
        description TEXT,
        state TEXT NOT NULL CHECK (state IN ('open', 'published', 'closed')),
        author_key_id TEXT COLLATE "C",
        changeset_id TEXT COLLATE "C",
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE INDEX drafts_project_idx ON drafts (project_id, created_at, id);
      CREATE INDEX drafts_project_state_idx ON drafts (project_id, state, created_at, id);
      CREATE TABLE draft_files (
        draft_id TEXT COLLATE "C" NOT NULL,
        filename TEXT COLLATE "C" NOT NULL,
        seq INTEGER NOT NULL,
        op TEXT NOT NULL CHECK (op IN ('put', 'edit', 'delete', 'move')),
        base_etag TEXT COLLATE "C",
        content TEXT,
        metadata_json TEXT,
        to_name TEXT COLLATE "C",
        PRIMARY KEY (draft_id, filename)
      );
      CREATE UNIQUE INDEX draft_files_order_idx ON draft_files (draft_id, seq);
      CREATE TABLE draft_reviews (
        id TEXT COLLATE "C" PRIMARY KEY,
        draft_id TEXT COLLATE "C" NOT NULL,
        verdict TEXT NOT NULL CHECK (verdict IN ('approve', 'request_changes')),
        comment TEXT NOT NULL,
        key_id TEXT COLLATE "C",
        created_at BIGINT NOT NULL
      );
      CREATE INDEX draft_reviews_draft_idx ON draft_reviews (draft_id, created_at, id);
      ALTER TABLE api_keys DROP CONSTRAINT api_keys_role_check;
      ALTER TABLE api_keys ADD CONSTRAINT api_keys_role_check
        CHECK (role IN ('read', 'propose', 'write', 'admin'));
    `,
  },
  {
    version: 14,
    name: 'attachments',
    // Extensions §12: records unique by path per project, found by content (dedupe) and blob key.
    sql: `
      CREATE TABLE attachments (
        id TEXT COLLATE "C" PRIMARY KEY,
        project_id TEXT COLLATE "C" NOT NULL,
        path TEXT COLLATE "C" NOT NULL,
        size_bytes BIGINT NOT NULL,
        content_type TEXT NOT NULL,
        sha256 TEXT COLLATE "C" NOT NULL,
        blob_key TEXT COLLATE "C" NOT NULL,
        revision INTEGER NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        CONSTRAINT attachments_project_path_key UNIQUE (project_id, path)
      );
      CREATE INDEX attachments_sha256_idx ON attachments (project_id, sha256);
      CREATE INDEX attachments_blob_key_idx ON attachments (project_id, blob_key);
      ALTER TABLE projects ADD COLUMN attachment_count BIGINT NOT NULL DEFAULT 0;
      ALTER TABLE projects ADD COLUMN attachment_bytes BIGINT NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 15,
    name: 'keep_revisions_days; the filename of each revision',
    // Extensions §16: young revisions kept beyond keep_revisions; the name a file had at each revision
    // (null: written before this migration), for a project restored as of a time.
    sql: `
      ALTER TABLE projects ADD COLUMN keep_revisions_days INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE file_revisions ADD COLUMN filename TEXT COLLATE "C";
    `,
  },
  {
    version: 16,
    name: 'search chunks and embedding cursors',
    // Extensions §15: embedded chunks (vectors as float32 bytes, compared by an exact scan: pgvector is
    // not required) and the semantic indexer's feed position and lease per account.
    sql: `
      CREATE TABLE search_chunks (
        project_id TEXT COLLATE "C" NOT NULL,
        file_id TEXT COLLATE "C" NOT NULL,
        filename TEXT COLLATE "C" NOT NULL,
        ordinal INTEGER NOT NULL,
        heading TEXT,
        hash TEXT NOT NULL,
        model TEXT COLLATE "C" NOT NULL,
        vector BYTEA NOT NULL,
        PRIMARY KEY (file_id, ordinal)
      );
      CREATE INDEX search_chunks_scan_idx ON search_chunks (model, project_id, file_id, ordinal);
      CREATE INDEX search_chunks_name_idx ON search_chunks (project_id, filename);
      CREATE TABLE embedding_cursors (
        account_id TEXT COLLATE "C" PRIMARY KEY,
        seq BIGINT NOT NULL,
        model TEXT,
        lease_owner TEXT,
        lease_expires_at BIGINT,
        updated_at BIGINT NOT NULL
      );
    `,
  },
  {
    version: 17,
    name: 'search word list',
    // Issue 34: the search index's words (the lexemes of search_documents) per project, with how many of
    // the project's documents hold each, kept by the statements that write search_documents. A prefix
    // query reads at most its bound of distinct words from search_words_word_idx (a loose index scan)
    // instead of letting `:*` expand over the whole GIN index. Filled here from the documents indexed so far.
    sql: `
      CREATE TABLE search_words (
        project_id TEXT COLLATE "C" NOT NULL,
        word TEXT COLLATE "C" NOT NULL,
        documents INTEGER NOT NULL,
        PRIMARY KEY (project_id, word)
      );
      CREATE INDEX search_words_word_idx ON search_words (word);
      CREATE INDEX search_words_unused_idx ON search_words (word) WHERE documents = 0;
      INSERT INTO search_words (project_id, word, documents)
        SELECT project_id, word, count(*) FROM search_documents, unnest(tsvector_to_array(lexemes)) AS word
        GROUP BY project_id, word;
    `,
  },
  {
    version: 18,
    name: 'folder scopes of keys',
    // Extensions §14: the folders a key reaches (NULL: every file of its projects).
    sql: 'ALTER TABLE api_keys ADD COLUMN path_prefixes_json TEXT;',
  },
  {
    version: 19,
    name: 'the key of each revision',
    // Extensions §14: the key that wrote each revision (NULL before this version, or without a key).
    sql: 'ALTER TABLE file_revisions ADD COLUMN key_id TEXT;',
  },
  {
    version: 20,
    name: 'attachments by name',
    // Extensions §12: a wiki link names an attachment by its last path segment, as it names a file; the
    // expression is the dialect's `lastSegment` (dialect.ts), so that the look-up uses the index.
    sql: "CREATE INDEX attachments_name_idx ON attachments (project_id, (regexp_replace(path, '^.*/', '')));",
  },
  {
    version: 21,
    name: 'attachments in the trash',
    // Extensions §12: a deleted attachment goes to the trash (issue 37): its item is a `trash_items` row
    // of kind `attachment`, the attachment's id, path, size, sha256, blob key (`content_key`) and revision
    // in the file columns, its content type in `content_type`; `(project_id, content_key)` finds the items
    // that hold a blob.
    sql: `
      ALTER TABLE trash_items ADD COLUMN kind TEXT NOT NULL DEFAULT 'file' CHECK (kind IN ('file', 'attachment'));
      ALTER TABLE trash_items ADD COLUMN content_type TEXT;
      CREATE INDEX trash_items_blob_idx ON trash_items (project_id, content_key);
    `,
  },
  {
    version: 22,
    name: 'schedule slots',
    // Extensions §16: the slots of the backup schedule that the instances sharing the store run once
    // between them, each under a lease (a holder that died leaves a lease that expires).
    sql: `
      CREATE TABLE schedule_slots (
        task TEXT COLLATE "C" NOT NULL,
        slot_at BIGINT NOT NULL,
        owner TEXT NOT NULL,
        lease_expires_at BIGINT,
        attempts INTEGER NOT NULL,
        finished_at BIGINT,
        outcome TEXT CHECK (outcome IN ('ok', 'failed')),
        PRIMARY KEY (task, slot_at)
      );
    `,
  },
  {
    version: 23,
    name: 'vector lists',
    // Extensions §15: vector lists (an inverted-file index) per account and model; each chunk filed in
    // the list of its nearest centroid. A search reads the nearest lists by `search_chunks_list_idx`, and
    // the chunks filed in none by the partial `search_chunks_unlisted_idx`.
    sql: `
      ALTER TABLE search_chunks ADD COLUMN list_generation INTEGER;
      ALTER TABLE search_chunks ADD COLUMN list_no INTEGER;
      CREATE INDEX search_chunks_list_idx
        ON search_chunks (model, list_generation, list_no, project_id, file_id, ordinal);
      CREATE INDEX search_chunks_unlisted_idx ON search_chunks (model, project_id, file_id, ordinal)
        WHERE list_generation IS NULL;
      CREATE TABLE vector_lists (
        account_id TEXT COLLATE "C" NOT NULL,
        model TEXT COLLATE "C" NOT NULL,
        generation INTEGER NOT NULL,
        dimensions INTEGER NOT NULL,
        count INTEGER NOT NULL,
        centroids BYTEA NOT NULL,
        trained_rows BIGINT NOT NULL,
        created_at BIGINT NOT NULL,
        PRIMARY KEY (account_id, model)
      );
    `,
  },
];

/**
 * Held (transaction-scoped) while migrating, so that instances starting together on one database migrate
 * one after the other: the first applies, the others find nothing left to do. Any fixed number works as
 * long as nothing else on the database uses it; this one is "mdstore" in ASCII, truncated.
 */
export const MIGRATION_LOCK_KEY = 0x6d6473746f72;

const MIGRATIONS_TABLE = 'mdstore_migrations';

/**
 * Brings the schema up to date in one transaction. Versions the database knows but this code does not
 * (a newer instance already migrated during a rolling upgrade) are left alone: migrations are additive.
 */
export const migrate = async (o: {
  client: pg.PoolClient;
  schema: string | undefined;
}): Promise<number[]> => {
  const { client } = o;
  // Already up to date (every start but the first): no lock. The lock is one for the whole database, so
  // an instance of one schema would otherwise wait for another schema's migration to finish.
  if (await upToDate(client)) return [];
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    if (o.schema !== undefined) await ensureSchema(client, o.schema);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (
        version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`,
    );
    const { rows } = await client.query<{ version: number }>(`SELECT version FROM ${MIGRATIONS_TABLE}`);
    const applied = new Set(rows.map((row) => row.version));
    const pending = MIGRATIONS.filter((migration) => !applied.has(migration.version));
    for (const migration of pending) {
      await client.query(migration.sql);
      await client.query(`INSERT INTO ${MIGRATIONS_TABLE} (version, name, applied_at) VALUES ($1, $2, $3)`, [
        migration.version,
        migration.name,
        Date.now(),
      ]);
    }
    await client.query('COMMIT');
    return pending.map((migration) => migration.version);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
};

/** Whether the schema (the connection's `search_path`) has every migration applied; false when unknown. */
async function upToDate(client: pg.PoolClient): Promise<boolean> {
  const found = await client.query<{ present: string | null }>(
    `SELECT to_regclass('${MIGRATIONS_TABLE}') AS present`,
  );
  if (found.rows[0]?.present == null) return false;
  const { rows } = await client.query<{ version: number }>(`SELECT version FROM ${MIGRATIONS_TABLE}`);
  const applied = new Set(rows.map((row) => row.version));
  return MIGRATIONS.every((migration) => applied.has(migration.version));
}

/**
 * `CREATE SCHEMA IF NOT EXISTS` needs the CREATE right on the database even when the schema exists,
 * which managed databases often withhold: look first, create only when missing.
 */
async function ensureSchema(client: pg.PoolClient, schema: string): Promise<void> {
  const found = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
  if (found.rowCount === 0) await client.query(`CREATE SCHEMA ${quoteIdentifier(schema)}`);
}
