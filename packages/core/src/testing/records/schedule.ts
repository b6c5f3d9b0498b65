import { describe, expect } from 'vitest';
import type { RecordsRepository } from '../../ports/records.js';
import { createScheduleSlots } from '../../use-cases/schedule-slots.js';
import { BASE_TIME } from '../builders.js';
import type { SuiteContext } from './support.js';

const TASK = 'backup';
const LEASE = 60_000;

const claimOn =
  (repository: RecordsRepository) =>
  (owner: string, slotAt: number, now: number, maxAttempts = 3) =>
    repository.withTransaction((tx) =>
      tx.claimScheduleSlot({ task: TASK, slotAt, owner, now, until: now + LEASE, maxAttempts }),
    );

/** Slots of shared schedules (extensions §16): one instance per scheduled backup, under a lease. */
export function scheduleSuite({ adapterName, test }: SuiteContext): void {
  describe('schedule slots', () => {
    test('the first claim takes a slot; another waits for its lease; the holder renews and finishes', async ({
      repository,
    }) => {
      const claim = claimOn(repository);
      const slotAt = BASE_TIME;
      expect(await repository.findScheduleSlot({ task: TASK, slotAt })).toBeNull();
      const first = {
        task: TASK,
        slotAt,
        owner: 'a',
        leaseExpiresAt: BASE_TIME + LEASE,
        attempts: 1,
        finishedAt: null,
        outcome: null,
      };
      expect(await claim('a', slotAt, BASE_TIME)).toEqual({ claimed: true, slot: first });
      // Another instance, before the lease expires: not taken, the holder's lease told.
      expect(await claim('b', slotAt, BASE_TIME + LEASE - 1)).toEqual({ claimed: false, slot: first });
      // The holder renews: its own slot, the attempt unchanged.
      const renewed = { ...first, leaseExpiresAt: BASE_TIME + 10 + LEASE };
      expect(await claim('a', slotAt, BASE_TIME + 10)).toEqual({ claimed: true, slot: renewed });
      const finish = (owner: string, outcome: 'ok' | 'failed', now: number) =>
        repository.withTransaction((tx) =>
          tx.finishScheduleSlot({ task: TASK, slotAt, owner, outcome, now }),
        );
      expect(await finish('b', 'ok', BASE_TIME + 20)).toBe(false);
      expect(await finish('a', 'ok', BASE_TIME + 20)).toBe(true);
      expect(await finish('a', 'failed', BASE_TIME + 21)).toBe(false);
      const done = { ...first, leaseExpiresAt: null, finishedAt: BASE_TIME + 20, outcome: 'ok' };
      expect(await repository.findScheduleSlot({ task: TASK, slotAt })).toEqual(done);
      // Finished: nobody takes it again, not even long after, nor its holder.
      expect(await claim('b', slotAt, BASE_TIME + 10 * LEASE)).toEqual({ claimed: false, slot: done });
      expect(await claim('a', slotAt, BASE_TIME + 10 * LEASE)).toEqual({ claimed: false, slot: done });
      // Another task's slot of the same time is another slot.
      const other = await repository.withTransaction((tx) =>
        tx.claimScheduleSlot({
          task: 'other',
          slotAt,
          owner: 'b',
          now: BASE_TIME,
          until: BASE_TIME + 1,
          maxAttempts: 1,
        }),
      );
      expect(other.claimed).toBe(true);
    });

    test('a holder that died: its lease expires and another instance takes the slot, up to maxAttempts', async ({
      repository,
    }) => {
      const claim = claimOn(repository);
      const slotAt = BASE_TIME + 3_600_000;
      expect((await claim('a', slotAt, BASE_TIME)).claimed).toBe(true);
      // At the expiry exactly, the lease is over.
      const second = await claim('b', slotAt, BASE_TIME + LEASE);
      expect(second).toEqual({
        claimed: true,
        slot: expect.objectContaining({ owner: 'b', attempts: 2, leaseExpiresAt: BASE_TIME + 2 * LEASE }),
      });
      // The first holder, back, has lost it: its renewal and its finish do nothing.
      expect((await claim('a', slotAt, BASE_TIME + LEASE + 1)).claimed).toBe(false);
      expect(
        await repository.withTransaction((tx) =>
          tx.finishScheduleSlot({
            task: TASK,
            slotAt,
            owner: 'a',
            outcome: 'ok',
            now: BASE_TIME + LEASE + 2,
          }),
        ),
      ).toBe(false);
      expect((await claim('c', slotAt, BASE_TIME + 2 * LEASE)).slot).toMatchObject({
        owner: 'c',
        attempts: 3,
      });
      // Taken three times: with maxAttempts 3, the fourth instance does not take it again.
      expect(await claim('d', slotAt, BASE_TIME + 3 * LEASE)).toEqual({
        claimed: false,
        slot: expect.objectContaining({ owner: 'c', attempts: 3, finishedAt: null }),
      });
    });

    test('deletes the oldest slots of a task before a time, at most limit', async ({ repository }) => {
      const claim = claimOn(repository);
      for (let i = 0; i < 5; i++) await claim('a', BASE_TIME + i, BASE_TIME);
      await claim('a', BASE_TIME, BASE_TIME).then(() =>
        repository.withTransaction((tx) =>
          tx.claimScheduleSlot({
            task: 'other',
            slotAt: BASE_TIME,
            owner: 'a',
            now: 0,
            until: 1,
            maxAttempts: 1,
          }),
        ),
      );
      const prune = (limit: number) =>
        repository.withTransaction((tx) =>
          tx.deleteScheduleSlotsBefore({ task: TASK, before: BASE_TIME + 4, limit }),
        );
      expect(await prune(3)).toBe(3);
      expect(await repository.findScheduleSlot({ task: TASK, slotAt: BASE_TIME + 2 })).toBeNull();
      expect(await repository.findScheduleSlot({ task: TASK, slotAt: BASE_TIME + 3 })).not.toBeNull();
      expect(await prune(3)).toBe(1);
      expect(await prune(3)).toBe(0);
      expect(await repository.findScheduleSlot({ task: TASK, slotAt: BASE_TIME + 4 })).not.toBeNull();
      expect(await repository.findScheduleSlot({ task: 'other', slotAt: BASE_TIME })).not.toBeNull();
    });

    test('two handles claiming the same slots at once: each slot is taken by exactly one', async (harness, {
      skip,
    }) => {
      if (!harness.repository.supports.sharedBetweenProcesses) skip(`${adapterName} is not shared`);
      if (!harness.openSecond) {
        throw new Error('the harness must provide openSecond() when supports.sharedBetweenProcesses');
      }
      const handles = [harness.repository, await harness.openSecond()];
      const clock = { now: () => BASE_TIME };
      const slots = handles.map((records, index) =>
        createScheduleSlots({
          records,
          clock,
          owner: `instance-${index}`,
          task: TASK,
          leaseMs: LEASE,
          maxAttempts: 3,
          keepMs: 86_400_000,
        }),
      );
      const taken = new Map<number, string[]>();
      await Promise.all(
        Array.from({ length: 10 }, (_, slot) =>
          Promise.all(
            slots.map(async (s, index) => {
              const claim = await s.claim(BASE_TIME + slot);
              if (claim.state === 'mine') taken.set(slot, [...(taken.get(slot) ?? []), `instance-${index}`]);
              else expect(claim).toEqual({ state: 'held', until: BASE_TIME + LEASE });
            }),
          ),
        ),
      );
      expect([...taken.keys()].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      for (const [slot, owners] of taken) {
        expect(owners, `slot ${slot}`).toHaveLength(1);
        const record = await harness.repository.findScheduleSlot({ task: TASK, slotAt: BASE_TIME + slot });
        expect(record?.owner).toBe(owners[0]);
        expect(record?.attempts).toBe(1);
      }
    });
  });
}
