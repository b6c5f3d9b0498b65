import {
  type ArchiveColumn,
  type ArchiveRow,
  type ArchiveTable,
  type ArchiveTargetState,
  type ArchiveValue,
  type BlobReference,
  type RecordsArchive,
  type RecordsSnapshot,
  StoreUnavailableError,
} from '@mdstore/core';
import type { SqlExecutor } from './executor.js';
import {
  ACCOUNTS,
  API_KEYS,
  ATTACHMENTS,
  AUDIT,
  CHANGES,
  DRAFT_FILES,
  DRAFT_REVIEWS,
  DRAFTS,
  FILES,
  PROJECTS,
  REVISIONS,
  SHARES,
  TRASH,
  WEBHOOK_DELIVERIES,
  WEBHOOKS,
} from './records.js';
import type { ColumnType, Dialect, Table } from './table.js';

/**
 * Backups and restore (extensions §16) on both SQL engines: every table of the records as portable rows,
 * read page by page (keyset on the table's key) from one snapshot transaction, and loaded into an empty
 * store in pages of rows, one transaction each.
 */

const fromTable = <R>(table: Table<R>): ArchiveTable => ({
  name: table.name,
  columns: table.columns.map((column) => ({ name: column.name, type: column.type })),
  key: table.key.map((field) => table.columns.find((column) => column.field === field)!.name),
});

const plain = (
  name: string,
  columns: readonly (readonly [string, ColumnType])[],
  key: readonly string[],
): ArchiveTable => ({ name, columns: columns.map(([n, type]) => ({ name: n, type })), key });

/** The tables the port's records do not describe column by column, written here once for the archive. */
const INLINE_CONTENTS = plain(
  'inline_contents',
  [
    ['project_id', 'text'],
    ['content_key', 'text'],
    ['bytes', 'bytes'],
  ],
  ['project_id', 'content_key'],
);
const CHANGE_FEED_HEADS = plain(
  'change_feed_heads',
  [
    ['account_id', 'text'],
    ['last_seq', 'integer'],
    ['pruned_through', 'integer'],
  ],
  ['account_id'],
);
const STORE_SECRETS = plain(
  'store_secrets',
  [
    ['name', 'text'],
    ['value', 'text'],
  ],
  ['name'],
);
const FILE_LINKS = plain(
  'file_links',
  [
    ['file_id', 'text'],
    ['project_id', 'text'],
    ['status', 'text'],
    ['stem', 'text'],
    ['slugs_json', 'text'],
    ['headings_json', 'text'],
  ],
  ['file_id'],
);
const LINKS = plain(
  'links',
  [
    ['file_id', 'text'],
    ['seq', 'integer'],
    ['project_id', 'text'],
    ['line', 'integer'],
    ['kind', 'text'],
    ['raw', 'text'],
    ['path', 'text'],
    ['stem', 'text'],
    ['anchor', 'text'],
    ['start_offset', 'integer'],
    ['end_offset', 'integer'],
  ],
  ['file_id', 'seq'],
);

/**
 * Every table a backup holds, in load order (a table after those its rows refer to: SQLite checks
 * `REFERENCES accounts`). Left out, on purpose: the search index (its form differs between engines; the
 * server's start-up backfill rebuilds it), blob intents (in-flight writes and pending deletions of the
 * source's blobs), instances, rate limits and schedule slots.
 */
export const ARCHIVE_TABLES: readonly ArchiveTable[] = [
  fromTable(ACCOUNTS),
  fromTable(API_KEYS),
  fromTable(PROJECTS),
  fromTable(FILES),
  fromTable(ATTACHMENTS),
  fromTable(REVISIONS),
  INLINE_CONTENTS,
  fromTable(TRASH),
  fromTable(AUDIT),
  fromTable(CHANGES),
  CHANGE_FEED_HEADS,
  STORE_SECRETS,
  fromTable(SHARES),
  fromTable(WEBHOOKS),
  fromTable(WEBHOOK_DELIVERIES),
  fromTable(DRAFTS),
  fromTable(DRAFT_FILES),
  fromTable(DRAFT_REVIEWS),
  FILE_LINKS,
  LINKS,
];

/** Tables of the schemas that no backup holds (see `ARCHIVE_TABLES`); each adapter's schema test checks the two lists cover its schema. */
export const UNARCHIVED_TABLES: readonly string[] = [
  'blob_intents',
  'instances',
  'rate_limits',
  'search_texts',
  'search_fts',
  'search_documents',
  'search_words',
  // Extensions §15: embedded chunks and the semantic indexer's position are derived from the files;
  // with no position the indexer resyncs every account on its first pass (embedding them again).
  'search_chunks',
  'embedding_cursors',
  // Extensions §16: which instance ran which scheduled backup; a restored store starts with none.
  'schedule_slots',
  // Their vector lists too: the indexer trains them again once an account has enough chunks.
  'vector_lists',
  'mdstore_migrations',
];

