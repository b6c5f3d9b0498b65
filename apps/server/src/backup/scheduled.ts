import type { ScheduleSlots } from '@mdstore/core';
import type { Logger } from '../logger.js';
import { type BackupSource, createBackup } from './create.js';
import { type BackupRoot, type BackupS3Options, openBackupRoot } from './location.js';
import { type BackupSchedule, SLOT_NAME, slotName } from './schedule.js';
import { verifyBackup } from './verify.js';

/** Time as the scheduler sees it; tests pass a fake one (test/backup/scheduled.test.ts). */
export interface ScheduleClock {
  now(): number;
  /** Resolves after `ms`, or as soon as `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** setTimeout takes at most 2^31 − 1 ms: longer waits are taken in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export const systemClock: ScheduleClock = {
  now: () => Date.now(),
  async sleep(ms, signal) {
    let left = ms;
    while (left > 0 && !signal.aborted) {
      const step = Math.min(left, MAX_TIMER_MS);
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, step);
        timer.unref();
        signal.addEventListener('abort', done, { once: true });
      });
      left -= step;
    }
  },
};

/** What a scheduled backup tells the metrics (metrics.ts). */
export interface BackupObserver {
  observeBackup(outcome: 'ok' | 'failed', seconds: number, finishedAtMs: number): void;
}

export interface ScheduledBackupOptions {
  readonly schedule: BackupSchedule;
  /** `MDSTORE_BACKUP_DIR`: a folder or `s3://bucket/prefix`; each backup is an entry under it. */
  readonly to: string;
  /** `MDSTORE_BACKUP_KEEP`: complete backups kept, the newest. */
  readonly keep: number;
  readonly s3: BackupS3Options;
  readonly source: BackupSource;
  readonly logger: Logger;
  readonly observer?: BackupObserver;
  readonly clock?: ScheduleClock;
  /** Opens `to` (tests wrap it: a place whose reads go wrong). */
  readonly openRoot?: (to: string, s3: BackupS3Options) => Promise<BackupRoot>;
  /**
   * The slots' claims in the store that the instances share (`createScheduleSlots`, task `backup`): with
   * them, of several servers on one store only the one that claims a slot backs it up. Without them
   * (tests of one scheduler), every slot is this process's.
   */
  readonly slots?: ScheduleSlots;
  /** How often the holder of a slot renews its claim while it backs up (well inside the lease). */
  readonly renewEveryMs?: number;
}

/** The lease on a slot (`createScheduleSlots`): a holder that died frees its slot after this. */
export const BACKUP_SLOT_LEASE_MS = 60_000;
/** How many instances may take one slot in turn after its holders died (docs/operations.md). */
export const BACKUP_SLOT_ATTEMPTS = 3;
/** Finished slots are kept this long (a late instance must still find its slot done), then deleted. */
export const BACKUP_SLOTS_KEPT_MS = 7 * 86_400_000;

/**
 * The server's own backups (extensions §16), run by the process holding the maintenance duties only
 * (composition/server.ts): at each slot of the schedule, a backup named after the slot
 * (`mdstore-backup-<UTC time>`) is written under `to`, verified whole (every checksum, read back), and
 * only then are the complete backups beyond the newest `keep` deleted, with what backups cut short left
 * behind (entries without a manifest, older than the new one). A backup that fails, or does not verify
 * (it is then deleted), deletes nothing else. Slots missed while no server ran are not made up; a backup
 * that outlasts the time to the next slot skips the slots it overlapped.
 *
 * Several servers sharing one store (each with its own duty holder) run the same schedule: at each slot,
 * each claims it in the store (`o.slots`) and only the one that wins backs it up, renewing its claim as
 * it goes, then records the outcome. The others watch the slot: if its holder dies (its claim is not
 * renewed), its lease expires and one of them takes the slot again, at most `BACKUP_SLOT_ATTEMPTS` takes
 * in all, and never once the next slot is due (its backup is the newer one). A slot that failed is not
 * retried: the backup ran and told its failure; the next slot tries again.
 */
export function startScheduledBackups(o: ScheduledBackupOptions): { stop(): Promise<void> } {
  const clock = o.clock ?? systemClock;
  const stopping = new AbortController();
  const { signal } = stopping;
  o.logger.info('scheduled backups on', { schedule: o.schedule.text, to: o.to, keep: o.keep });
  const loop = (async () => {
    while (!signal.aborted) {
      const slot = o.schedule.next(clock.now());
      if (slot === null) {
        // Start-up refuses a pattern that never runs; one that has run its last stops here.
        o.logger.error('scheduled backups stop: the schedule has no slot left', {
          schedule: o.schedule.text,
        });
        return;
      }
      await clock.sleep(slot - clock.now(), signal);
      if (signal.aborted) return;
      if (o.slots) await takeSlot(o, o.slots, slot, clock, signal);
      else await runScheduledBackup(o, slot, clock);
    }
  })();
  return {
    async stop() {
      stopping.abort();
      await loop;
    },
  };
}

/**
 * Claims `slot` and backs it up if this instance wins it; else watches it until it is done, or its
 * holder's lease expires (then claims it again), or the next slot is due. Never throws.
 */
async function takeSlot(
  o: ScheduledBackupOptions,
  slots: ScheduleSlots,
  slot: number,
  clock: ScheduleClock,
  signal: AbortSignal,
): Promise<void> {
  const name = slotName(slot);
  const following = o.schedule.next(slot);
  for (;;) {
    let claim: Awaited<ReturnType<ScheduleSlots['claim']>>;
    try {
      claim = await slots.claim(slot);
    } catch (error) {
      // The store is out of reach: a backup of it could not be made either.
      const now = clock.now();
      o.observer?.observeBackup('failed', 0, now);
      o.logger.error('scheduled backup failed: its slot could not be claimed in the store', { name, error });
      return;
    }
    if (claim.state === 'done') return;
    if (claim.state === 'mine') {
      if (claim.attempt > 1)
        o.logger.warn('scheduled backup taken over: the instance that claimed it stopped', {
          name,
          attempt: claim.attempt,
        });
      await runClaimed(o, slots, slot, clock);
      return;
    }
    // Held by another instance: look again when its lease ends (it finishes first, or it died).
    if (following !== null && claim.until >= following) return;
    await clock.sleep(Math.max(claim.until - clock.now(), 1000), signal);
    if (signal.aborted) return;
  }
}

/** Backs up a slot this instance holds, renewing its claim meanwhile, then records the outcome. */
async function runClaimed(
  o: ScheduledBackupOptions,
  slots: ScheduleSlots,
  slot: number,
  clock: ScheduleClock,
): Promise<void> {
  const name = slotName(slot);
  let lost = false;
  const renewal = setInterval(
    () => {
      slots.renew(slot).then(
        (kept) => {
          if (!kept && !lost) {
            lost = true;
            o.logger.warn('the claim on a scheduled backup was lost while it ran', { name });
          }
        },
        (error: unknown) => o.logger.warn('renewing the claim on a scheduled backup failed', { name, error }),
      );
    },
    o.renewEveryMs ?? BACKUP_SLOT_LEASE_MS / 4,
  );
  renewal.unref();
  let outcome: 'ok' | 'failed';
  try {
    outcome = await runScheduledBackup(o, slot, clock);
  } finally {
    clearInterval(renewal);
  }
  try {
    if (!(await slots.finish(slot, outcome)))
      o.logger.warn('a scheduled backup ended after its claim was taken over', { name, outcome });
  } catch (error) {
    // Left unfinished, the slot's lease expires and another instance may back it up again.
    o.logger.warn('recording the end of a scheduled backup failed', { name, outcome, error });
  }
}

/** One scheduled backup (never throws: failures are logged and counted). */
export async function runScheduledBackup(
  o: ScheduledBackupOptions,
  slot: number,
  clock: ScheduleClock = systemClock,
): Promise<'ok' | 'failed'> {
  const started = clock.now();
  const name = slotName(slot);
  let root: BackupRoot | undefined;
  try {
    root = await (o.openRoot ?? openBackupRoot)(o.to, o.s3);
    const location = root.child(name);
    const report = await createBackup(o.source, { to: location, now: () => new Date(slot) });
    const verified = await verifyBackup(location);
    if (!verified.ok) {
      await location.remove().catch(() => undefined);
      throw new Error(
        `the backup ${location.path} does not verify: ${verified.problems.slice(0, 3).join('; ')}`,
      );
    }
    const finished = clock.now();
    o.observer?.observeBackup('ok', (finished - started) / 1000, finished);
    o.logger.info('scheduled backup done', {
      path: report.path,
      blobs: report.manifest.blobs.count,
      durationMs: finished - started,
    });
  } catch (error) {
    const finished = clock.now();
    o.observer?.observeBackup('failed', (finished - started) / 1000, finished);
    o.logger.error('scheduled backup failed', { name, error });
    await root?.close().catch(() => undefined);
    return 'failed';
  }
  try {
    const removed = await rotate(root, name, o.keep);
    if (removed.length > 0) o.logger.info('old backups deleted', { removed });
  } catch (error) {
    o.logger.warn('deleting old backups failed; retried after the next backup', { error });
  } finally {
    await root.close().catch(() => undefined);
  }
  return 'ok';
}

/** A backup entry's own name, or what a backup of that name cut short left (`<name>.partial-<hex>`). */
const ENTRY = /^(mdstore-backup-\d{8}T\d{6}Z)(\.partial-[0-9a-f]+)?$/;

/**
 * Keeps the `keep` newest complete backups (by name, which sorts by slot time) and the one just made;
 * deletes the older complete ones, and incomplete entries older than the one just made. Entries not
 * named by the schedule are never touched.
 */
export async function rotate(root: BackupRoot, newest: string, keep: number): Promise<string[]> {
  const entries = (await root.entries()).filter((entry) => ENTRY.test(entry.name));
  const complete = entries
    .filter((entry) => entry.complete && SLOT_NAME.test(entry.name))
    .map((entry) => entry.name)
    .sort()
    .reverse();
  const kept = new Set([newest, ...complete.slice(0, keep)]);
  const doomed = [
    ...complete.filter((name) => !kept.has(name)),
    ...entries
      .filter((entry) => !complete.includes(entry.name) && ENTRY.exec(entry.name)![1]! < newest)
      .map((entry) => entry.name),
  ];
  for (const name of doomed) await root.remove(name);
  return doomed;
}
