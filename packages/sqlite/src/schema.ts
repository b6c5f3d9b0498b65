/**
 * The schema, as an append-only list of migrations: never edit a released one, add the next version.
 *
 * Conventions: STRICT tables (a value of the wrong type is an error, not a silent conversion); times are
 * INTEGER epoch milliseconds; text compares with BINARY collation, i.e. memcmp of UTF-8, which is
 * Unicode code-point order, the order the port requires for filenames. A unique violation is reported by SQLite
 * with the table's columns, not the index name: `errors.ts` maps the columns of the three unique rules of
 * the port (account name; active project name per account; filename per project) to the rule.
 */
export interface Migration {
  readonly version: number;
  readonly description: string;
  readonly sql: string;
}

const INITIAL_SCHEMA = `
CREATE TABLE accounts (
  id TEXT NOT NULL PRIMARY KEY,
  name TEXT NOT NULL COLLATE BINARY,
  tier TEXT NOT NULL CHECK (tier IN ('standard', 'premium')),
  created_at INTEGER NOT NULL
) STRICT;
CREATE UNIQUE INDEX accounts_name_unique ON accounts (name);
CREATE INDEX accounts_created ON accounts (created_at, id);

CREATE TABLE api_keys (
  id TEXT NOT NULL PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts (id),
  key_hash TEXT NOT NULL COLLATE BINARY,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
) STRICT;
CREATE UNIQUE INDEX api_keys_key_hash_unique ON api_keys (key_hash);
CREATE INDEX api_keys_account ON api_keys (account_id, created_at, id);

CREATE TABLE projects (
  id TEXT NOT NULL PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts (id),
  name TEXT NOT NULL COLLATE BINARY,
  description TEXT,
  bucket_name TEXT NOT NULL COLLATE BINARY,
  is_default INTEGER NOT NULL CHECK (is_default IN (0, 1)),
  status TEXT NOT NULL CHECK (status IN ('active', 'deleting', 'deleted')),
  file_count INTEGER NOT NULL,
  total_size_bytes INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
CREATE UNIQUE INDEX projects_active_name_unique ON projects (account_id, name) WHERE status = 'active';
CREATE INDEX projects_account ON projects (account_id, created_at, id);
CREATE INDEX projects_status ON projects (status, created_at, id);
CREATE INDEX projects_bucket ON projects (bucket_name);

CREATE TABLE files (
  id TEXT NOT NULL PRIMARY KEY,
  project_id TEXT NOT NULL REFERENCES projects (id),
  filename TEXT NOT NULL COLLATE BINARY,
  size_bytes INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  metadata_json TEXT,
  blob_key TEXT NOT NULL COLLATE BINARY,
  revision INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
CREATE UNIQUE INDEX files_filename_unique ON files (project_id, filename);
CREATE INDEX files_blob_key ON files (project_id, blob_key);

CREATE TABLE blob_intents (
  id TEXT NOT NULL PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('staged', 'doomed')),
  bucket TEXT NOT NULL COLLATE BINARY,
  key TEXT COLLATE BINARY,
  owner_instance_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT;

CREATE TABLE instances (
  id TEXT NOT NULL PRIMARY KEY,
  hostname TEXT NOT NULL,
  pid INTEGER NOT NULL,
  started_at INTEGER NOT NULL,
  heartbeat_at INTEGER NOT NULL
) STRICT;

CREATE TABLE rate_limits (
  key TEXT NOT NULL PRIMARY KEY COLLATE BINARY,
  used INTEGER NOT NULL,
  reset_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
`;

/**
 * Revisions, inline content and project settings (extensions §2 and §5, small documents). Every file
 * gets a revision row for its current state, at its stored revision number; its content stays where it
 * is (the blob store), only the column is renamed. Inline contents live in their own rowid table: rows of
 * up to the inline threshold would make a WITHOUT ROWID table's b-tree pages thrash.
 */
