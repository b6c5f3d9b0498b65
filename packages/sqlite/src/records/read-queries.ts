import type { RecordsReader } from '@mdstore/core';
import type { Db } from '../connections.js';
import {
  ACCOUNT_COLUMNS,
  type AccountRow,
  API_KEY_COLUMNS,
  type ApiKeyRow,
  BLOB_INTENT_COLUMNS,
  type BlobIntentRow,
  FILE_COLUMNS,
  type FileRow,
  INSTANCE_COLUMNS,
  type InstanceRow,
  PROJECT_COLUMNS,
  type ProjectRow,
  toAccount,
  toApiKey,
  toBlobIntent,
  toFile,
  toInstance,
  toProject,
} from './rows.js';

/** A port interface with its methods made synchronous: what better-sqlite3 statements naturally give. */
export type Synchronous<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : never;
};

export type SyncReader = Synchronous<RecordsReader>;

const orNull = <R, T>(row: R | undefined, map: (row: R) => T): T | null =>
  row === undefined ? null : map(row);

/** Prepares every read statement once on `db` (the read-only connection, or the writer inside a transaction). */
export function createReadQueries(db: Db): SyncReader {
  const accountById = db.prepare<[string], AccountRow>(
    `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = ?`,
  );
  const accountByName = db.prepare<[string], AccountRow>(
    `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE name = ?`,
  );
  const accounts = db.prepare<[], AccountRow>(
    `SELECT ${ACCOUNT_COLUMNS} FROM accounts ORDER BY created_at, id`,
  );

  const apiKeyById = db.prepare<[string], ApiKeyRow>(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE id = ?`);
  const apiKeyByHash = db.prepare<[string], ApiKeyRow>(
    `SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE key_hash = ?`,
  );
  const apiKeysOfAccount = db.prepare<[string], ApiKeyRow>(
    `SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE account_id = ? ORDER BY created_at, id`,
  );

  const projectById = db.prepare<[string], ProjectRow>(
    `SELECT ${PROJECT_COLUMNS} FROM projects WHERE id = ?`,
  );
  const activeProjectByName = db.prepare<[string, string], ProjectRow>(
    `SELECT ${PROJECT_COLUMNS} FROM projects WHERE account_id = ? AND name = ? AND status = 'active'`,
  );
  const projectsOfAccount = db.prepare<[string], ProjectRow>(
    `SELECT ${PROJECT_COLUMNS} FROM projects WHERE account_id = ? ORDER BY created_at, id`,
  );
  const projectsByStatus = db.prepare<[string], ProjectRow>(
    `SELECT ${PROJECT_COLUMNS} FROM projects WHERE status = ? ORDER BY created_at, id`,
  );

  const file = db.prepare<[string, string], FileRow>(
    `SELECT ${FILE_COLUMNS} FROM files WHERE project_id = ? AND filename = ?`,
  );
  const filesOfProject = db.prepare<[string], FileRow>(
    `SELECT ${FILE_COLUMNS} FROM files WHERE project_id = ? ORDER BY filename`,
  );

  const bucketReferenced = db.prepare<[string], { found: number }>(
    `SELECT 1 AS found FROM projects WHERE bucket_name = ? AND status <> 'deleted' LIMIT 1`,
  );
  const blobKeyReferenced = db.prepare<[string, string], { found: number }>(
    `SELECT 1 AS found FROM files JOIN projects ON projects.id = files.project_id
     WHERE projects.bucket_name = ? AND files.blob_key = ? LIMIT 1`,
  );

  // Keyset pagination on the primary key; the first page starts after '', below every (non-empty) id.
  const blobIntents = db.prepare<[string, number], BlobIntentRow>(
    `SELECT ${BLOB_INTENT_COLUMNS} FROM blob_intents WHERE id > ? ORDER BY id LIMIT ?`,
  );
  const instances = db.prepare<[], InstanceRow>(
    `SELECT ${INSTANCE_COLUMNS} FROM instances ORDER BY started_at, id`,
  );

  return {
    findAccountById: (q) => orNull(accountById.get(q.accountId), toAccount),
    findAccountByName: (q) => orNull(accountByName.get(q.name), toAccount),
    listAccounts: () => accounts.all().map(toAccount),

    findApiKeyById: (q) => orNull(apiKeyById.get(q.keyId), toApiKey),
    findApiKeyByHash: (q) => orNull(apiKeyByHash.get(q.keyHash), toApiKey),
    listApiKeys: (q) => apiKeysOfAccount.all(q.accountId).map(toApiKey),

    findProjectById: (q) => orNull(projectById.get(q.projectId), toProject),
    findActiveProjectByName: (q) => orNull(activeProjectByName.get(q.accountId, q.name), toProject),
    listProjects: (q) => projectsOfAccount.all(q.accountId).map(toProject),
    listProjectsByStatus: (q) => projectsByStatus.all(q.status).map(toProject),

    findFile: (q) => orNull(file.get(q.projectId, q.filename), toFile),
    listFiles: (q) => filesOfProject.all(q.projectId).map(toFile),
    isBlobReferenced: (q) =>
      (q.key === null ? bucketReferenced.get(q.bucket) : blobKeyReferenced.get(q.bucket, q.key)) !==
      undefined,

    listBlobIntents: (q) => blobIntents.all(q.afterId ?? '', q.limit).map(toBlobIntent),
    listInstances: () => instances.all().map(toInstance),
  };
}
