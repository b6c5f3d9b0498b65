import type {
  AccountRecord,
  ApiKeyRecord,
  BlobIntentRecord,
  FileRecord,
  InstanceRecord,
  ProjectRecord,
  RecordsReader,
  RecordsTransaction,
} from '@mdstore/core';
import type pg from 'pg';
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

/** Runs one statement; errors come out already translated (see `errors.ts`). */
export type Query = <R extends pg.QueryResultRow>(
  text: string,
  values?: unknown[],
) => Promise<pg.QueryResult<R>>;

const first = <R, T>(rows: R[], map: (row: R) => T): T | null => {
  const row = rows[0];
  return row === undefined ? null : map(row);
};

export const createReader = (query: Query): RecordsReader => ({
  async findAccountById({ accountId }) {
    const { rows } = await query<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = $1`, [
      accountId,
    ]);
    return first(rows, toAccount);
  },
  async findAccountByName({ name }) {
    const { rows } = await query<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE name = $1`, [
      name,
    ]);
    return first(rows, toAccount);
  },
  async listAccounts() {
    const { rows } = await query<AccountRow>(
      `SELECT ${ACCOUNT_COLUMNS} FROM accounts ORDER BY created_at, id`,
    );
    return rows.map(toAccount);
  },

  async findApiKeyById({ keyId }) {
    const { rows } = await query<ApiKeyRow>(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE id = $1`, [keyId]);
    return first(rows, toApiKey);
  },
  async findApiKeyByHash({ keyHash }) {
    const sql = `SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE key_hash = $1`;
    const { rows } = await query<ApiKeyRow>(sql, [keyHash]);
    return first(rows, toApiKey);
  },
  async listApiKeys({ accountId }) {
    const sql = `SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE account_id = $1 ORDER BY created_at, id`;
    const { rows } = await query<ApiKeyRow>(sql, [accountId]);
    return rows.map(toApiKey);
  },

  async findProjectById({ projectId }) {
    const { rows } = await query<ProjectRow>(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE id = $1`, [
      projectId,
    ]);
    return first(rows, toProject);
  },
  async findActiveProjectByName({ accountId, name }) {
    const sql = `SELECT ${PROJECT_COLUMNS} FROM projects WHERE account_id = $1 AND name = $2 AND status = 'active'`;
    const { rows } = await query<ProjectRow>(sql, [accountId, name]);
    return first(rows, toProject);
  },
  async listProjects({ accountId }) {
    const sql = `SELECT ${PROJECT_COLUMNS} FROM projects WHERE account_id = $1 ORDER BY created_at, id`;
    const { rows } = await query<ProjectRow>(sql, [accountId]);
    return rows.map(toProject);
  },
  async listProjectsByStatus({ status }) {
    const sql = `SELECT ${PROJECT_COLUMNS} FROM projects WHERE status = $1 ORDER BY created_at, id`;
    const { rows } = await query<ProjectRow>(sql, [status]);
    return rows.map(toProject);
  },

  async findFile({ projectId, filename }) {
    const sql = `SELECT ${FILE_COLUMNS} FROM files WHERE project_id = $1 AND filename = $2`;
    const { rows } = await query<FileRow>(sql, [projectId, filename]);
    return first(rows, toFile);
  },
  async listFiles({ projectId }) {
    // filename is COLLATE "C": byte order of UTF-8, i.e. code point order.
    const sql = `SELECT ${FILE_COLUMNS} FROM files WHERE project_id = $1 ORDER BY filename`;
    const { rows } = await query<FileRow>(sql, [projectId]);
    return rows.map(toFile);
  },
  async isBlobReferenced({ bucket, key }) {
    const sql =
      key === null
        ? `SELECT EXISTS (SELECT 1 FROM projects WHERE bucket_name = $1 AND status <> 'deleted') AS referenced`
        : `SELECT EXISTS (SELECT 1 FROM files f JOIN projects p ON p.id = f.project_id
             WHERE p.bucket_name = $1 AND f.blob_key = $2) AS referenced`;
    const { rows } = await query<{ referenced: boolean }>(sql, key === null ? [bucket] : [bucket, key]);
    return rows[0]?.referenced === true;
  },

  async listBlobIntents({ limit, afterId }) {
    const sql =
      afterId === undefined
        ? `SELECT ${BLOB_INTENT_COLUMNS} FROM blob_intents ORDER BY id LIMIT $1`
        : `SELECT ${BLOB_INTENT_COLUMNS} FROM blob_intents WHERE id > $2 ORDER BY id LIMIT $1`;
    const { rows } = await query<BlobIntentRow>(sql, afterId === undefined ? [limit] : [limit, afterId]);
    return rows.map(toBlobIntent);
  },
  async listInstances() {
    const sql = `SELECT ${INSTANCE_COLUMNS} FROM instances ORDER BY started_at, id`;
    const { rows } = await query<InstanceRow>(sql);
    return rows.map(toInstance);
  },
});