const REVISIONS_AND_INLINE_CONTENT = `
ALTER TABLE projects ADD COLUMN history_size_bytes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE projects ADD COLUMN trash_size_bytes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE projects ADD COLUMN require_if_match INTEGER NOT NULL DEFAULT 0 CHECK (require_if_match IN (0, 1));
ALTER TABLE projects ADD COLUMN keep_revisions INTEGER NOT NULL DEFAULT 20;
ALTER TABLE projects ADD COLUMN trash_retention_days INTEGER NOT NULL DEFAULT 0;

ALTER TABLE files RENAME COLUMN blob_key TO content_key;
DROP INDEX files_blob_key;
ALTER TABLE files ADD COLUMN inline INTEGER NOT NULL DEFAULT 0 CHECK (inline IN (0, 1));
ALTER TABLE files ADD COLUMN frontmatter_json TEXT;

CREATE TABLE file_revisions (
  file_id TEXT NOT NULL,
  revision INTEGER NOT NULL,
  project_id TEXT NOT NULL,
  size_bytes INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  metadata_json TEXT,
  change TEXT NOT NULL CHECK (change IN ('created', 'content', 'metadata', 'edit', 'restore', 'move', 'copy')),
  content_key TEXT NOT NULL COLLATE BINARY,
  inline INTEGER NOT NULL CHECK (inline IN (0, 1)),
  created_at INTEGER NOT NULL,
  PRIMARY KEY (file_id, revision)
) STRICT, WITHOUT ROWID;
CREATE INDEX file_revisions_content ON file_revisions (project_id, content_key);
INSERT INTO file_revisions (file_id, revision, project_id, size_bytes, sha256, metadata_json, change,
  content_key, inline, created_at)
SELECT id, revision, project_id, size_bytes, sha256, metadata_json,
  CASE WHEN revision = 1 THEN 'created' ELSE 'content' END, content_key, 0, updated_at
FROM files;

CREATE TABLE inline_contents (
  project_id TEXT NOT NULL,
  content_key TEXT NOT NULL COLLATE BINARY,
  bytes BLOB NOT NULL
) STRICT;
CREATE UNIQUE INDEX inline_contents_key ON inline_contents (project_id, content_key);
`;

/**
 * Paged, sorted lists (extensions §3): one index per sort of List Files, each ending in `filename` (the
 * tie-break), so that a keyset page is a range scan of `limit` rows, forwards or backwards, whatever the
 * project's size. `filename` order is served by the unique index `(project_id, filename)`.
 */
const LIST_INDEXES = `
CREATE INDEX files_created_order ON files (project_id, created_at, filename);
CREATE INDEX files_updated_order ON files (project_id, updated_at, filename);
CREATE INDEX files_size_order ON files (project_id, size_bytes, filename);
`;

/**
 * Search (extensions §3). `search_texts` keeps the text each file was indexed with (its content's first
 * 1 MiB up to the last indexed word: snippets and re-indexing read it, never the blob store); `search_fts`, an FTS5 index without a
 * copy of its input, holds per file three columns of the core's `ftsTerm` encodings (letters a-p, a
 * filler `x`), keyed by `search_texts.rowid`, so the ascii tokenizer only splits at spaces. It keeps
 * no positions (`detail = none`: a phrase is asked as all of its words, and the core checks the order),
 * which makes the index, and the commit that writes it, several times smaller. Both are
 * written in the transaction of the record. Files stored before are indexed at start-up
 * (`backfillSearch`), as they have no `search_texts` row.
 */
const SEARCH_INDEX = `
CREATE TABLE search_texts (
  file_id TEXT NOT NULL PRIMARY KEY,
  project_id TEXT NOT NULL,
  text TEXT NOT NULL
) STRICT;
CREATE INDEX search_texts_project ON search_texts (project_id);
CREATE VIRTUAL TABLE search_fts USING fts5(
  filename, content, meta, content = '', contentless_delete = 1, tokenize = 'ascii', detail = none
);
`;

/**
 * The trash (extensions §5): one row per deleted file kept for `trash_retention_days`, the file's record
 * copied in; its revisions and inline contents stay in their tables under the same file id. Listing
 * walks `(project_id, deleted_at, id)` backwards; expiry scans `expires_at`.
 */
const TRASH = `
CREATE TABLE trash_items (
  id TEXT NOT NULL PRIMARY KEY,
  project_id TEXT NOT NULL,
  deleted_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  file_id TEXT NOT NULL,
  filename TEXT NOT NULL COLLATE BINARY,
  size_bytes INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  metadata_json TEXT,
  frontmatter_json TEXT,
  content_key TEXT NOT NULL COLLATE BINARY,
  inline INTEGER NOT NULL CHECK (inline IN (0, 1)),
  revision INTEGER NOT NULL,
  file_created_at INTEGER NOT NULL,
  file_updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX trash_items_listing ON trash_items (project_id, deleted_at, id);
CREATE INDEX trash_items_expiry ON trash_items (expires_at, id);
`;

