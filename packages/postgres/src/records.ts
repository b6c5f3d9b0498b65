import type { RecordsReader, RecordsTransaction } from '@mdstore/core';
import type pg from 'pg';
import { accounts, apiKeys, blobIntents, files, instances, projects, type Row, revisions } from './rows.js';

/** Runs one statement; errors come out already translated (see `errors.ts`). */
export type Query = <R extends pg.QueryResultRow>(
  text: string,
  values?: unknown[],
) => Promise<pg.QueryResult<R>>;

const first = <T>(rows: Row[], map: (row: Row) => T): T | null => {
  const row = rows[0];
  return row === undefined ? null : map(row);
};

const ACCOUNT = `SELECT ${accounts.columns()} FROM accounts`;
const API_KEY = `SELECT ${apiKeys.columns()} FROM api_keys`;
const PROJECT = `SELECT ${projects.columns()} FROM projects`;
const FILE = `SELECT ${files.columns()} FROM files`;
const REVISION = `SELECT ${revisions.columns()} FROM file_revisions`;

export const createReader = (query: Query): RecordsReader => {
  const one = async <T>(sql: string, values: unknown[], map: (row: Row) => T) =>
    first((await query<Row>(sql, values)).rows, map);
  const all = async <T>(sql: string, values: unknown[], map: (row: Row) => T) =>
    (await query<Row>(sql, values)).rows.map(map);
  return {
    findAccountById: (q) => one(`${ACCOUNT} WHERE id = $1`, [q.accountId], accounts.fromRow),
    findAccountByName: (q) => one(`${ACCOUNT} WHERE name = $1`, [q.name], accounts.fromRow),
    listAccounts: () => all(`${ACCOUNT} ORDER BY created_at, id`, [], accounts.fromRow),

    findApiKeyById: (q) => one(`${API_KEY} WHERE id = $1`, [q.keyId], apiKeys.fromRow),
    findApiKeyByHash: (q) => one(`${API_KEY} WHERE key_hash = $1`, [q.keyHash], apiKeys.fromRow),
    listApiKeys: (q) =>
      all(`${API_KEY} WHERE account_id = $1 ORDER BY created_at, id`, [q.accountId], apiKeys.fromRow),

    findProjectById: (q) => one(`${PROJECT} WHERE id = $1`, [q.projectId], projects.fromRow),
    findActiveProjectByName: (q) =>
      one(
        `${PROJECT} WHERE account_id = $1 AND name = $2 AND status = 'active'`,
        [q.accountId, q.name],
        projects.fromRow,
      ),
    listProjects: (q) =>
      all(`${PROJECT} WHERE account_id = $1 ORDER BY created_at, id`, [q.accountId], projects.fromRow),
    listProjectsByStatus: (q) =>
      all(`${PROJECT} WHERE status = $1 ORDER BY created_at, id`, [q.status], projects.fromRow),

    findFile: (q) =>
      one(`${FILE} WHERE project_id = $1 AND filename = $2`, [q.projectId, q.filename], files.fromRow),
    // filename is COLLATE "C": byte order of UTF-8, i.e. code point order.
    listFiles: (q) => all(`${FILE} WHERE project_id = $1 ORDER BY filename`, [q.projectId], files.fromRow),
    async isBlobReferenced({ bucket, key }) {
      const sql =
        key === null
          ? `SELECT EXISTS (SELECT 1 FROM projects WHERE bucket_name = $1 AND status <> 'deleted') AS referenced`
          : `SELECT EXISTS (SELECT 1 FROM file_revisions r JOIN projects p ON p.id = r.project_id
               WHERE p.bucket_name = $1 AND r.content_key = $2 AND NOT r.inline) AS referenced`;
      const { rows } = await query<{ referenced: boolean }>(sql, key === null ? [bucket] : [bucket, key]);
      return rows[0]?.referenced === true;
    },

    findRevision: (q) =>
      one(`${REVISION} WHERE file_id = $1 AND revision = $2`, [q.fileId, q.revision], revisions.fromRow),
    listRevisions: (q) =>
      q.beforeRevision === undefined
        ? all(
            `${REVISION} WHERE file_id = $1 ORDER BY revision DESC LIMIT $2`,
            [q.fileId, q.limit],
            revisions.fromRow,
          )
        : all(
            `${REVISION} WHERE file_id = $1 AND revision < $2 ORDER BY revision DESC LIMIT $3`,
            [q.fileId, q.beforeRevision, q.limit],
            revisions.fromRow,
          ),
    listRevisionContents: (q) =>
      all(
        `SELECT revision, content_key, inline, size_bytes FROM file_revisions WHERE file_id = $1
         ORDER BY revision DESC`,
        [q.fileId],
        (row) => ({
          revision: row.revision as number,
          contentKey: row.content_key as string,
          inline: row.inline as boolean,
          sizeBytes: row.size_bytes as number,
        }),
      ),
    readInlineContent: (q) =>
      one(
        'SELECT bytes FROM inline_contents WHERE project_id = $1 AND content_key = $2',
        [q.projectId, q.contentKey],
        (row) => row.bytes as Uint8Array,
      ),

    listBlobIntents: ({ limit, afterId }) =>
      afterId === undefined
        ? all(
            `SELECT ${blobIntents.columns()} FROM blob_intents ORDER BY id LIMIT $1`,
            [limit],
            blobIntents.fromRow,
          )
        : all(
            `SELECT ${blobIntents.columns()} FROM blob_intents WHERE id > $2 ORDER BY id LIMIT $1`,
            [limit, afterId],
            blobIntents.fromRow,
          ),
    listInstances: () =>
      all(`SELECT ${instances.columns()} FROM instances ORDER BY started_at, id`, [], instances.fromRow),
  };
};

