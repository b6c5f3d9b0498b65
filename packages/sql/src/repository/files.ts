import type { RecordsReader, RecordsTransaction } from '@mdstore/core';
import type { SqlExecutor } from '../executor.js';
import { fileCountsStatement, filePageStatement } from '../listing.js';
import { count, orNull, type SqlContext } from './context.js';
import { unindexLinks } from './links.js';

type FileReads = Pick<
  RecordsReader,
  'findFile' | 'findFiles' | 'listFiles' | 'listFilePage' | 'countFiles' | 'isBlobReferenced'
>;
type FileWrites = Pick<
  RecordsTransaction,
  'insertFile' | 'updateFile' | 'deleteFile' | 'purgeProjectRecords'
>;

/** The tables of a project's records and their keys, in the order a purge empties them. */
const PURGED_TABLES = [
  ['links', 'file_id, seq'],
  ['file_links', 'file_id'],
  ['file_revisions', 'file_id, revision'],
  ['inline_contents', 'content_key'],
  ['trash_items', 'id'],
  ['attachments', 'id'],
  ['files', 'id'],
] as const;

/** File records, and what refers to blobs. */
export function fileStatements(c: SqlContext) {
  const { files, dialect } = c;
  const FILE = `SELECT ${files.columns()} FROM files`;
  const s = {
    file: c.sql(`${FILE} WHERE project_id = ? AND filename = ?`),
    // filename compares in code point order on both engines (BINARY; COLLATE "C").
    ofProject: c.sql(`${FILE} WHERE project_id = ? ORDER BY filename`),
    bucketReferenced: c.sql(
      `SELECT 1 AS found FROM projects WHERE bucket_name = ? AND status <> 'deleted' LIMIT 1`,
    ),
    keyReferenced: c.sql(
      `SELECT 1 AS found FROM file_revisions r JOIN projects p ON p.id = r.project_id
       WHERE p.bucket_name = ? AND r.content_key = ? AND r.inline = ? LIMIT 1`,
    ),
    attachmentKeyReferenced: c.sql(
      `SELECT 1 AS found FROM attachments a JOIN projects p ON p.id = a.project_id
       WHERE p.bucket_name = ? AND a.blob_key = ? LIMIT 1`,
    ),
    // An attachment in the trash holds its blob until it is purged (extensions §12).
    trashedAttachmentKeyReferenced: c.sql(
      `SELECT 1 AS found FROM trash_items t JOIN projects p ON p.id = t.project_id
       WHERE p.bucket_name = ? AND t.content_key = ? AND t.kind = 'attachment' LIMIT 1`,
    ),
    delete: c.sql('DELETE FROM files WHERE id = ?'),
    /**
     * A deleting project's rows go batch by batch (issue 34): each statement removes at most the rows
     * left of the batch, chosen by their keys (row values: both engines, WITHOUT ROWID tables too), the
     * link index first, the file records last (the search index goes before, by the dialect).
     */
    purgeOfProject: PURGED_TABLES.map(([table, key]) =>
      c.sql(
        `DELETE FROM ${table} WHERE project_id = ? AND (${key}) IN (SELECT ${key} FROM ${table} WHERE project_id = ? LIMIT ?)`,
      ),
    ),
  };
  // Any number of names in one statement: the list is one parameter.
  const some = `${FILE} WHERE project_id = ${dialect.placeholder(1)} AND ${dialect.inList('filename', dialect.placeholder(2), 'text')}`;
  const notInline = dialect.encode('boolean', false);
  const links = unindexLinks(c);
  return {
    reads: (x: SqlExecutor): FileReads => ({
      findFile: async (q) => orNull(await x.get(s.file, [q.projectId, q.filename]), files.fromRow),
      findFiles: async (q) =>
        q.filenames.length === 0
          ? []
          : (await x.all(some, [q.projectId, dialect.list(q.filenames, 'text')])).map(files.fromRow),
      listFiles: async (q) => (await x.all(s.ofProject, [q.projectId])).map(files.fromRow),
      listFilePage: async (q) => {
        const { sql, params } = filePageStatement(files.columns(), dialect, q);
        return (await x.all(sql, params)).map(files.fromRow);
      },
      countFiles: async (q) => {
        const { sql, params } = fileCountsStatement(dialect, q);
        const row = await x.get(sql, params);
        return { files: count(row?.files), sizeBytes: count(row?.size_bytes), folders: count(row?.folders) };
      },
      isBlobReferenced: async ({ bucket, key }) =>
        key === null
          ? (await x.get(s.bucketReferenced, [bucket])) !== undefined
          : (await x.get(s.keyReferenced, [bucket, key, notInline])) !== undefined ||
            (await x.get(s.attachmentKeyReferenced, [bucket, key])) !== undefined ||
            (await x.get(s.trashedAttachmentKeyReferenced, [bucket, key])) !== undefined,
    }),
    writes: (x: SqlExecutor): FileWrites => ({
      insertFile: async (c) => {
        await x.write(files.insert, files.insertValues(c.file));
      },
      updateFile: async (c) => {
        await x.write(files.update, files.updateValues(c.file));
      },
      deleteFile: async (c) => {
        await dialect.search.unindexFile(x, c.fileId);
        await links.file(x, c.fileId);
        await x.write(s.delete, [c.fileId]);
      },
      purgeProjectRecords: async (c) => {
        let left = c.limit - (await dialect.search.unindexProject(x, c.projectId, c.limit));
        for (const sql of s.purgeOfProject) {
          if (left <= 0) break;
          left -= await x.run(sql, [c.projectId, c.projectId, left]);
        }
        return c.limit - left;
      },
    }),
  };
}