/**
 * Scoped keys (extensions §8): a role, an optional project list (JSON text) and expiry, a name, and the
 * last use. Keys made before are `admin` for the whole account. And the audit log, read newest first
 * per account, expired oldest first.
 */
const KEY_ACCESS = `
ALTER TABLE api_keys ADD COLUMN name TEXT NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN role TEXT NOT NULL DEFAULT 'admin' CHECK (role IN ('read', 'write', 'admin'));
ALTER TABLE api_keys ADD COLUMN project_ids_json TEXT;
ALTER TABLE api_keys ADD COLUMN expires_at INTEGER;
ALTER TABLE api_keys ADD COLUMN last_used_at INTEGER;

CREATE TABLE audit_entries (
  id TEXT NOT NULL PRIMARY KEY,
  at INTEGER NOT NULL,
  account_id TEXT,
  key_id TEXT,
  action TEXT NOT NULL,
  project_id TEXT,
  filename TEXT COLLATE BINARY,
  status INTEGER NOT NULL,
  request_id TEXT,
  ip TEXT
) STRICT;
CREATE INDEX audit_entries_account ON audit_entries (account_id, at, id);
CREATE INDEX audit_entries_age ON audit_entries (at);
`;

/**
 * The change feed (extensions §7): the events, each account's head (the last `seq` handed out, moved in
 * the writing transaction, and the last one retention removed), and the secrets the instances sharing the
 * store share (the cursor key of §3 when none is configured).
 */
const CHANGE_FEED = `
CREATE TABLE change_events (
  account_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  type TEXT NOT NULL,
  project_id TEXT NOT NULL,
  filename TEXT COLLATE BINARY,
  from_name TEXT COLLATE BINARY,
  revision INTEGER,
  etag TEXT,
  size_bytes INTEGER,
  sha256 TEXT,
  changeset_id TEXT,
  at INTEGER NOT NULL,
  PRIMARY KEY (account_id, seq)
) STRICT, WITHOUT ROWID;
CREATE INDEX change_events_age ON change_events (at);

CREATE TABLE change_feed_heads (
  account_id TEXT NOT NULL PRIMARY KEY,
  last_seq INTEGER NOT NULL,
  pruned_through INTEGER NOT NULL
) STRICT;

CREATE TABLE store_secrets (
  name TEXT NOT NULL PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;
`;

/** Changesets (extensions §9): the changeset a revision was written by, and its message. */
const REVISION_CHANGESETS = `
ALTER TABLE file_revisions ADD COLUMN changeset_id TEXT;
ALTER TABLE file_revisions ADD COLUMN message TEXT;
`;
/** Share links (extensions §11): the token's hash only, unique; listed per project. */
const SHARES = `
CREATE TABLE shares (
  id TEXT NOT NULL PRIMARY KEY,
  account_id TEXT NOT NULL,
  project_id TEXT NOT NULL,
  filename TEXT COLLATE BINARY,
  prefix TEXT COLLATE BINARY,
  token_hash TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  revoked_at INTEGER,
  CHECK ((filename IS NULL) <> (prefix IS NULL))
) STRICT;
CREATE INDEX shares_project ON shares (project_id, created_at, id);
`;
/** The key that made a share (issue 34, finding 10): its revocation ends the share. */
const SHARE_CREATORS = `
ALTER TABLE shares ADD COLUMN created_by TEXT;
`;

/**
 * Webhooks (extensions §7): each with its delivery state and lease on its row, and its deliveries log,
 * read newest first per webhook.
 */
