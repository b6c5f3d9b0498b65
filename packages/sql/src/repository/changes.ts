import type { ChangeEventInput, ChangeEventRecord, RecordsReader, RecordsTransaction } from '@mdstore/core';
import type { SqlExecutor } from '../executor.js';
import type { SqlContext } from './context.js';

type ChangeReads = Pick<RecordsReader, 'listChangeEvents' | 'findChangeFeedHead' | 'findStoreSecret'>;
type ChangeWrites = Pick<
  RecordsTransaction,
  'appendChangeEvents' | 'deleteChangeEventsBefore' | 'keepStoreSecret'
>;

/** Events of one call grouped by account, each group in the order given. */
function byAccount(events: readonly ChangeEventInput[]): Map<string, ChangeEventInput[]> {
  const groups = new Map<string, ChangeEventInput[]>();
  for (const event of events) {
    const group = groups.get(event.accountId);
    if (group) group.push(event);
    else groups.set(event.accountId, [event]);
  }
  return groups;
}

/**
 * The change feed (extensions §7) and the store's shared secrets. `seq`s come from the account's row in
 * `change_feed_heads`, moved by an upsert in the writing transaction: the row stays locked (Postgres's
 * row lock; SQLite's one writer) until the commit, so the next writer of the account takes its `seq`s
 * only after this one committed, and `seq` order is commit order per account (docs/architecture.md).
 */
export function changeStatements(c: SqlContext) {
  const { changes, dialect } = c;
  const CHANGES = `SELECT ${changes.columns()} FROM change_events`;
  const s = {
    take: c.sql(
      `INSERT INTO change_feed_heads (account_id, last_seq, pruned_through) VALUES (?, ?, 0)
       ON CONFLICT (account_id) DO UPDATE SET last_seq = change_feed_heads.last_seq + excluded.last_seq
       RETURNING last_seq`,
    ),
    head: c.sql('SELECT last_seq, pruned_through FROM change_feed_heads WHERE account_id = ?'),
    page: c.sql(`${CHANGES} WHERE account_id = ? AND seq > ? ORDER BY seq LIMIT ?`),
    pageOf: c.sql(
      `${CHANGES} WHERE account_id = ? AND seq > ? AND ${dialect.inList('project_id', '?', 'text')} ORDER BY seq LIMIT ?`,
    ),
    expired: c.sql(
      `SELECT account_id, MAX(seq) AS through FROM
         (SELECT account_id, seq FROM change_events WHERE at < ? ORDER BY at LIMIT ?) doomed
       GROUP BY account_id`,
    ),
    prune: c.sql('DELETE FROM change_events WHERE account_id = ? AND seq <= ?'),
    mark: c.sql(
      'UPDATE change_feed_heads SET pruned_through = ? WHERE account_id = ? AND pruned_through < ?',
    ),
    notice: dialect.changeNotice === null ? null : c.sql(dialect.changeNotice),
    keepSecret: c.sql('INSERT INTO store_secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING'),
    secret: c.sql('SELECT value FROM store_secrets WHERE name = ?'),
  };
  return {
    reads: (x: SqlExecutor): ChangeReads => ({
      listChangeEvents: async (q) => {
        if (q.projectIds?.length === 0) return [];
        const rows =
          q.projectIds === undefined
            ? await x.all(s.page, [q.accountId, q.afterSeq, q.limit])
            : await x.all(s.pageOf, [q.accountId, q.afterSeq, dialect.list(q.projectIds, 'text'), q.limit]);
        return rows.map(changes.fromRow);
      },
      findChangeFeedHead: async (q) => {
        const row = await x.get(s.head, [q.accountId]);
        return { lastSeq: Number(row?.last_seq ?? 0), prunedThrough: Number(row?.pruned_through ?? 0) };
      },
      findStoreSecret: async (q) => {
        const row = await x.get(s.secret, [q.name]);
        return row === undefined ? null : String(row.value);
      },
    }),
    writes: (x: SqlExecutor): ChangeWrites => ({
      appendChangeEvents: async (w) => {
        const written: ChangeEventRecord[] = [];
        for (const [accountId, events] of byAccount(w.events)) {
          const row = await x.get(s.take, [accountId, events.length]);
          const first = Number(row?.last_seq) - events.length + 1;
          for (const [i, event] of events.entries()) {
            const record: ChangeEventRecord = { ...event, seq: first + i };
            await x.write(changes.insert, changes.insertValues(record));
            written.push(record);
          }
          if (s.notice !== null) await x.write(s.notice, [accountId]);
        }
        return written;
      },
      deleteChangeEventsBefore: async (w) => {
        const doomed = await x.all(s.expired, [w.before, w.limit]);
        let deleted = 0;
        for (const row of doomed) {
          const accountId = String(row.account_id);
          const through = Number(row.through);
          deleted += await x.run(s.prune, [accountId, through]);
          await x.write(s.mark, [through, accountId, through]);
        }
        return deleted;
      },
      keepStoreSecret: async (w) => {
        await x.write(s.keepSecret, [w.name, w.value]);
        const row = await x.get(s.secret, [w.name]);
        return String(row?.value ?? w.value);
      },
    }),
  };
}
