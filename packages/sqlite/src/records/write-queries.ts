import {
  type FileRecord,
  fileSearchDocument,
  fts5ColumnText,
  type RecordsReader,
  type RecordsTransaction,
  SEARCH_LIMITS,
  truncateUtf8,
} from '@mdstore/core';

import { fromTrashRow, toTrashRow } from '@mdstore/sql';
import type { Db } from '../connections.js';
import type { Synchronous } from './read-queries.js';
import {
  accounts,
  apiKeys,
  blobIntents,
  files,
  instances,
  projects,
  type Row,
  revisions,
  trash,
} from './rows.js';

/** The writes of a transaction; `lockProject` is a read on the writer (see the repository). */
export type SyncWriter = Synchronous<Omit<RecordsTransaction, keyof RecordsReader | 'lockProject'>>;

/** Prepares every write statement once on the writer connection. Run only inside a transaction. */
export function createWriteQueries(db: Db): SyncWriter {
  const insertAccount = db.prepare(accounts.insert);
  const updateAccountTier = db.prepare('UPDATE accounts SET tier = ? WHERE id = ?');

  const insertApiKey = db.prepare(apiKeys.insert);
  const revokeApiKey = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');

  const insertProject = db.prepare(projects.insert);
  const updateProject = db.prepare(projects.update);

  const insertFile = db.prepare(files.insert);
  const updateFile = db.prepare(files.update);
  const deleteFile = db.prepare('DELETE FROM files WHERE id = ?');
  const searchTextOf = db.prepare<[string], { rowid: number; text: string }>(
    'SELECT rowid, text FROM search_texts WHERE file_id = ?',
  );
  const insertSearchText = db.prepare(
    'INSERT INTO search_texts (file_id, project_id, text) VALUES (?, ?, ?) RETURNING rowid',
  );
  const updateSearchText = db.prepare('UPDATE search_texts SET text = ? WHERE rowid = ?');
  const deleteSearchText = db.prepare('DELETE FROM search_texts WHERE rowid = ?');
  const insertFts = db.prepare('INSERT INTO search_fts (rowid, filename, content, meta) VALUES (?, ?, ?, ?)');
  const deleteFts = db.prepare('DELETE FROM search_fts WHERE rowid = ?');
  const deleteFtsOfProject = db.prepare(
    'DELETE FROM search_fts WHERE rowid IN (SELECT rowid FROM search_texts WHERE project_id = ?)',
  );
  const deleteSearchTextsOfProject = db.prepare('DELETE FROM search_texts WHERE project_id = ?');
  const indexFile = (file: FileRecord, contentText: string | null) => {
    const stored = searchTextOf.get(file.id);
    const text =
      contentText === null ? (stored?.text ?? '') : truncateUtf8(contentText, SEARCH_LIMITS.contentMaxBytes);
    let rowid: number;
    if (stored) {
      rowid = stored.rowid;
      deleteFts.run(rowid);
      if (contentText !== null) updateSearchText.run(text, rowid);
    } else {
      rowid = (insertSearchText.get(file.id, file.projectId, text) as { rowid: number }).rowid;
    }
    const doc = fileSearchDocument(file, text);
    insertFts.run(rowid, fts5ColumnText(doc.filename), fts5ColumnText(doc.content), fts5ColumnText(doc.meta));
  };
  const unindexFile = (fileId: string) => {
    const stored = searchTextOf.get(fileId);
    if (!stored) return;
    deleteFts.run(stored.rowid);
    deleteSearchText.run(stored.rowid);
  };
  const deleteFilesOfProject = db.prepare('DELETE FROM files WHERE project_id = ?');
  const deleteRevisionsOfProject = db.prepare('DELETE FROM file_revisions WHERE project_id = ?');
  const deleteInlineContentsOfProject = db.prepare('DELETE FROM inline_contents WHERE project_id = ?');

  const insertRevision = db.prepare(revisions.insert);
  const deleteRevision = db.prepare('DELETE FROM file_revisions WHERE file_id = ? AND revision = ?');
  const insertInlineContent = db.prepare(
    'INSERT INTO inline_contents (project_id, content_key, bytes) VALUES (?, ?, ?)',
  );
  const deleteInlineContent = db.prepare(
    'DELETE FROM inline_contents WHERE project_id = ? AND content_key = ?',
  );

  const deleteTrashOfProject = db.prepare('DELETE FROM trash_items WHERE project_id = ?');
  const insertTrashItem = db.prepare(trash.insert);
  // The claim: whoever deletes the row gets it back; a second claim finds nothing.
  const deleteTrashItem = db.prepare<[string, string], Row>(
    `DELETE FROM trash_items WHERE project_id = ? AND id = ? RETURNING ${trash.columns()}`,
  );

  const insertBlobIntent = db.prepare(blobIntents.insert);
  const deleteBlobIntent = db.prepare('DELETE FROM blob_intents WHERE id = ?');

  const upsertInstance = db.prepare(
    `${instances.insert} ON CONFLICT (id) DO UPDATE SET hostname = excluded.hostname, pid = excluded.pid,
       started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at`,
  );
  const deleteInstance = db.prepare('DELETE FROM instances WHERE id = ?');

  return {
    insertAccount: (c) => {
      insertAccount.run(accounts.insertValues(c.account));
    },
    updateAccountTier: (c) => updateAccountTier.run(c.tier, c.accountId).changes > 0,

    insertApiKey: (c) => {
      insertApiKey.run(apiKeys.insertValues(c.apiKey));
    },
    revokeApiKey: (c) => revokeApiKey.run(c.revokedAt, c.keyId).changes > 0,

    insertProject: (c) => {
      insertProject.run(projects.insertValues(c.project));
    },
    updateProject: (c) => {
      updateProject.run(projects.updateValues(c.project));
    },

    insertFile: (c) => {
      insertFile.run(files.insertValues(c.file));
    },
    updateFile: (c) => {
      updateFile.run(files.updateValues(c.file));
    },
    indexFile: (c) => indexFile(c.file, c.contentText),
    deleteFile: (c) => {
      unindexFile(c.fileId);
      deleteFile.run(c.fileId);
    },
    deleteFilesOfProject: (c) => {
      deleteFtsOfProject.run(c.projectId);
      deleteSearchTextsOfProject.run(c.projectId);
      deleteRevisionsOfProject.run(c.projectId);
      deleteInlineContentsOfProject.run(c.projectId);
      deleteTrashOfProject.run(c.projectId);
      return deleteFilesOfProject.run(c.projectId).changes;
    },

    insertRevision: (c) => {
      insertRevision.run(revisions.insertValues(c.revision));
    },
    deleteRevisions: (c) => {
      for (const revision of c.revisions) deleteRevision.run(c.fileId, revision);
    },
    insertInlineContent: (c) => {
      // better-sqlite3 binds Buffers, not plain Uint8Arrays; this view copies nothing.
      insertInlineContent.run(
        c.projectId,
        c.contentKey,
        Buffer.from(c.bytes.buffer, c.bytes.byteOffset, c.bytes.byteLength),
      );
    },
    deleteInlineContent: (c) => {
      deleteInlineContent.run(c.projectId, c.contentKey);
    },

    insertTrashItem: (c) => {
      insertTrashItem.run(trash.insertValues(toTrashRow(c.item)));
    },
    deleteTrashItem: (c) => {
      const row = deleteTrashItem.get(c.projectId, c.trashId);
      return row === undefined ? null : fromTrashRow(trash.fromRow(row));
    },

    insertBlobIntent: (c) => {
      insertBlobIntent.run(blobIntents.insertValues(c.intent));
    },
    deleteBlobIntent: (c) => deleteBlobIntent.run(c.intentId).changes > 0,

    upsertInstance: (c) => {
      upsertInstance.run(instances.insertValues(c.instance));
    },
    deleteInstance: (c) => {
      deleteInstance.run(c.instanceId);
    },
  };
}