const WEBHOOKS = `
CREATE TABLE webhooks (
  id TEXT NOT NULL PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  url TEXT NOT NULL,
  events_json TEXT NOT NULL,
  project_id TEXT,
  secret TEXT NOT NULL,
  active INTEGER NOT NULL CHECK (active IN (0, 1)),
  disabled_reason TEXT,
  created_at INTEGER NOT NULL,
  cursor_seq INTEGER,
  attempt INTEGER NOT NULL,
  next_attempt_at INTEGER,
  lease_owner TEXT,
  lease_expires_at INTEGER
) STRICT;
CREATE INDEX webhooks_account ON webhooks (account_id, created_at, id);
CREATE INDEX webhooks_active ON webhooks (active, id);
CREATE TABLE webhook_deliveries (
  id TEXT NOT NULL PRIMARY KEY,
  webhook_id TEXT NOT NULL,
  event_seq INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  status_code INTEGER,
  error TEXT,
  duration_ms INTEGER NOT NULL,
  at INTEGER NOT NULL
) STRICT;
CREATE INDEX webhook_deliveries_listing ON webhook_deliveries (webhook_id, at, id);
CREATE INDEX webhook_deliveries_age ON webhook_deliveries (at);
`;

/**
 * The link index (extensions §9): one entry per file (its name's stem and its headings, for matching
 * links to it) and its links, each with its resolved path (or wiki target and stem). Resolution joins
 * these with `files` when read; `links_path`/`links_stem` find a file's referrers, `file_links_stem` a
 * wiki link's candidates.
 */
const LINK_INDEX = `
CREATE TABLE file_links (
  file_id TEXT NOT NULL PRIMARY KEY,
  project_id TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('indexed', 'too_large')),
  stem TEXT NOT NULL COLLATE BINARY,
  slugs_json TEXT NOT NULL,
  headings_json TEXT NOT NULL
) STRICT;
CREATE INDEX file_links_stem ON file_links (project_id, stem);
CREATE TABLE links (
  file_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  project_id TEXT NOT NULL,
  line INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('markdown', 'wiki')),
  raw TEXT NOT NULL,
  path TEXT COLLATE BINARY,
  stem TEXT COLLATE BINARY,
  anchor TEXT,
  start_offset INTEGER,
  end_offset INTEGER,
  PRIMARY KEY (file_id, seq)
) STRICT;
CREATE INDEX links_path ON links (project_id, path);
CREATE INDEX links_stem ON links (project_id, stem);
`;

/**
 * Drafts (extensions §13): drafts listed per project newest first (in a state or not), their files (one
 * row per filename, the proposal whole) and reviews. And the role `propose` (§13, §8): SQLite cannot
 * change a CHECK, so `api_keys` is rebuilt with the same rows and indexes and the wider one.
 */
const DRAFTS = `
CREATE TABLE drafts (
  id TEXT NOT NULL PRIMARY KEY,
  account_id TEXT NOT NULL,
  project_id TEXT NOT NULL,
  title TEXT NOT NULL,
  description TEXT,
  state TEXT NOT NULL CHECK (state IN ('open', 'published', 'closed')),
  author_key_id TEXT,
  changeset_id TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX drafts_project ON drafts (project_id, created_at, id);
CREATE INDEX drafts_project_state ON drafts (project_id, state, created_at, id);
CREATE TABLE draft_files (
  draft_id TEXT NOT NULL,
  filename TEXT NOT NULL COLLATE BINARY,
  seq INTEGER NOT NULL,
  op TEXT NOT NULL CHECK (op IN ('put', 'edit', 'delete', 'move')),
  base_etag TEXT,
  content TEXT,
  metadata_json TEXT,
  to_name TEXT COLLATE BINARY,
  PRIMARY KEY (draft_id, filename)
) STRICT;
CREATE UNIQUE INDEX draft_files_order ON draft_files (draft_id, seq);
CREATE TABLE draft_reviews (
  id TEXT NOT NULL PRIMARY KEY,
  draft_id TEXT NOT NULL,
  verdict TEXT NOT NULL CHECK (verdict IN ('approve', 'request_changes')),
  comment TEXT NOT NULL,
  key_id TEXT,
  created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX draft_reviews_draft ON draft_reviews (draft_id, created_at, id);

CREATE TABLE api_keys_propose (
  id TEXT NOT NULL PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts (id),
  key_hash TEXT NOT NULL COLLATE BINARY,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER,
  name TEXT NOT NULL DEFAULT '',
  role TEXT NOT NULL DEFAULT 'admin' CHECK (role IN ('read', 'propose', 'write', 'admin')),
  project_ids_json TEXT,
  expires_at INTEGER,
  last_used_at INTEGER
) STRICT;
INSERT INTO api_keys_propose (id, account_id, key_hash, created_at, revoked_at, name, role, project_ids_json,
  expires_at, last_used_at)
  SELECT id, account_id, key_hash, created_at, revoked_at, name, role, project_ids_json, expires_at, last_used_at
  FROM api_keys;
DROP TABLE api_keys;
ALTER TABLE api_keys_propose RENAME TO api_keys;
CREATE UNIQUE INDEX api_keys_key_hash_unique ON api_keys (key_hash);
CREATE INDEX api_keys_account ON api_keys (account_id, created_at, id);
`;

