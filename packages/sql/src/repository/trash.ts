import type { RecordsReader, RecordsTransaction } from '@mdstore/core';
import type { SqlExecutor } from '../executor.js';
import { toTrashRow } from '../records.js';
import { count, orNull, type SqlContext } from './context.js';

type TrashReads = Pick<RecordsReader, 'findTrashItem' | 'listTrash' | 'countTrash' | 'listExpiredTrash'>;
type TrashWrites = Pick<RecordsTransaction, 'insertTrashItem' | 'deleteTrashItem'>;

/** The trash (extensions §5). */
export function trashStatements(c: SqlContext) {
  const { trash, toTrash } = c;
  const TRASH = `SELECT ${trash.columns()} FROM trash_items`;
  const s = {
    item: c.sql(`${TRASH} WHERE project_id = ? AND id = ?`),
    firstPage: c.sql(
      `${TRASH} WHERE project_id = ? AND expires_at > ? ORDER BY deleted_at DESC, id DESC LIMIT ?`,
    ),
    pageAfter: c.sql(
      `${TRASH} WHERE project_id = ? AND expires_at > ? AND (deleted_at, id) < (?, ?)
       ORDER BY deleted_at DESC, id DESC LIMIT ?`,
    ),
    count: c.sql('SELECT COUNT(*) AS n FROM trash_items WHERE project_id = ? AND expires_at > ?'),
    expired: c.sql(`${TRASH} WHERE expires_at <= ? ORDER BY expires_at, id LIMIT ?`),
    // The claim: whoever deletes the row gets it back; a second claim (which, under Postgres's READ
    // COMMITTED, waits for the first) finds nothing.
    claim: c.sql(`DELETE FROM trash_items WHERE project_id = ? AND id = ? RETURNING ${trash.columns()}`),
  };
  return {
    reads: (x: SqlExecutor): TrashReads => ({
      findTrashItem: async (q) => orNull(await x.get(s.item, [q.projectId, q.trashId]), toTrash),
      listTrash: async ({ projectId, now, limit, after }) =>
        (after === undefined
          ? await x.all(s.firstPage, [projectId, now, limit])
          : await x.all(s.pageAfter, [projectId, now, after.deletedAt, after.id, limit])
        ).map(toTrash),
      countTrash: async (q) => count((await x.get(s.count, [q.projectId, q.now]))?.n),
      listExpiredTrash: async (q) => (await x.all(s.expired, [q.now, q.limit])).map(toTrash),
    }),
    writes: (x: SqlExecutor): TrashWrites => ({
      insertTrashItem: async (c) => {
        await x.write(trash.insert, trash.insertValues(toTrashRow(c.item)));
      },
      deleteTrashItem: async (c) => orNull(await x.get(s.claim, [c.projectId, c.trashId]), toTrash),
    }),
  };
}