const changed = ({ rowCount }: { rowCount: number | null }) => (rowCount ?? 0) > 0;

export const createTransaction = (query: Query): RecordsTransaction => ({
  ...createReader(query),

  async insertAccount({ account }) {
    await query(accounts.insert, accounts.insertValues(account));
  },
  async updateAccountTier({ accountId, tier }) {
    return changed(await query('UPDATE accounts SET tier = $2 WHERE id = $1', [accountId, tier]));
  },

  async insertApiKey({ apiKey }) {
    await query(apiKeys.insert, apiKeys.insertValues(apiKey));
  },
  async revokeApiKey({ keyId, revokedAt }) {
    const sql = 'UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL';
    return changed(await query(sql, [keyId, revokedAt]));
  },

  async lockProject({ projectId }) {
    const { rows } = await query<Row>(`${PROJECT} WHERE id = $1 FOR UPDATE`, [projectId]);
    return first(rows, projects.fromRow);
  },
  async insertProject({ project }) {
    await query(projects.insert, projects.insertValues(project));
  },
  async updateProject({ project }) {
    await query(projects.update, projects.updateValues(project));
  },

  async insertFile({ file }) {
    await query(files.insert, files.insertValues(file));
  },
  async updateFile({ file }) {
    await query(files.update, files.updateValues(file));
  },
  async deleteFile({ fileId }) {
    await query('DELETE FROM files WHERE id = $1', [fileId]);
  },
  async deleteFilesOfProject({ projectId }) {
    await query('DELETE FROM file_revisions WHERE project_id = $1', [projectId]);
    await query('DELETE FROM inline_contents WHERE project_id = $1', [projectId]);
    const { rowCount } = await query('DELETE FROM files WHERE project_id = $1', [projectId]);
    return rowCount ?? 0;
  },

  async insertRevision({ revision }) {
    await query(revisions.insert, revisions.insertValues(revision));
  },
  async deleteRevisions({ fileId, revisions: numbers }) {
    if (numbers.length === 0) return;
    await query('DELETE FROM file_revisions WHERE file_id = $1 AND revision = ANY($2::int[])', [
      fileId,
      [...numbers],
    ]);
  },
  async insertInlineContent({ projectId, contentKey, bytes }) {
    await query('INSERT INTO inline_contents (project_id, content_key, bytes) VALUES ($1, $2, $3)', [
      projectId,
      contentKey,
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    ]);
  },
  async deleteInlineContent({ projectId, contentKey }) {
    await query('DELETE FROM inline_contents WHERE project_id = $1 AND content_key = $2', [
      projectId,
      contentKey,
    ]);
  },

  async insertBlobIntent({ intent }) {
    await query(blobIntents.insert, blobIntents.insertValues(intent));
  },
  async deleteBlobIntent({ intentId }) {
    return changed(await query('DELETE FROM blob_intents WHERE id = $1', [intentId]));
  },

  async upsertInstance({ instance }) {
    const sql = `${instances.insert} ON CONFLICT (id) DO UPDATE SET
      hostname = EXCLUDED.hostname, pid = EXCLUDED.pid, started_at = EXCLUDED.started_at,
      heartbeat_at = EXCLUDED.heartbeat_at`;
    await query(sql, instances.insertValues(instance));
  },
  async deleteInstance({ instanceId }) {
    await query('DELETE FROM instances WHERE id = $1', [instanceId]);
  },
});