const accountValues = (a: AccountRecord) => [a.id, a.name, a.tier, a.createdAt];
const apiKeyValues = (k: ApiKeyRecord) => [k.id, k.accountId, k.keyHash, k.createdAt, k.revokedAt];
const projectValues = (p: ProjectRecord) => [
  p.id,
  p.accountId,
  p.name,
  p.description,
  p.bucketName,
  p.isDefault,
  p.status,
  p.fileCount,
  p.totalSizeBytes,
  p.createdAt,
  p.updatedAt,
];
const fileValues = (f: FileRecord) => [
  f.id,
  f.projectId,
  f.filename,
  f.sizeBytes,
  f.sha256,
  f.metadataJson,
  f.blobKey,
  f.revision,
  f.createdAt,
  f.updatedAt,
];
const blobIntentValues = (i: BlobIntentRecord) => [
  i.id,
  i.kind,
  i.bucket,
  i.key,
  i.ownerInstanceId,
  i.createdAt,
  i.expiresAt,
];
const instanceValues = (i: InstanceRecord) => [i.id, i.hostname, i.pid, i.startedAt, i.heartbeatAt];

const placeholders = (count: number): string =>
  Array.from({ length: count }, (_, i) => `$${i + 1}`).join(', ');
const insertSql = (table: string, columns: string) =>
  `INSERT INTO ${table} (${columns}) VALUES (${placeholders(columns.split(',').length)})`;

export const createTransaction = (query: Query): RecordsTransaction => ({
  ...createReader(query),

  async insertAccount({ account }) {
    await query(insertSql('accounts', ACCOUNT_COLUMNS), accountValues(account));
  },
  async updateAccountTier({ accountId, tier }) {
    const { rowCount } = await query('UPDATE accounts SET tier = $2 WHERE id = $1', [accountId, tier]);
    return (rowCount ?? 0) > 0;
  },

  async insertApiKey({ apiKey }) {
    await query(insertSql('api_keys', API_KEY_COLUMNS), apiKeyValues(apiKey));
  },
  async revokeApiKey({ keyId, revokedAt }) {
    const sql = 'UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL';
    const { rowCount } = await query(sql, [keyId, revokedAt]);
    return (rowCount ?? 0) > 0;
  },

  async lockProject({ projectId }) {
    const sql = `SELECT ${PROJECT_COLUMNS} FROM projects WHERE id = $1 FOR UPDATE`;
    const { rows } = await query<ProjectRow>(sql, [projectId]);
    return first(rows, toProject);
  },
  async insertProject({ project }) {
    await query(insertSql('projects', PROJECT_COLUMNS), projectValues(project));
  },
  async updateProject({ project: p }) {
    // Every mutable field: all but id, account_id and created_at.
    const sql = `UPDATE projects SET name = $2, description = $3, bucket_name = $4, is_default = $5,
      status = $6, file_count = $7, total_size_bytes = $8, updated_at = $9 WHERE id = $1`;
    const values = [p.id, p.name, p.description, p.bucketName, p.isDefault, p.status, p.fileCount];
    await query(sql, [...values, p.totalSizeBytes, p.updatedAt]);
  },

  async insertFile({ file }) {
    await query(insertSql('files', FILE_COLUMNS), fileValues(file));
  },
  async updateFile({ file }) {
    const sql = `UPDATE files SET size_bytes = $2, sha256 = $3, metadata_json = $4, blob_key = $5,
      revision = $6, updated_at = $7 WHERE id = $1`;
    await query(sql, [
      file.id,
      file.sizeBytes,
      file.sha256,
      file.metadataJson,
      file.blobKey,
      file.revision,
      file.updatedAt,
    ]);
  },
  async deleteFile({ fileId }) {
    await query('DELETE FROM files WHERE id = $1', [fileId]);
  },
  async deleteFilesOfProject({ projectId }) {
    const { rowCount } = await query('DELETE FROM files WHERE project_id = $1', [projectId]);
    return rowCount ?? 0;
  },

  async insertBlobIntent({ intent }) {
    await query(insertSql('blob_intents', BLOB_INTENT_COLUMNS), blobIntentValues(intent));
  },
  async deleteBlobIntent({ intentId }) {
    const { rowCount } = await query('DELETE FROM blob_intents WHERE id = $1', [intentId]);
    return (rowCount ?? 0) > 0;
  },

  async upsertInstance({ instance }) {
    const sql = `${insertSql('instances', INSTANCE_COLUMNS)} ON CONFLICT (id) DO UPDATE SET
      hostname = EXCLUDED.hostname, pid = EXCLUDED.pid, started_at = EXCLUDED.started_at,
      heartbeat_at = EXCLUDED.heartbeat_at`;
    await query(sql, instanceValues(instance));
  },
  async deleteInstance({ instanceId }) {
    await query('DELETE FROM instances WHERE id = $1', [instanceId]);
  },
});
