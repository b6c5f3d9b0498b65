import type { RecordsReader } from '@mdstore/core';
import type { Db } from '../connections.js';
import { accounts, apiKeys, blobIntents, files, instances, projects, type Row, revisions } from './rows.js';

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
    listProjectsByStatus: (q) => projectsByStatus.all(q.status).map(projects.fromRow),

    findFile: (q) => orNull(file.get(q.projectId, q.filename), files.fromRow),
    listFiles: (q) => filesOfProject.all(q.projectId).map(files.fromRow),
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

    listBlobIntents: (q) => intents.all(q.afterId ?? '', q.limit).map(blobIntents.fromRow),
    listInstances: () => allInstances.all().map(instances.fromRow),
  };
}
