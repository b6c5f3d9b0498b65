import { Cron } from 'croner';

/**
 * `MDSTORE_BACKUP_SCHEDULE` (extensions §16, docs/operations.md "Scheduled backups"): when the server
 * backs itself up, evaluated in UTC. Two forms:
 *
 * - cron, the documented form: five fields, `minute hour day-of-month month day-of-week`
 *   (`30 2 * * *`, `*\/15 * * * *`, `0 3 * * 1-5`), or a nickname: `@hourly`, `@daily` (`@midnight`),
 *   `@weekly` (Sundays), `@monthly`, `@yearly` (`@annually`). Parsed and stepped by croner, in its
 *   standard 5-field mode: names (`MON`, `JAN`), lists, ranges and steps; when both day fields are
 *   restricted, a day matching either runs (as Vixie cron does); no seconds or years field;
 * - an interval, `<n>s|m|h|d` (`90m`, `6h`): a convenience kept for periods cron cannot say (seconds,
 *   90 minutes), at every multiple of it since the Unix epoch (`6h` → 00:00, 06:00, 12:00, 18:00 UTC),
 *   so every instance and every restart agrees on the slots.
 */
export interface BackupSchedule {
  /** As configured, for logs and docs. */
  readonly text: string;
  readonly kind: 'cron' | 'interval';
  /** The first slot strictly after `nowMs`; null when there is none (a cron pattern past its last). */
  next(nowMs: number): number | null;
}

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** At least a minute apart outside tests would be wiser; seconds are allowed for test rigs. */
const MIN_PERIOD_MS = 1000;
const MAX_PERIOD_MS = 366 * UNIT_MS.d;

const FORMS =
  'a cron expression of 5 fields "minute hour day-of-month month day-of-week" in UTC (such as "30 2 * * *"), @hourly, @daily, @weekly, @monthly, or an interval such as 30m or 6h';

/** The schedule `text` describes, or a message saying what is wrong and what form it should take. */
export function parseBackupSchedule(text: string): BackupSchedule | string {
  const trimmed = text.trim();
  const interval = /^(\d{1,6})\s*([smhd])$/i.exec(trimmed);
  if (interval) {
    const periodMs = Number(interval[1]) * UNIT_MS[interval[2]!.toLowerCase() as keyof typeof UNIT_MS];
    if (periodMs < MIN_PERIOD_MS || periodMs > MAX_PERIOD_MS)
      return `an interval must be from 1s to 366d; or use ${FORMS}`;
    return {
      text: trimmed,
      kind: 'interval',
      next: (nowMs) => (Math.floor(nowMs / periodMs) + 1) * periodMs,
    };
  }
  if (trimmed === '') return `must be ${FORMS}`;
  // '@reboot' is not a time; croner refuses it too, with a message about its environment.
  if (/^@reboot$/i.test(trimmed)) return `@reboot is not a schedule: must be ${FORMS}`;
  let cron: Cron;
  try {
    // Without a function croner starts no timer: the pattern only computes the slots.
    cron = new Cron(trimmed, { mode: '5-part', timezone: 'UTC', paused: true });
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).replace(/^CronPattern:\s*/, '');
    return `is not a valid schedule (${reason}): must be ${FORMS}`;
  }
  // A pattern that names no real day (`0 0 30 2 *`) would never run: refused, not silently idle.
  if (cron.nextRun(new Date()) === null) return `never runs: no date matches it; must be ${FORMS}`;
  return {
    text: trimmed,
    kind: 'cron',
    next: (nowMs) => cron.nextRun(new Date(nowMs))?.getTime() ?? null,
  };
}

/** The name of the backup of one slot: `mdstore-backup-20261207T060000Z` (sorts by time). */
export function slotName(slotMs: number): string {
  const iso = new Date(slotMs).toISOString(); // 2026-12-07T06:00:00.000Z
  return `mdstore-backup-${iso.slice(0, 19).replace(/[-:]/g, '')}Z`;
}

export const SLOT_NAME = /^mdstore-backup-\d{8}T\d{6}Z$/;
