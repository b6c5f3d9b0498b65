import type { AuditQuery, RecordsReader, RecordsTransaction } from '@mdstore/core';
import type { SqlExecutor } from '../executor.js';
import type { SqlContext } from './context.js';

type AuditReads = Pick<RecordsReader, 'listAuditEntries'>;
type AuditWrites = Pick<RecordsTransaction, 'insertAuditEntries' | 'deleteAuditEntriesBefore'>;

/** The audit log (extensions §8): batches of entries in, pages newest first out, old entries dropped. */
export function auditStatements(c: SqlContext) {
  const { audit } = c;
  const AUDIT = `SELECT ${audit.columns()} FROM audit_entries`;
  const s = {
    expire: c.sql(
      'DELETE FROM audit_entries WHERE id IN (SELECT id FROM audit_entries WHERE at < ? ORDER BY at LIMIT ?)',
    ),
  };
  /** The page's statement: the filters given, in the index's order `(account_id, at, id)`. */
  const page = (q: AuditQuery) => {
    const where = ['account_id = ?'];
    const params: unknown[] = [q.accountId];
    if (q.after !== undefined) {
      where.push('(at < ? OR (at = ? AND id < ?))');
      params.push(q.after.at, q.after.at, q.after.id);
    }
    if (q.since !== undefined) {
      where.push('at >= ?');
      params.push(q.since);
    }
    if (q.until !== undefined) {
      where.push('at < ?');
      params.push(q.until);
    }
    if (q.keyId !== undefined) {
      where.push('key_id = ?');
      params.push(q.keyId);
    }
    if (q.projectIds !== undefined) {
      // An empty list matches nothing (`IN ()` is not valid SQL).
      where.push(
        q.projectIds.length === 0 ? '1 = 0' : `project_id IN (${q.projectIds.map(() => '?').join(', ')})`,
      );
      params.push(...q.projectIds);
    }
    if (q.status !== undefined) {
      where.push('status = ?');
      params.push(q.status);
    }
    params.push(q.limit);
    return { sql: c.sql(`${AUDIT} WHERE ${where.join(' AND ')} ORDER BY at DESC, id DESC LIMIT ?`), params };
  };
  return {
    reads: (x: SqlExecutor): AuditReads => ({
      listAuditEntries: async (q) => {
        const { sql, params } = page(q);
        return (await x.all(sql, params)).map(audit.fromRow);
      },
    }),
    writes: (x: SqlExecutor): AuditWrites => ({
      insertAuditEntries: async (c) => {
        for (const entry of c.entries) await x.write(audit.insert, audit.insertValues(entry));
      },
      deleteAuditEntriesBefore: async (c) => x.run(s.expire, [c.before, c.limit]),
    }),
  };
}
