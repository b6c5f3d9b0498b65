import type { RecordsRepository } from '../ports/records.js';
import type { Clock } from '../ports/runtime.js';

/** What claiming a slot of a shared schedule found. */
export type SlotClaim =
  /** This instance took it: run the task, renew the lease while running, then `finish`. */
  | { readonly state: 'mine'; readonly attempt: number }
  /** Another instance holds it until `until` (its lease): look again then, if it still matters. */
  | { readonly state: 'held'; readonly until: number }
  /** Finished (by any instance), or taken `maxAttempts` times already: nothing left to do. */
  | { readonly state: 'done' };

export interface ScheduleSlots {
  claim(slotAt: number): Promise<SlotClaim>;
  /** Extends this instance's lease; false when it has lost the slot (another instance took it over). */
  renew(slotAt: number): Promise<boolean>;
  /** Records the outcome and releases the lease (false when the slot was lost); prunes old slots. */
  finish(slotAt: number, outcome: 'ok' | 'failed'): Promise<boolean>;
}

export interface ScheduleSlotsOptions {
  readonly records: RecordsRepository;
  readonly clock: Clock;
  /** This instance's name on the leases it takes (unique per process: the store's instance id). */
  readonly owner: string;
  /** The schedule's name (`backup`). */
  readonly task: string;
  /** How long a claim holds without renewal: a holder that died frees its slot after this. */
  readonly leaseMs: number;
  /** How many instances may take one slot in turn (a task that kills its process is not retried forever). */
  readonly maxAttempts: number;
  /** Slots older than this (before the one finished) are deleted, at most `PRUNE_BATCH` at a time. */
  readonly keepMs: number;
}

const PRUNE_BATCH = 100;

/**
 * A schedule that the instances sharing a store run once per slot between them (extensions §16:
 * scheduled backups, docs/operations.md). Each instance computes the same slots; at a slot, each
 * claims it in the store (one conditional write: one wins); the winner holds a lease it renews while
 * it runs, and finishes the slot. A holder that died stops renewing: once its lease has expired,
 * another instance may take the slot again, up to `maxAttempts` takes in all.
 */
export function createScheduleSlots(o: ScheduleSlotsOptions): ScheduleSlots {
  const { records, clock, owner, task } = o;
  const take = (slotAt: number) => {
    const now = clock.now();
    return records.withTransaction((tx) =>
      tx.claimScheduleSlot({ task, slotAt, owner, now, until: now + o.leaseMs, maxAttempts: o.maxAttempts }),
    );
  };
  return {
    async claim(slotAt) {
      const { claimed, slot } = await take(slotAt);
      if (claimed) return { state: 'mine', attempt: slot.attempts };
      if (slot.finishedAt !== null || slot.attempts >= o.maxAttempts) return { state: 'done' };
      return { state: 'held', until: slot.leaseExpiresAt ?? clock.now() };
    },
    async renew(slotAt) {
      const { claimed, slot } = await take(slotAt);
      return claimed && slot.owner === owner;
    },
    async finish(slotAt, outcome) {
      const now = clock.now();
      return records.withTransaction(async (tx) => {
        const finished = await tx.finishScheduleSlot({ task, slotAt, owner, outcome, now });
        await tx.deleteScheduleSlotsBefore({ task, before: slotAt - o.keepMs, limit: PRUNE_BATCH });
        return finished;
      });
    },
  };
}