/**
 * Attachments (extensions §12): their records, unique by path in a project, found by content for
 * dedupe and by blob key for the reference check; the project's attachment counters.
 */
const ATTACHMENTS = `
CREATE TABLE attachments (
  id TEXT NOT NULL PRIMARY KEY,
  project_id TEXT NOT NULL,
  path TEXT NOT NULL COLLATE BINARY,
  size_bytes INTEGER NOT NULL,
  content_type TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  blob_key TEXT NOT NULL COLLATE BINARY,
  revision INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
CREATE UNIQUE INDEX attachments_path_unique ON attachments (project_id, path);
CREATE INDEX attachments_sha256 ON attachments (project_id, sha256);
CREATE INDEX attachments_blob_key ON attachments (project_id, blob_key);
ALTER TABLE projects ADD COLUMN attachment_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE projects ADD COLUMN attachment_bytes INTEGER NOT NULL DEFAULT 0;
`;

/**
 * A project as it was (extensions §16): `keep_revisions_days` keeps young revisions beyond
 * `keep_revisions`; each revision records the name its file had then (null: written before this
 * migration), so that a restore as of a time knows where each file was.
 */
const PROJECT_AS_OF = `
ALTER TABLE projects ADD COLUMN keep_revisions_days INTEGER NOT NULL DEFAULT 0;
ALTER TABLE file_revisions ADD COLUMN filename TEXT COLLATE BINARY;
`;

/**
 * Search by meaning (extensions §15): embedded chunks, their vectors as float32 bytes compared by an
 * exact scan (sqlite-vec would need a prebuilt native binary), and the semantic indexer's feed position
 * and lease per account.
 */
