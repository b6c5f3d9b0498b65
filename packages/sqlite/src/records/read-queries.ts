import { fts5MatchExpression, type RecordsReader, type SearchCandidatesQuery } from '@mdstore/core';
import {
  fileCountsStatement,
  filePageStatement,
  fromTrashRow,
  narrowingSql,
  projectPageStatement,
  pushdownSql,
  type Statement,
} from '@mdstore/sql';
import type { Db } from '../connections.js';
import {
  accounts,
  apiKeys,
  blobIntents,
  files,
  instances,
  projects,
  type Row,
  revisions,
  SQLITE_DIALECT,
  trash,
} from './rows.js';

/** A port interface with its methods made synchronous: what better-sqlite3 statements naturally give. */
export type Synchronous<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : never;
};

export type SyncReader = Synchronous<RecordsReader>;

const orNull = <T>(row: Row | undefined, map: (row: Row) => T): T | null =>
  row === undefined ? null : map(row);

/** Prepares every read statement once on `db` (the read-only connection, or the writer inside a transaction). */
export function createReadQueries(db: Db): SyncReader {
  const select = (table: { columns(alias?: string): string }, from: string, where = '') =>
    db.prepare<unknown[], Row>(`SELECT ${table.columns()} FROM ${from} ${where}`);

  const accountById = select(accounts, 'accounts', 'WHERE id = ?');
  const accountByName = select(accounts, 'accounts', 'WHERE name = ?');
  const allAccounts = select(accounts, 'accounts', 'ORDER BY created_at, id');

  const apiKeyById = select(apiKeys, 'api_keys', 'WHERE id = ?');
  const apiKeyByHash = select(apiKeys, 'api_keys', 'WHERE key_hash = ?');
  const apiKeysOfAccount = select(apiKeys, 'api_keys', 'WHERE account_id = ? ORDER BY created_at, id');

  const projectById = select(projects, 'projects', 'WHERE id = ?');
  const activeProjectByName = select(
    projects,
    'projects',
    "WHERE account_id = ? AND name = ? AND status = 'active'",
  );
  const projectsOfAccount = select(projects, 'projects', 'WHERE account_id = ? ORDER BY created_at, id');
  const projectsByStatus = select(projects, 'projects', 'WHERE status = ? ORDER BY created_at, id');

  // The page statements vary with the query's shape (sort, order, prefix, position): prepared once per
  // shape on this connection, a few dozen at most.
  const shapes = new Map<string, ReturnType<typeof db.prepare<unknown[], Row>>>();
  const run = ({ sql, params }: Statement, mode: 'all' | 'get') => {
    let statement = shapes.get(sql);
    if (!statement) {
      statement = db.prepare<unknown[], Row>(sql);
      shapes.set(sql, statement);
    }
    return mode === 'all' ? statement.all(...params) : statement.get(...params);
  };
  const projectCount = db.prepare<[string], { n: number }>(
    'SELECT COUNT(*) AS n FROM projects WHERE account_id = ?',
  );

  const file = select(files, 'files', 'WHERE project_id = ? AND filename = ?');
  const filesOfProject = select(files, 'files', 'WHERE project_id = ? ORDER BY filename');

  const bucketReferenced = db.prepare<[string], { found: number }>(
    `SELECT 1 AS found FROM projects WHERE bucket_name = ? AND status <> 'deleted' LIMIT 1`,
  );
  const blobKeyReferenced = db.prepare<[string, string], { found: number }>(
    `SELECT 1 AS found FROM file_revisions JOIN projects ON projects.id = file_revisions.project_id
     WHERE projects.bucket_name = ? AND file_revisions.content_key = ? AND file_revisions.inline = 0 LIMIT 1`,
  );

  const revision = select(revisions, 'file_revisions', 'WHERE file_id = ? AND revision = ?');
  const revisionsBefore = select(
    revisions,
    'file_revisions',
    'WHERE file_id = ? AND revision < ? ORDER BY revision DESC LIMIT ?',
  );
  const revisionContents = db.prepare<[string], Row>(
    `SELECT revision, content_key, inline, size_bytes FROM file_revisions WHERE file_id = ?
     ORDER BY revision DESC`,
  );
  const inlineContent = db.prepare<[string, string], { bytes: Uint8Array }>(
    'SELECT bytes FROM inline_contents WHERE project_id = ? AND content_key = ?',
  );

  const unindexed = select(
    files,
    'files',
    'WHERE NOT EXISTS (SELECT 1 FROM search_texts s WHERE s.file_id = files.id) ORDER BY id LIMIT ?',
  );

  const trashItem = select(trash, 'trash_items', 'WHERE project_id = ? AND id = ?');
  const trashFirstPage = select(
    trash,
    'trash_items',
    'WHERE project_id = ? AND expires_at > ? ORDER BY deleted_at DESC, id DESC LIMIT ?',
  );
  const trashPageAfter = select(
    trash,
    'trash_items',
    `WHERE project_id = ? AND expires_at > ? AND (deleted_at < ? OR (deleted_at = ? AND id < ?))
     ORDER BY deleted_at DESC, id DESC LIMIT ?`,
  );
  const trashCount = db.prepare<[string, number], { n: number }>(
    'SELECT count(*) AS n FROM trash_items WHERE project_id = ? AND expires_at > ?',
  );
  const expiredTrash = select(trash, 'trash_items', 'WHERE expires_at <= ? ORDER BY expires_at, id LIMIT ?');
  const toTrash = (row: Row) => fromTrashRow(trash.fromRow(row));

  // Keyset pagination on the primary key; the first page starts after '', below every (non-empty) id.
  const intents = select(blobIntents, 'blob_intents', 'WHERE id > ? ORDER BY id LIMIT ?');
  const allInstances = select(instances, 'instances', 'ORDER BY started_at, id');

  return {
    findAccountById: (q) => orNull(accountById.get(q.accountId), accounts.fromRow),
    findAccountByName: (q) => orNull(accountByName.get(q.name), accounts.fromRow),
    listAccounts: () => allAccounts.all().map(accounts.fromRow),

    findApiKeyById: (q) => orNull(apiKeyById.get(q.keyId), apiKeys.fromRow),
    findApiKeyByHash: (q) => orNull(apiKeyByHash.get(q.keyHash), apiKeys.fromRow),
    listApiKeys: (q) => apiKeysOfAccount.all(q.accountId).map(apiKeys.fromRow),

    findProjectById: (q) => orNull(projectById.get(q.projectId), projects.fromRow),
    findActiveProjectByName: (q) => orNull(activeProjectByName.get(q.accountId, q.name), projects.fromRow),
    listProjects: (q) => projectsOfAccount.all(q.accountId).map(projects.fromRow),
    listProjectPage: (q) =>
      (run(projectPageStatement(projects.columns(), SQLITE_DIALECT, q), 'all') as Row[]).map(
        projects.fromRow,
      ),
    countProjects: (q) => projectCount.get(q.accountId)?.n ?? 0,
    listProjectsByStatus: (q) => projectsByStatus.all(q.status).map(projects.fromRow),

    findFile: (q) => orNull(file.get(q.projectId, q.filename), files.fromRow),
    listFiles: (q) => filesOfProject.all(q.projectId).map(files.fromRow),
    listFilePage: (q) =>
      (run(filePageStatement(files.columns(), SQLITE_DIALECT, q), 'all') as Row[]).map(files.fromRow),
    countFiles: (q) => {
      const row = run(fileCountsStatement(SQLITE_DIALECT, q), 'get') as Row;
      return {
        files: row.files as number,
        sizeBytes: row.size_bytes as number,
        folders: row.folders as number,
      };
    },
    isBlobReferenced: (q) =>
      (q.key === null ? bucketReferenced.get(q.bucket) : blobKeyReferenced.get(q.bucket, q.key)) !==
      undefined,

    findRevision: (q) => orNull(revision.get(q.fileId, q.revision), revisions.fromRow),
    listRevisions: (q) =>
      revisionsBefore
        .all(q.fileId, q.beforeRevision ?? Number.MAX_SAFE_INTEGER, q.limit)
        .map(revisions.fromRow),
    listRevisionContents: (q) =>
      revisionContents.all(q.fileId).map((row) => ({
        revision: row.revision as number,
        contentKey: row.content_key as string,
        inline: row.inline === 1,
        sizeBytes: row.size_bytes as number,
      })),
    readInlineContent: (q) => inlineContent.get(q.projectId, q.contentKey)?.bytes ?? null,

    findSearchCandidates: (q) =>
      searchStatement(db, q)
        .all()
        .map((row) => ({
          file: files.fromRow(row),
          contentText: q.withText ? ((row.search_text as string | null) ?? '') : null,
        })),
    listUnindexedFiles: (q) => unindexed.all(q.limit).map(files.fromRow),

    findTrashItem: (q) => orNull(trashItem.get(q.projectId, q.trashId), toTrash),
    listTrash: ({ projectId, now, limit, after }) =>
      (after === undefined
        ? trashFirstPage.all(projectId, now, limit)
        : trashPageAfter.all(projectId, now, after.deletedAt, after.deletedAt, after.id, limit)
      ).map(toTrash),
    countTrash: (q) => trashCount.get(q.projectId, q.now)?.n ?? 0,
    listExpiredTrash: (q) => expiredTrash.all(q.now, q.limit).map(toTrash),

    listBlobIntents: (q) => intents.all(q.afterId ?? '', q.limit).map(blobIntents.fromRow),
    listInstances: () => allInstances.all().map(instances.fromRow),
  };
}

