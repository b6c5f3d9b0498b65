import type { RecordsReader, RecordsTransaction } from '@mdstore/core';
import type { SqlExecutor } from '../executor.js';
import { count, orNull, type SqlContext } from './context.js';

type DraftReads = Pick<
  RecordsReader,
  'findDraft' | 'listDrafts' | 'countDrafts' | 'listDraftFiles' | 'findDraftFile' | 'listDraftReviews'
>;
type DraftWrites = Pick<
  RecordsTransaction,
  'insertDraft' | 'updateDraft' | 'putDraftFile' | 'insertDraftReview'
>;

/**
 * Drafts (extensions §13): listed per project newest first by keyset (`drafts_project` index), their
 * files in `seq` order, their reviews oldest first; every list bounded by its `LIMIT`.
 */
export function draftStatements(c: SqlContext) {
  const { drafts, draftFiles, draftReviews } = c;
  const DRAFT = `SELECT ${drafts.columns()} FROM drafts`;
  const FILE = `SELECT ${draftFiles.columns()} FROM draft_files`;
  const AFTER = '(created_at < ? OR (created_at = ? AND id < ?))';
  const NEWEST = 'ORDER BY created_at DESC, id DESC LIMIT ?';
  const s = {
    byId: c.sql(`${DRAFT} WHERE id = ?`),
    page: c.sql(`${DRAFT} WHERE project_id = ? ${NEWEST}`),
    pageAfter: c.sql(`${DRAFT} WHERE project_id = ? AND ${AFTER} ${NEWEST}`),
    pageInState: c.sql(`${DRAFT} WHERE project_id = ? AND state = ? ${NEWEST}`),
    pageInStateAfter: c.sql(`${DRAFT} WHERE project_id = ? AND state = ? AND ${AFTER} ${NEWEST}`),
    count: c.sql('SELECT COUNT(*) AS n FROM drafts WHERE project_id = ? AND state = ?'),
    files: c.sql(`${FILE} WHERE draft_id = ? AND seq > ? ORDER BY seq LIMIT ?`),
    file: c.sql(`${FILE} WHERE draft_id = ? AND filename = ?`),
    reviews: c.sql(
      `SELECT ${draftReviews.columns()} FROM draft_reviews WHERE draft_id = ? ORDER BY created_at, id LIMIT ?`,
    ),
    putFile: `${draftFiles.insert} ON CONFLICT (draft_id, filename) DO UPDATE SET op = excluded.op,
      base_etag = excluded.base_etag, content = excluded.content, metadata_json = excluded.metadata_json,
      to_name = excluded.to_name`,
  };
  return {
    reads: (x: SqlExecutor): DraftReads => ({
      findDraft: async (q) => orNull(await x.get(s.byId, [q.draftId]), drafts.fromRow),
      listDrafts: async (q) => {
        const after = q.after ? [q.after.createdAt, q.after.createdAt, q.after.id] : [];
        const rows =
          q.state === undefined
            ? await x.all(q.after ? s.pageAfter : s.page, [q.projectId, ...after, q.limit])
            : await x.all(q.after ? s.pageInStateAfter : s.pageInState, [
                q.projectId,
                q.state,
                ...after,
                q.limit,
              ]);
        return rows.map(drafts.fromRow);
      },
      countDrafts: async (q) => count((await x.get(s.count, [q.projectId, q.state]))?.n),
      listDraftFiles: async (q) =>
        (await x.all(s.files, [q.draftId, q.afterSeq ?? -1, q.limit])).map(draftFiles.fromRow),
      findDraftFile: async (q) => orNull(await x.get(s.file, [q.draftId, q.filename]), draftFiles.fromRow),
      listDraftReviews: async (q) => (await x.all(s.reviews, [q.draftId, q.limit])).map(draftReviews.fromRow),
    }),
    writes: (x: SqlExecutor): DraftWrites => ({
      insertDraft: async (w) => {
        await x.write(drafts.insert, drafts.insertValues(w.draft));
      },
      updateDraft: async (w) => {
        await x.write(drafts.update, drafts.updateValues(w.draft));
      },
      putDraftFile: async (w) => {
        await x.write(s.putFile, draftFiles.insertValues(w.file));
      },
      insertDraftReview: async (w) => {
        await x.write(draftReviews.insert, draftReviews.insertValues(w.review));
      },
    }),
  };
}