const SEARCH_CHUNKS = `
CREATE TABLE search_chunks (
  project_id TEXT NOT NULL COLLATE BINARY,
  file_id TEXT NOT NULL COLLATE BINARY,
  filename TEXT NOT NULL COLLATE BINARY,
  ordinal INTEGER NOT NULL,
  heading TEXT,
  hash TEXT NOT NULL,
  model TEXT NOT NULL COLLATE BINARY,
  vector BLOB NOT NULL,
  PRIMARY KEY (file_id, ordinal)
) STRICT;
CREATE INDEX search_chunks_scan ON search_chunks (model, project_id, file_id, ordinal);
CREATE INDEX search_chunks_name ON search_chunks (project_id, filename);
CREATE TABLE embedding_cursors (
  account_id TEXT NOT NULL PRIMARY KEY,
  seq INTEGER NOT NULL,
  model TEXT,
  lease_owner TEXT,
  lease_expires_at INTEGER,
  updated_at INTEGER NOT NULL
) STRICT;
`;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'accounts, API keys, projects, files, blob intents, instances, rate limits',
    sql: INITIAL_SCHEMA,
  },
  {
    version: 2,
    description: 'revisions, inline content, project settings and storage counters',
    sql: REVISIONS_AND_INLINE_CONTENT,
  },
  { version: 3, description: 'indexes of the paged file lists', sql: LIST_INDEXES },
  { version: 4, description: 'search index (FTS5) and indexed texts', sql: SEARCH_INDEX },
  { version: 5, description: 'trash', sql: TRASH },
  {
    version: 6,
    description: 'key roles, project scopes, expiry, names and last use; audit log',
    sql: KEY_ACCESS,
  },
  { version: 7, description: 'change feed, feed heads and shared store secrets', sql: CHANGE_FEED },
  { version: 8, description: 'webhooks and their deliveries log', sql: WEBHOOKS },
  { version: 9, description: 'changeset id and message of revisions', sql: REVISION_CHANGESETS },
  { version: 10, description: 'link index', sql: LINK_INDEX },
  { version: 11, description: 'share links', sql: SHARES },
  { version: 12, description: 'the key that made a share', sql: SHARE_CREATORS },
  { version: 13, description: 'drafts, their files and reviews; the propose role', sql: DRAFTS },
  { version: 14, description: 'attachments and their project counters', sql: ATTACHMENTS },
  {
    version: 15,
    description: 'keep_revisions_days; the filename of each revision',
    sql: PROJECT_AS_OF,
  },
  { version: 16, description: 'search chunks and embedding cursors', sql: SEARCH_CHUNKS },
  // Postgres's version 17 keeps a word list for prefix queries (issue 34); SQLite reads FTS5's own
  // vocabulary instead. The version is kept here all the same: a backup's schema version must be the
  // same on both stores (extensions §16: a backup restores into either pair).
  { version: 17, description: 'search word list (Postgres only)', sql: 'SELECT 1;' },
  // Extensions §14: the folders a key reaches (NULL: every file of its projects).
  {
    version: 18,
    description: 'folder scopes of keys',
    sql: 'ALTER TABLE api_keys ADD COLUMN path_prefixes_json TEXT;',
  },
  // Extensions §14: the key that wrote each revision (NULL before this version, or without a key).
  {
    version: 19,
    description: 'the key of each revision',
    sql: 'ALTER TABLE file_revisions ADD COLUMN key_id TEXT;',
  },
  // Extensions §12: a wiki link names an attachment by its last path segment, as it names a file; the
  // expression is the dialect's `lastSegment` (records/dialect.ts), so that the look-up uses the index.
  {
    version: 20,
    description: 'attachments by name',
    sql: `CREATE INDEX attachments_name ON attachments (project_id, substr(path, length(rtrim(path, replace(path, '/', ''))) + 1));`,
  },
  // Extensions §12: a deleted attachment goes to the trash (issue 37): its item is a `trash_items` row of
  // kind `attachment`, the attachment's id, path, size, sha256, blob key (`content_key`) and revision in
  // the file columns, its content type in `content_type`; `(project_id, content_key)` finds the items
  // that hold a blob.
  {
    version: 21,
    description: 'attachments in the trash',
    sql: `
ALTER TABLE trash_items ADD COLUMN kind TEXT NOT NULL DEFAULT 'file' CHECK (kind IN ('file', 'attachment'));
ALTER TABLE trash_items ADD COLUMN content_type TEXT;
CREATE INDEX trash_items_blob ON trash_items (project_id, content_key);
`,
  },
  // Extensions §16: the slots of the backup schedule that the instances sharing the store run once
  // between them, each under a lease (a holder that died leaves a lease that expires).
  {
    version: 22,
    description: 'schedule slots',
    sql: `
CREATE TABLE schedule_slots (
  task TEXT NOT NULL COLLATE BINARY,
  slot_at INTEGER NOT NULL,
  owner TEXT NOT NULL,
  lease_expires_at INTEGER,
  attempts INTEGER NOT NULL,
  finished_at INTEGER,
  outcome TEXT CHECK (outcome IN ('ok', 'failed')),
  PRIMARY KEY (task, slot_at)
) STRICT;
`,
  },
  // Extensions §15: vector lists (an inverted-file index) per account and model; each chunk filed in the
  // list of its nearest centroid. A search reads the nearest lists by `search_chunks_list` (list by list,
  // each in chunk order), and the chunks filed in none by the partial `search_chunks_unlisted`.
  {
    version: 23,
    description: 'vector lists',
    sql: `
ALTER TABLE search_chunks ADD COLUMN list_generation INTEGER;
ALTER TABLE search_chunks ADD COLUMN list_no INTEGER;
CREATE INDEX search_chunks_list ON search_chunks (model, list_generation, list_no, project_id, file_id, ordinal);
CREATE INDEX search_chunks_unlisted ON search_chunks (model, project_id, file_id, ordinal)
  WHERE list_generation IS NULL;
CREATE TABLE vector_lists (
  account_id TEXT NOT NULL COLLATE BINARY,
  model TEXT NOT NULL COLLATE BINARY,
  generation INTEGER NOT NULL,
  dimensions INTEGER NOT NULL,
  count INTEGER NOT NULL,
  centroids BLOB NOT NULL,
  trained_rows INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (account_id, model)
) STRICT;
`,
  },
];

/** The schema version this code writes and expects (SQLite's `user_version`). */
export const SQLITE_SCHEMA_VERSION: number = MIGRATIONS.at(-1)?.version ?? 0;