/** The SQL of a search's candidates, every value bound (user text reaches FTS5 only as `ftsTerm`s). */
function searchStatement(db: Db, q: SearchCandidatesQuery) {
  const values: unknown[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return '?';
  };
  const where = [`f.project_id IN (SELECT value FROM json_each(${param(JSON.stringify(q.projectIds))}))`];
  if (q.fileIds) where.push(`f.id IN (SELECT value FROM json_each(${param(JSON.stringify(q.fileIds))}))`);
  if (q.after)
    where.push(`(f.project_id, f.filename) > (${param(q.after.projectId)}, ${param(q.after.filename)})`);
  if (q.query)
    where.push(
      `s.rowid IN (SELECT rowid FROM search_fts WHERE search_fts MATCH ${param(fts5MatchExpression(q.query))})`,
    );
  where.push(
    ...pushdownSql(q.conditions, 'f', {
      param,
      startsWith: (column, value) => `instr(${column}, ${value}) = 1`,
      contains: (column, value) => `instr(${column}, ${value}) > 0`,
      inList: (column, list) => `${column} IN (SELECT value FROM json_each(${param(JSON.stringify(list))}))`,
    }),
    ...narrowingSql(q.narrowing ?? [], 'f', {
      param,
      // json_extract gives a string as text, a number as a number (1 = 1.0), true/false as 1/0 (a
      // superset for booleans, which the core then decides).
      equalsAny: (column, keys, list) =>
        `json_extract(${column}, ${param(jsonPath(keys))}) IN (SELECT value FROM json_each(${param(JSON.stringify(list))}))`,
      // An array holding the string, or a string containing it: json_each gives an array's elements,
      // or the string itself; any string containing the value passes.
      contains: (column, keys, value) =>
        `EXISTS (SELECT 1 FROM json_each(${column}, ${param(jsonPath(keys))}) e WHERE e.type = 'text' AND instr(e.value, ${param(value)}) > 0)`,
      startsWith: (column, keys, value) =>
        `json_type(${column}, ${param(jsonPath(keys))}) = 'text' AND instr(json_extract(${column}, ${param(jsonPath(keys))}), ${param(value)}) = 1`,
      exists: (column, keys) => `json_type(${column}, ${param(jsonPath(keys))}) IS NOT NULL`,
    }),
  );
  const join = q.query ? 'JOIN' : q.withText ? 'LEFT JOIN' : '';
  const sql = `SELECT ${files.columns('f')}${q.withText ? ', s.text AS search_text' : ''} FROM files f
    ${join ? `${join} search_texts s ON s.file_id = f.id` : ''}
    WHERE ${where.join(' AND ')} ORDER BY f.project_id, f.filename LIMIT ${param(q.limit)}`;
  return { all: () => db.prepare<unknown[], Row>(sql).all(...values) };
}

/** A JSON path of object keys, each quoted (planFilter narrows only on keys without `"` or `\\`). */
const jsonPath = (keys: readonly string[]): string => `$${keys.map((key) => `."${key}"`).join('')}`;
