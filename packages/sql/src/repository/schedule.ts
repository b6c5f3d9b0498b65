import type { RecordsReader, RecordsTransaction } from '@mdstore/core';
import type { SqlExecutor } from '../executor.js';
import { orNull, type SqlContext } from './context.js';

type ScheduleReads = Pick<RecordsReader, 'findScheduleSlot'>;
type ScheduleWrites = Pick<
  RecordsTransaction,
  'claimScheduleSlot' | 'finishScheduleSlot' | 'deleteScheduleSlotsBefore'
>;

/**
 * Slots of shared schedules (extensions §16): the instances sharing a store run each scheduled backup
 * once between them, under a lease on the slot's row, as the semantic indexer does on its cursors.
 */
export function scheduleStatements(c: SqlContext) {
  const { scheduleSlots: slots } = c;
  const s = {
    find: c.sql(`SELECT ${slots.columns()} FROM schedule_slots WHERE task = ? AND slot_at = ?`),
    create: c.sql(
      `INSERT INTO schedule_slots (task, slot_at, owner, lease_expires_at, attempts, finished_at, outcome)
       VALUES (?, ?, ?, ?, 1, NULL, NULL) ON CONFLICT (task, slot_at) DO NOTHING`,
    ),
    // One conditional UPDATE (SET reads the row as it was): of two instances claiming at once, one wins.
    take: c.sql(
      `UPDATE schedule_slots SET lease_expires_at = ?,
       attempts = CASE WHEN owner = ? THEN attempts ELSE attempts + 1 END, owner = ?
       WHERE task = ? AND slot_at = ? AND finished_at IS NULL
       AND (owner = ? OR ((lease_expires_at IS NULL OR lease_expires_at <= ?) AND attempts < ?))`,
    ),
    finish: c.sql(
      `UPDATE schedule_slots SET lease_expires_at = NULL, finished_at = ?, outcome = ?
       WHERE task = ? AND slot_at = ? AND owner = ? AND finished_at IS NULL`,
    ),
    // The oldest `limit` slots by the primary key: one bounded statement.
    deleteBefore: c.sql(
      `DELETE FROM schedule_slots WHERE (task, slot_at) IN
       (SELECT task, slot_at FROM schedule_slots WHERE task = ? AND slot_at < ? ORDER BY task, slot_at LIMIT ?)`,
    ),
  };
  return {
    reads: (x: SqlExecutor): ScheduleReads => ({
      findScheduleSlot: async (q) => orNull(await x.get(s.find, [q.task, q.slotAt]), slots.fromRow),
    }),
    writes: (x: SqlExecutor): ScheduleWrites => ({
      claimScheduleSlot: async (w) => {
        let claimed = (await x.run(s.create, [w.task, w.slotAt, w.owner, w.until])) > 0;
        if (!claimed) {
          const values = [w.until, w.owner, w.owner, w.task, w.slotAt, w.owner, w.now, w.maxAttempts];
          claimed = (await x.run(s.take, values)) > 0;
        }
        const slot = orNull(await x.get(s.find, [w.task, w.slotAt]), slots.fromRow);
        if (slot === null) throw new Error(`the schedule slot ${w.task} ${w.slotAt} vanished while claimed`);
        return { claimed, slot };
      },
      finishScheduleSlot: async (w) =>
        (await x.run(s.finish, [w.now, w.outcome, w.task, w.slotAt, w.owner])) > 0,
      deleteScheduleSlotsBefore: async (w) => x.run(s.deleteBefore, [w.task, w.before, w.limit]),
    }),
  };
}
