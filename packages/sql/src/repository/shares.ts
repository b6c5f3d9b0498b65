import type { RecordsReader, RecordsTransaction } from '@mdstore/core';
import type { SqlExecutor } from '../executor.js';
import { orNull, type SqlContext } from './context.js';

type ShareReads = Pick<RecordsReader, 'findShareById' | 'findShareByHash' | 'listShares'>;
type ShareWrites = Pick<RecordsTransaction, 'insertShare' | 'revokeShare'>;

/** Share links (extensions §11): found by id or by the hash of their token, listed per project. */
export function shareStatements(c: SqlContext) {
  const { shares } = c;
  const SHARE = `SELECT ${shares.columns()} FROM shares`;
  const s = {
    byId: c.sql(`${SHARE} WHERE id = ?`),
    byHash: c.sql(`${SHARE} WHERE token_hash = ?`),
    ofProject: c.sql(`${SHARE} WHERE project_id = ? ORDER BY created_at, id`),
    revoke: c.sql('UPDATE shares SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
  };
  return {
    reads: (x: SqlExecutor): ShareReads => ({
      findShareById: async (q) => orNull(await x.get(s.byId, [q.shareId]), shares.fromRow),
      findShareByHash: async (q) => orNull(await x.get(s.byHash, [q.tokenHash]), shares.fromRow),
      listShares: async (q) => (await x.all(s.ofProject, [q.projectId])).map(shares.fromRow),
    }),
    writes: (x: SqlExecutor): ShareWrites => ({
      insertShare: async (c) => {
        await x.write(shares.insert, shares.insertValues(c.share));
      },
      revokeShare: async (c) => (await x.run(s.revoke, [c.revokedAt, c.shareId])) > 0,
    }),
  };
}