/** The `store_secrets` row that marks an unfinished restore. */
export const RESTORE_MARKER = 'mdstore.restore-unfinished';

/** What differs between engines for the archive: transactions and the binary order of text. */
export interface ArchiveEngine {
  readonly dialect: Dialect;
  readonly schemaVersion: number;
  /** `column` compared and ordered by code point (SQLite's BINARY; Postgres `COLLATE "C"`). */
  binary(column: string): string;
  /** Reads outside any transaction. */
  readonly reader: SqlExecutor;
  /** Opens a read-only transaction whose snapshot is taken before this resolves. */
  openSnapshot(): Promise<{ readonly executor: SqlExecutor; close(): Promise<void> }>;
  /** Runs `work` in one write transaction, committed durably before this resolves. */
  write<T>(work: (x: SqlExecutor) => Promise<T>): Promise<T>;
}

/** Rows per INSERT statement: far below either engine's bound on parameters. */
const MAX_PARAMETERS = 900;

export function sqlArchive(engine: ArchiveEngine): RecordsArchive {
  const { dialect } = engine;
  const byName = new Map(ARCHIVE_TABLES.map((table) => [table.name, table]));
  const tableOf = (name: string): ArchiveTable => {
    const table = byName.get(name);
    if (!table) throw new TypeError(`No archive table '${name}'`);
    return table;
  };
  const markerSelect = placeholdersOf(dialect, 'SELECT name FROM store_secrets WHERE name = ?');
  const unfinishedRestore = async (x: SqlExecutor = engine.reader) =>
    (await x.get(markerSelect, [RESTORE_MARKER])) !== undefined;

  const state = async (): Promise<ArchiveTargetState> => {
    if (await unfinishedRestore()) return 'restoring';
    for (const table of ARCHIVE_TABLES) {
      // Opening a store may keep a secret of its own (the cursor key): a restore replaces it.
      if (table === STORE_SECRETS) continue;
      if ((await engine.reader.get(`SELECT 1 AS one FROM ${table.name} LIMIT 1`, [])) !== undefined)
        return 'in-use';
    }
    return 'empty';
  };

  return {
    schemaVersion: engine.schemaVersion,
    tables: ARCHIVE_TABLES,
    async openSnapshot(o = {}) {
      const opened = await engine.openSnapshot();
      try {
        if (!o.restoring && (await unfinishedRestore(opened.executor))) {
          throw new StoreUnavailableError('The store holds an unfinished restore: run the restore again');
        }
      } catch (error) {
        await opened.close();
        throw error;
      }
      return snapshotOf(engine, opened);
    },
    state,
    async beginRestore() {
      const found = await state();
      if (found === 'in-use') {
        throw new StoreUnavailableError(
          'The target store is not empty: a backup is restored only into an empty store',
        );
      }
      await engine.write(async (x) => {
        // The redo of an unfinished restore starts from nothing again.
        if (found === 'restoring')
          for (const table of [...ARCHIVE_TABLES].reverse()) await x.run(`DELETE FROM ${table.name}`, []);
        else await x.run('DELETE FROM store_secrets', []);
        await x.run(placeholdersOf(dialect, 'INSERT INTO store_secrets (name, value) VALUES (?, ?)'), [
          RESTORE_MARKER,
          'a restore began and has not finished',
        ]);
      });
    },
    async load({ table: name, rows }) {
      const table = tableOf(name);
      if (rows.length === 0) return;
      const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / table.columns.length));
      await engine.write(async (x) => {
        for (let start = 0; start < rows.length; start += perStatement) {
          const chunk = rows.slice(start, start + perStatement);
          await x.run(
            insertOf(dialect, table, chunk.length),
            chunk.flatMap((row) => encodeRow(dialect, table, row)),
          );
        }
      });
    },
    async finishRestore() {
      await engine.write(async (x) => {
        await x.run(placeholdersOf(dialect, 'DELETE FROM store_secrets WHERE name = ?'), [RESTORE_MARKER]);
      });
    },
    unfinishedRestore: () => unfinishedRestore(),
  };
}

