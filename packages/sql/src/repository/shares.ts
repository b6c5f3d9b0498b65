import type { RecordsReader, RecordsTransaction } from '@mdstore/core';
import type { SqlExecutor } from '../executor.js';
import { orNull, type SqlContext } from './context.js';

type ShareReads = Pick<RecordsReader, 'findShareById' | 'findShareByHash' | 'listShares'>;
type ShareWrites = Pick<RecordsTransaction, 'insertShare' | 'revokeShare'>;

/** A LIMIT no list reaches: the bounded statements serve a call that gives a filter but no limit. */
const UNLIMITED = Number.MAX_SAFE_INTEGER;

/** Share links (extensions §11): found by id or by the hash of their token, listed per project. */
export function shareStatements(c: SqlContext) {
  const { shares } = c;
  const SHARE = `SELECT ${shares.columns()} FROM shares`;
  const s = {
    byId: c.sql(`${SHARE} WHERE id = ?`),
    byHash: c.sql(`${SHARE} WHERE token_hash = ?`),
    ofProject: c.sql(`${SHARE} WHERE project_id = ? ORDER BY created_at, id`),
    liveOfProject: c.sql(
      `${SHARE} WHERE project_id = ? AND revoked_at IS NULL AND expires_at > ? ORDER BY created_at, id LIMIT ?`,
    ),
    ofProjectLimited: c.sql(`${SHARE} WHERE project_id = ? ORDER BY created_at, id LIMIT ?`),
    revoke: c.sql('UPDATE shares SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
  };
  return {
    reads: (x: SqlExecutor): ShareReads => ({
      findShareById: async (q) => orNull(await x.get(s.byId, [q.shareId]), shares.fromRow),
      findShareByHash: async (q) => orNull(await x.get(s.byHash, [q.tokenHash]), shares.fromRow),
      listShares: async (q) => {
        const limit = q.limit ?? UNLIMITED;
        const rows =
          q.liveAt !== undefined
            ? await x.all(s.liveOfProject, [q.projectId, q.liveAt, limit])
            : q.limit !== undefined
              ? await x.all(s.ofProjectLimited, [q.projectId, limit])
              : await x.all(s.ofProject, [q.projectId]);
        return rows.map(shares.fromRow);
      },
    }),
    writes: (x: SqlExecutor): ShareWrites => ({
      insertShare: async (c) => {
        await x.write(shares.insert, shares.insertValues(c.share));
      },
      revokeShare: async (c) => (await x.run(s.revoke, [c.revokedAt, c.shareId])) > 0,
    }),
  };
}
