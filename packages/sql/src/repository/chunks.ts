import type { RecordsReader, RecordsTransaction } from '@mdstore/core';
import type { Row, SqlExecutor } from '../executor.js';
import { count, orNull, type SqlContext } from './context.js';

type ChunkReads = Pick<
  RecordsReader,
  | 'listFileChunks'
  | 'listChunkVectors'
  | 'countChunkVectors'
  | 'findVectorLists'
  | 'countEmbeddedFiles'
  | 'findEmbeddingCursor'
>;
type ChunkWrites = Pick<
  RecordsTransaction,
  | 'replaceFileChunks'
  | 'deleteFileChunks'
  | 'deleteProjectChunks'
  | 'claimEmbeddingCursor'
  | 'saveEmbeddingCursor'
  | 'saveVectorLists'
  | 'setChunkLists'
>;

/**
 * Embedded chunks and the semantic indexer's cursors (extensions §15). Vectors are plain bytes: the
 * similarity is computed by the core over the rows read (an exact scan), so both engines give the same
 * hits without sqlite-vec or pgvector.
 */
export function chunkStatements(c: SqlContext) {
  const { chunks, embeddingCursors: cursors, vectorLists, dialect } = c;
  const CHUNK = `SELECT ${chunks.columns()} FROM search_chunks`;
  const inProjects = dialect.inList('project_id', '?', 'text');
  const inLists = dialect.inList('list_no', '?', 'integer');
  const AFTER_IN_LIST = `(project_id > ? OR (project_id = ? AND file_id > ?)
       OR (project_id = ? AND file_id = ? AND ordinal > ?))`;
  const ORDER = 'ORDER BY project_id, file_id, ordinal LIMIT ?';
  // Listed chunks come list by list: each list is one range of `search_chunks_list`, read in its order.
  const LISTED = `model = ? AND list_generation = ? AND ${inLists} AND ${inProjects}`;
  const UNLISTED = `model = ? AND list_generation IS NULL AND ${inProjects}`;
  const s = {
    ofFile: c.sql(`${CHUNK} WHERE file_id = ? ORDER BY ordinal`),
    scan: c.sql(`${CHUNK} WHERE model = ? AND ${inProjects} ${ORDER}`),
    scanAfter: c.sql(`${CHUNK} WHERE model = ? AND ${inProjects} AND ${AFTER_IN_LIST} ${ORDER}`),
    scanListed: c.sql(`${CHUNK} WHERE ${LISTED} ORDER BY list_no, project_id, file_id, ordinal LIMIT ?`),
    scanListedAfter: c.sql(
      `${CHUNK} WHERE ${LISTED} AND (list_no > ? OR (list_no = ? AND ${AFTER_IN_LIST}))
       ORDER BY list_no, project_id, file_id, ordinal LIMIT ?`,
    ),
    scanUnlisted: c.sql(`${CHUNK} WHERE ${UNLISTED} ${ORDER}`),
    scanUnlistedAfter: c.sql(`${CHUNK} WHERE ${UNLISTED} AND ${AFTER_IN_LIST} ${ORDER}`),
    countUpTo: c.sql(
      `SELECT COUNT(*) AS n FROM (SELECT 1 FROM search_chunks WHERE model = ? AND ${inProjects} LIMIT ?) AS counted`,
    ),
    lists: c.sql(`SELECT ${vectorLists.columns()} FROM vector_lists WHERE account_id = ? AND model = ?`),
    saveLists: c.sql(
      `${vectorLists.insert} ON CONFLICT (account_id, model) DO UPDATE SET generation = excluded.generation,
       dimensions = excluded.dimensions, count = excluded.count, centroids = excluded.centroids,
       trained_rows = excluded.trained_rows, created_at = excluded.created_at`,
    ),
    setList: c.sql(
      'UPDATE search_chunks SET list_generation = ?, list_no = ? WHERE file_id = ? AND ordinal = ?',
    ),
    countFiles: c.sql(
      'SELECT COUNT(DISTINCT file_id) AS n FROM search_chunks WHERE project_id = ? AND model = ?',
    ),
    deleteOfFile: c.sql('DELETE FROM search_chunks WHERE file_id = ? OR (project_id = ? AND filename = ?)'),
    deleteByName: c.sql('DELETE FROM search_chunks WHERE project_id = ? AND filename = ?'),
    // The first `limit` rows of the project by `search_chunks_name_idx`: each batch a range of that index.
    deleteOfProject: c.sql(
      `DELETE FROM search_chunks WHERE (file_id, ordinal) IN
       (SELECT file_id, ordinal FROM search_chunks WHERE project_id = ? ORDER BY project_id, filename LIMIT ?)`,
    ),
    cursor: c.sql(`SELECT ${cursors.columns()} FROM embedding_cursors WHERE account_id = ?`),
    newCursor: c.sql(
      `INSERT INTO embedding_cursors (account_id, seq, model, lease_owner, lease_expires_at, updated_at)
       VALUES (?, 0, NULL, NULL, NULL, ?) ON CONFLICT (account_id) DO NOTHING`,
    ),
    // One conditional UPDATE: of two instances claiming at once, the store lets one row change.
    claim: c.sql(
      `UPDATE embedding_cursors SET lease_owner = ?, lease_expires_at = ?
       WHERE account_id = ? AND (lease_owner IS NULL OR lease_owner = ? OR lease_expires_at IS NULL
       OR lease_expires_at <= ?)`,
    ),
    save: c.sql(
      `UPDATE embedding_cursors SET seq = ?, model = ?, lease_owner = ?, lease_expires_at = ?, updated_at = ?
       WHERE account_id = ? AND lease_owner = ?`,
    ),
  };
  const projectList = (ids: readonly string[]) => dialect.list(ids, 'text');
  return {
    reads: (x: SqlExecutor): ChunkReads => ({
      listFileChunks: async (q) => (await x.all(s.ofFile, [q.fileId])).map(chunks.fromRow),
      listChunkVectors: async (q) => {
        if (q.projectIds.length === 0) return [];
        const a = q.after;
        const position = a ? [a.projectId, a.projectId, a.fileId, a.projectId, a.fileId, a.ordinal] : [];
        const projects = projectList(q.projectIds);
        let rows: Row[];
        if (q.lists === undefined) {
          rows = await x.all(a ? s.scanAfter : s.scan, [q.model, projects, ...position, q.limit]);
        } else if (q.lists === null) {
          rows = await x.all(a ? s.scanUnlistedAfter : s.scanUnlisted, [
            q.model,
            projects,
            ...position,
            q.limit,
          ]);
        } else {
          if (q.lists.listNos.length === 0) return [];
          const lists = [q.model, q.lists.generation, dialect.list(q.lists.listNos, 'integer'), projects];
          const listNo = a?.listNo ?? -1;
          rows = await x.all(
            a ? s.scanListedAfter : s.scanListed,
            a ? [...lists, listNo, listNo, ...position, q.limit] : [...lists, q.limit],
          );
        }
        return rows.map(chunks.fromRow);
      },
      countChunkVectors: async (q) => {
        if (q.projectIds.length === 0) return 0;
        const limit = Math.min(q.limit, Number.MAX_SAFE_INTEGER);
        return count((await x.get(s.countUpTo, [q.model, projectList(q.projectIds), limit]))?.n);
      },
      findVectorLists: async (q) => orNull(await x.get(s.lists, [q.accountId, q.model]), vectorLists.fromRow),
      countEmbeddedFiles: async (q) => count((await x.get(s.countFiles, [q.projectId, q.model]))?.n),
      findEmbeddingCursor: async (q) => orNull(await x.get(s.cursor, [q.accountId]), cursors.fromRow),
    }),
    writes: (x: SqlExecutor): ChunkWrites => ({
      replaceFileChunks: async (w) => {
        await x.run(s.deleteOfFile, [w.fileId, w.projectId, w.filename]);
        for (const chunk of w.chunks) await x.write(chunks.insert, chunks.insertValues(chunk));
      },
      deleteFileChunks: async (w) => x.run(s.deleteByName, [w.projectId, w.filename]),
      deleteProjectChunks: async (w) => x.run(s.deleteOfProject, [w.projectId, w.limit]),
      claimEmbeddingCursor: async (w) => {
        await x.run(s.newCursor, [w.accountId, w.now]);
        const changed = await x.run(s.claim, [w.owner, w.until, w.accountId, w.owner, w.now]);
        return changed > 0 ? orNull(await x.get(s.cursor, [w.accountId]), cursors.fromRow) : null;
      },
      saveVectorLists: async (w) => x.write(s.saveLists, vectorLists.insertValues(w)),
      setChunkLists: async (w) => {
        for (const chunk of w.chunks)
          await x.write(s.setList, [w.generation, chunk.listNo, chunk.fileId, chunk.ordinal]);
      },
      saveEmbeddingCursor: async (w) => {
        const owner = w.leaseExpiresAt === null ? null : w.owner;
        const values = [w.seq, w.model, owner, w.leaseExpiresAt, w.now, w.accountId, w.owner];
        return (await x.run(s.save, values)) > 0;
      },
    }),
  };
}