function snapshotOf(
  engine: ArchiveEngine,
  opened: { readonly executor: SqlExecutor; close(): Promise<void> },
): RecordsSnapshot {
  const { dialect } = engine;
  const x = opened.executor;
  let closing: Promise<void> | undefined;
  return {
    schemaVersion: engine.schemaVersion,
    async *rows({ table: name, pageSize }) {
      const table = ARCHIVE_TABLES.find((t) => t.name === name);
      if (!table) throw new TypeError(`No archive table '${name}'`);
      const keyColumns = table.key.map((key) => table.columns.find((column) => column.name === key)!);
      const keyIndexes = keyColumns.map((column) => table.columns.indexOf(column));
      const order = keyColumns.map((column) =>
        column.type === 'text' ? engine.binary(column.name) : column.name,
      );
      const select = `SELECT ${table.columns.map((column) => column.name).join(', ')} FROM ${table.name}`;
      const limit = ` ORDER BY ${order.join(', ')} LIMIT ${Math.trunc(pageSize)}`;
      const first = select + limit;
      const next = placeholdersOf(
        dialect,
        `${select} WHERE (${order.join(', ')}) > (${order.map(() => '?').join(', ')})${limit}`,
      );
      let after: ArchiveValue[] | undefined;
      for (;;) {
        const found = await x.all(after ? next : first, after ?? []);
        if (found.length === 0) return;
        const page = found.map((row) => decodeRow(dialect, table.columns, row));
        yield page;
        if (found.length < pageSize) return;
        const last = page.at(-1)!;
        after = keyIndexes.map((index) => last[index]!);
      }
    },
    async *blobs({ pageSize }) {
      const inline = dialect.encode('boolean', false);
      const revisions = placeholdersOf(
        dialect,
        `SELECT r.file_id, r.revision, p.bucket_name, r.content_key, r.sha256, r.size_bytes
         FROM file_revisions r JOIN projects p ON p.id = r.project_id
         WHERE r.inline = ? AND (${engine.binary('r.file_id')}, r.revision) > (?, ?)
         ORDER BY ${engine.binary('r.file_id')}, r.revision LIMIT ${Math.trunc(pageSize)}`,
      );
      let after: [string, number] = ['', 0];
      for (;;) {
        const found = await x.all(revisions, [inline, ...after]);
        if (found.length > 0) yield found.map(referenceOf);
        if (found.length < pageSize) break;
        const last = found.at(-1)!;
        after = [String(last.file_id), Number(last.revision)];
      }
      const attachments = placeholdersOf(
        dialect,
        `SELECT a.id, p.bucket_name, a.blob_key AS content_key, a.sha256, a.size_bytes
         FROM attachments a JOIN projects p ON p.id = a.project_id
         WHERE ${engine.binary('a.id')} > ? ORDER BY ${engine.binary('a.id')} LIMIT ${Math.trunc(pageSize)}`,
      );
      let afterId = '';
      for (;;) {
        const found = await x.all(attachments, [afterId]);
        if (found.length > 0) yield found.map(referenceOf);
        if (found.length < pageSize) break;
        afterId = String(found.at(-1)!.id);
      }
    },
    close() {
      closing ??= opened.close();
      return closing;
    },
  };
}

const referenceOf = (row: Readonly<Record<string, unknown>>): BlobReference => ({
  bucket: String(row.bucket_name),
  key: String(row.content_key),
  sha256: String(row.sha256),
  sizeBytes: Number(row.size_bytes),
});

function placeholdersOf(dialect: Dialect, text: string): string {
  let index = 0;
  return text.replace(/\?/g, () => dialect.placeholder(++index));
}

function insertOf(dialect: Dialect, table: ArchiveTable, rows: number): string {
  let index = 0;
  const values = Array.from(
    { length: rows },
    () => `(${table.columns.map(() => dialect.placeholder(++index)).join(', ')})`,
  );
  return `INSERT INTO ${table.name} (${table.columns.map((column) => column.name).join(', ')}) VALUES ${values.join(', ')}`;
}

function encodeRow(dialect: Dialect, table: ArchiveTable, row: ArchiveRow): unknown[] {
  if (row.length !== table.columns.length) {
    throw new TypeError(`A row of ${table.name} has ${row.length} values, not ${table.columns.length}`);
  }
  return table.columns.map((column, i) => (row[i] === null ? null : dialect.encode(column.type, row[i])));
}

function decodeRow(
  dialect: Dialect,
  columns: readonly ArchiveColumn[],
  row: Readonly<Record<string, unknown>>,
): ArchiveRow {
  return columns.map((column) => {
    const value = row[column.name];
    if (value === null || value === undefined) return null;
    const decoded = dialect.decode(column.type, value);
    switch (column.type) {
      case 'integer':
        return Number(decoded);
      case 'boolean':
        return Boolean(decoded);
      case 'bytes':
        return decoded instanceof Uint8Array ? decoded : new Uint8Array(decoded as ArrayBuffer);
      default:
        return String(decoded);
    }
  });
}
