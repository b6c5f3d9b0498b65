import type { RecordsReader, RecordsTransaction } from '@mdstore/core';
import type { SqlExecutor } from '../executor.js';
import { orNull, type SqlContext } from './context.js';

type RevisionReads = Pick<
  RecordsReader,
  'findRevision' | 'listRevisions' | 'listRevisionContents' | 'readInlineContent'
>;
type RevisionWrites = Pick<
  RecordsTransaction,
  'insertRevision' | 'deleteRevisions' | 'insertInlineContent' | 'deleteInlineContent'
>;

/** The kept revisions of files, and the inline content versions they point to. */
export function revisionStatements(c: SqlContext) {
  const { revisions, dialect } = c;
  const REVISION = `SELECT ${revisions.columns()} FROM file_revisions`;
  const s = {
    revision: c.sql(`${REVISION} WHERE file_id = ? AND revision = ?`),
    newest: c.sql(`${REVISION} WHERE file_id = ? ORDER BY revision DESC LIMIT ?`),
    before: c.sql(`${REVISION} WHERE file_id = ? AND revision < ? ORDER BY revision DESC LIMIT ?`),
    contents: c.sql(
      'SELECT revision, content_key, inline, size_bytes, created_at FROM file_revisions WHERE file_id = ? ORDER BY revision DESC',
    ),
    inline: c.sql('SELECT bytes FROM inline_contents WHERE project_id = ? AND content_key = ?'),
    insertInline: c.sql('INSERT INTO inline_contents (project_id, content_key, bytes) VALUES (?, ?, ?)'),
    deleteInline: c.sql('DELETE FROM inline_contents WHERE project_id = ? AND content_key = ?'),
  };
  // One statement for any number of revisions: the list is one parameter.
  const deleteRevisions = `DELETE FROM file_revisions WHERE file_id = ${dialect.placeholder(1)} AND ${dialect.inList('revision', dialect.placeholder(2), 'integer')}`;
  return {
    reads: (x: SqlExecutor): RevisionReads => ({
      findRevision: async (q) => orNull(await x.get(s.revision, [q.fileId, q.revision]), revisions.fromRow),
      listRevisions: async (q) =>
        (q.beforeRevision === undefined
          ? await x.all(s.newest, [q.fileId, q.limit])
          : await x.all(s.before, [q.fileId, q.beforeRevision, q.limit])
        ).map(revisions.fromRow),
      listRevisionContents: async (q) =>
        (await x.all(s.contents, [q.fileId])).map((row) => ({
          revision: row.revision as number,
          contentKey: row.content_key as string,
          inline: dialect.decode('boolean', row.inline) as boolean,
          sizeBytes: row.size_bytes as number,
          createdAt: Number(row.created_at),
        })),
      readInlineContent: async (q) =>
        orNull(await x.get(s.inline, [q.projectId, q.contentKey]), (row) => row.bytes as Uint8Array),
    }),
    writes: (x: SqlExecutor): RevisionWrites => ({
      insertRevision: async (c) => {
        await x.write(revisions.insert, revisions.insertValues(c.revision));
      },
      deleteRevisions: async (c) => {
        if (c.revisions.length === 0) return;
        await x.write(deleteRevisions, [c.fileId, dialect.list(c.revisions, 'integer')]);
      },
      insertInlineContent: async (c) => {
        await x.write(s.insertInline, [c.projectId, c.contentKey, dialect.encode('bytes', c.bytes)]);
      },
      deleteInlineContent: async (c) => {
        await x.write(s.deleteInline, [c.projectId, c.contentKey]);
      },
    }),
  };
}
