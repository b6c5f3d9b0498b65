import { prefixUpperBound, type RecordsReader, type RecordsTransaction } from '@mdstore/core';
import type { SqlExecutor } from '../executor.js';
import { orNull, type SqlContext } from './context.js';

type AttachmentReads = Pick<
  RecordsReader,
  'findAttachment' | 'findAttachments' | 'findAttachmentBySha256' | 'listAttachmentPage'
>;
type AttachmentWrites = Pick<
  RecordsTransaction,
  'insertAttachment' | 'updateAttachment' | 'renameAttachment' | 'deleteAttachment'
>;

/** Attachments (extensions §12). */
export function attachmentStatements(c: SqlContext) {
  const { attachments, dialect } = c;
  const SELECT = `SELECT ${attachments.columns()} FROM attachments`;
  const s = {
    byPath: c.sql(`${SELECT} WHERE project_id = ? AND path = ?`),
    bySha256: c.sql(`${SELECT} WHERE project_id = ? AND sha256 = ? LIMIT 1`),
    delete: c.sql('DELETE FROM attachments WHERE id = ?'),
    rename: c.sql('UPDATE attachments SET path = ? WHERE id = ?'),
  };
  return {
    reads: (x: SqlExecutor): AttachmentReads => ({
      findAttachment: async (q) => orNull(await x.get(s.byPath, [q.projectId, q.path]), attachments.fromRow),
      // Probes of the unique `(project_id, path)` index, and of the index on the last segment (names).
      findAttachments: async (q) => {
        const names = q.names ?? [];
        if (q.paths.length === 0 && names.length === 0) return [];
        const params: unknown[] = [];
        const p = (value: unknown) => dialect.placeholder(params.push(value));
        const parts: string[] = [];
        // Parameters in the order they are written (SQLite's are positional).
        if (q.paths.length > 0) {
          const project = p(q.projectId);
          const paths = [...new Set(q.paths)].map(p).join(', ');
          parts.push(`${SELECT} WHERE project_id = ${project} AND path IN (${paths})`);
        }
        if (names.length > 0) {
          const project = p(q.projectId);
          const list = p(dialect.list([...new Set(names)], 'text'));
          parts.push(
            `${SELECT} WHERE project_id = ${project} AND ${dialect.inList(dialect.attachmentName, list, 'text')}`,
          );
        }
        const sql = `SELECT * FROM (${parts.join(' UNION ')}) u ORDER BY u.path`;
        return (await x.all(sql, params)).map(attachments.fromRow);
      },
      findAttachmentBySha256: async (q) =>
        orNull(await x.get(s.bySha256, [q.projectId, q.sha256]), attachments.fromRow),
      // A range scan of the unique `(project_id, path)` index: the prefix as a range, then the position.
      listAttachmentPage: async (q) => {
        const params: unknown[] = [];
        const p = (value: unknown) => dialect.placeholder(params.push(value));
        const where = [`project_id = ${p(q.projectId)}`];
        if (q.prefix !== '') {
          where.push(`path >= ${p(q.prefix)}`);
          const upper = prefixUpperBound(q.prefix);
          if (upper !== null) where.push(`path < ${p(upper)}`);
        }
        if (q.after !== undefined) where.push(`path ${q.inclusive ? '>=' : '>'} ${p(q.after)}`);
        const sql = `${SELECT} WHERE ${where.join(' AND ')} ORDER BY path LIMIT ${p(q.limit)}`;
        return (await x.all(sql, params)).map(attachments.fromRow);
      },
    }),
    writes: (x: SqlExecutor): AttachmentWrites => ({
      insertAttachment: async (c) => {
        await x.write(attachments.insert, attachments.insertValues(c.attachment));
      },
      updateAttachment: async (c) => {
        await x.write(attachments.update, attachments.updateValues(c.attachment));
      },
      renameAttachment: async (c) => {
        await x.write(s.rename, [c.path, c.attachmentId]);
      },
      deleteAttachment: async (c) => {
        await x.write(s.delete, [c.attachmentId]);
      },
    }),
  };
}
