import {
  type FileCounts,
  fileSearchDocument,
  type RecordsReader,
  type RecordsTransaction,
  SEARCH_LIMITS,
  type SearchCandidatesQuery,
  truncateUtf8,
  tsqueryLiteral,
  tsvectorLiteral,
} from '@mdstore/core';
import {
  fileCountsStatement,
  filePageStatement,
  fromTrashRow,
  type JsonSqlDialect,
  narrowingSql,
  projectPageStatement,
  pushdownSql,
  toTrashRow,
} from '@mdstore/sql';
import type pg from 'pg';
import {
  accounts,
  apiKeys,
  blobIntents,
  files,
  instances,
  POSTGRES_DIALECT,
  projects,
  type Row,
  revisions,
  trash,
} from './rows.js';

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
const TRASH = `SELECT ${trash.columns()} FROM trash_items`;
const toTrash = (row: Row) => fromTrashRow(trash.fromRow(row));

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
    listProjectPage: (q) => {
      const { sql, params } = projectPageStatement(projects.columns(), POSTGRES_DIALECT, q);
      return all(sql, params, projects.fromRow);
    },
    async countProjects(q) {
      const { rows } = await query<{ n: string | number }>(
        'SELECT COUNT(*) AS n FROM projects WHERE account_id = $1',
        [q.accountId],
      );
      return Number(rows[0]?.n ?? 0);
    },
    listProjectsByStatus: (q) =>
      all(`${PROJECT} WHERE status = $1 ORDER BY created_at, id`, [q.status], projects.fromRow),

    findFile: (q) =>
      one(`${FILE} WHERE project_id = $1 AND filename = $2`, [q.projectId, q.filename], files.fromRow),
    // filename is COLLATE "C": byte order of UTF-8, i.e. code point order.
    listFiles: (q) => all(`${FILE} WHERE project_id = $1 ORDER BY filename`, [q.projectId], files.fromRow),
    listFilePage: (q) => {
      const { sql, params } = filePageStatement(files.columns(), POSTGRES_DIALECT, q);
      return all(sql, params, files.fromRow);
    },
    async countFiles(q): Promise<FileCounts> {
      const { sql, params } = fileCountsStatement(POSTGRES_DIALECT, q);
      const row = (await query<Row>(sql, params)).rows[0] ?? {};
      return {
        files: Number(row.files ?? 0),
        sizeBytes: Number(row.size_bytes ?? 0),
        folders: Number(row.folders ?? 0),
      };
    },
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

    async findSearchCandidates(q) {
      const { sql, values } = searchStatement(q);
      const { rows } = await query<Row>(sql, values);
      return rows.map((row) => ({
        file: files.fromRow(row),
        contentText: q.withText ? ((row.search_text as string | null) ?? '') : null,
      }));
    },
    listUnindexedFiles: ({ limit }) =>
      all(
        `${FILE} WHERE NOT EXISTS (SELECT 1 FROM search_documents s WHERE s.file_id = files.id)
         ORDER BY id LIMIT $1`,
        [limit],
        files.fromRow,
      ),

    findTrashItem: (q) =>
      one(`${TRASH} WHERE project_id = $1 AND id = $2`, [q.projectId, q.trashId], toTrash),
    listTrash: ({ projectId, now, limit, after }) =>
      after === undefined
        ? all(
            `${TRASH} WHERE project_id = $1 AND expires_at > $2 ORDER BY deleted_at DESC, id DESC LIMIT $3`,
            [projectId, now, limit],
            toTrash,
          )
        : all(
            `${TRASH} WHERE project_id = $1 AND expires_at > $2 AND (deleted_at, id) < ($3, $4)
             ORDER BY deleted_at DESC, id DESC LIMIT $5`,
            [projectId, now, after.deletedAt, after.id, limit],
            toTrash,
          ),
    async countTrash({ projectId, now }) {
      const { rows } = await query<{ n: number }>(
        'SELECT count(*)::int AS n FROM trash_items WHERE project_id = $1 AND expires_at > $2',
        [projectId, now],
      );
      return rows[0]?.n ?? 0;
    },
    listExpiredTrash: ({ now, limit }) =>
      all(`${TRASH} WHERE expires_at <= $1 ORDER BY expires_at, id LIMIT $2`, [now, limit], toTrash),

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
  async indexFile({ file, contentText }) {
    let text: string;
    if (contentText === null) {
      const { rows } = await query<{ text: string }>('SELECT text FROM search_documents WHERE file_id = $1', [
        file.id,
      ]);
      text = rows[0]?.text ?? '';
    } else {
      // Postgres text cannot hold U+0000; it is no word character, so search reads it as a space.
      text = truncateUtf8(contentText, SEARCH_LIMITS.contentMaxBytes).replaceAll('\0', ' ');
    }
    await query(
      `INSERT INTO search_documents (file_id, project_id, text, lexemes) VALUES ($1, $2, $3, $4::tsvector)
       ON CONFLICT (file_id) DO UPDATE SET text = EXCLUDED.text, lexemes = EXCLUDED.lexemes`,
      [file.id, file.projectId, text, tsvectorLiteral(fileSearchDocument(file, text))],
    );
  },
  async deleteFile({ fileId }) {
    await query('DELETE FROM search_documents WHERE file_id = $1', [fileId]);
    await query('DELETE FROM files WHERE id = $1', [fileId]);
  },
  async deleteFilesOfProject({ projectId }) {
    await query('DELETE FROM search_documents WHERE project_id = $1', [projectId]);
    await query('DELETE FROM file_revisions WHERE project_id = $1', [projectId]);
    await query('DELETE FROM inline_contents WHERE project_id = $1', [projectId]);
    await query('DELETE FROM trash_items WHERE project_id = $1', [projectId]);
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

  async insertTrashItem({ item }) {
    await query(trash.insert, trash.insertValues(toTrashRow(item)));
  },
  // The claim: under READ COMMITTED a second DELETE waits for the first and then finds no row.
  async deleteTrashItem({ projectId, trashId }) {
    const { rows } = await query<Row>(
      `DELETE FROM trash_items WHERE project_id = $1 AND id = $2 RETURNING ${trash.columns()}`,
      [projectId, trashId],
    );
    return first(rows, toTrash);
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

/** The SQL of a search's candidates, every value a parameter (user text reaches Postgres as lexemes only). */
function searchStatement(q: SearchCandidatesQuery): { sql: string; values: unknown[] } {
  const values: unknown[] = [];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const where = [`f.project_id = ANY(${param([...q.projectIds])}::text[])`];
  if (q.fileIds) where.push(`f.id = ANY(${param([...q.fileIds])}::text[])`);
  if (q.after)
    where.push(`(f.project_id, f.filename) > (${param(q.after.projectId)}, ${param(q.after.filename)})`);
  if (q.query) where.push(`s.lexemes @@ ${param(tsqueryLiteral(q.query))}::tsquery`);
  where.push(
    ...pushdownSql(q.conditions, 'f', {
      param: (value) => `${param(value)}::${typeof value === 'number' ? 'numeric' : 'text'}`,
      startsWith: (column, value) => `starts_with(${column}, ${value})`,
      contains: (column, value) => `strpos(${column}, ${value}) > 0`,
      inList: (column, list) =>
        `${column} = ANY(${param([...list])}::${typeof list[0] === 'number' ? 'numeric' : 'text'}[])`,
    }),
    ...narrowingSql(q.narrowing ?? [], 'f', jsonDialect(param)),
  );
  const join = q.query ? 'JOIN' : q.withText ? 'LEFT JOIN' : '';
  const sql = `SELECT ${files.columns('f')}${q.withText ? ', s.text AS search_text' : ''} FROM files f
    ${join ? `${join} search_documents s ON s.file_id = f.id` : ''}
    WHERE ${where.join(' AND ')} ORDER BY f.project_id, f.filename LIMIT ${param(q.limit)}`;
  return { sql, values };
}

/**
 * The narrowing of a search on JSON stored as text: each test reads the text as `jsonb`, except text
 * holding the escape `\u0000`, which `jsonb` refuses: such a row passes (the core decides it). Numbers
 * compare as doubles (`float8`), as the filter language says; `CASE` keeps every cast on its own type.
 */
function jsonDialect(param: (value: unknown) => string): JsonSqlDialect {
  const at = (column: string, keys: readonly string[]) => `(${column}::jsonb #> ${param([...keys])}::text[])`;
  const textAt = (column: string, keys: readonly string[]) =>
    `(${column}::jsonb #>> ${param([...keys])}::text[])`;
  const guarded = (column: string, test: string) =>
    `CASE WHEN strpos(${column}, '\\u0000') > 0 THEN TRUE ELSE ${test} END`;
  return {
    param,
    equalsAny: (column, keys, values) => {
      const strings = values.filter((value) => typeof value === 'string');
      const numbers = values.filter((value) => typeof value === 'number');
      const booleans = values.filter((value) => typeof value === 'boolean').map(String);
      const tests = [
        ...(strings.length > 0 ? [`${textAt(column, keys)} = ANY(${param(strings)}::text[])`] : []),
        ...(numbers.length > 0
          ? [
              `CASE WHEN jsonb_typeof(${at(column, keys)}) = 'number' THEN ${textAt(column, keys)}::float8 = ANY(${param(numbers)}::float8[]) ELSE FALSE END`,
            ]
          : []),
        ...(booleans.length > 0 ? [`${at(column, keys)} = ANY(${param(booleans)}::jsonb[])`] : []),
      ];
      return guarded(column, `COALESCE(${tests.join(' OR ')}, FALSE)`);
    },
    contains: (column, keys, value) =>
      guarded(
        column,
        `CASE jsonb_typeof(${at(column, keys)}) WHEN 'array' THEN ${at(column, keys)} @> jsonb_build_array(${param(value)}::text) WHEN 'string' THEN strpos(${textAt(column, keys)}, ${param(value)}::text) > 0 ELSE FALSE END`,
      ),
    startsWith: (column, keys, value) =>
      guarded(
        column,
        `CASE WHEN jsonb_typeof(${at(column, keys)}) = 'string' THEN starts_with(${textAt(column, keys)}, ${param(value)}::text) ELSE FALSE END`,
      ),
    exists: (column, keys) => guarded(column, `${at(column, keys)} IS NOT NULL`),
  };
}
