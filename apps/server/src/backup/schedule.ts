/**
 * `MDSTORE_BACKUP_SCHEDULE` (extensions §16, docs/operations.md "Scheduled backups"): when the server
 * backs itself up. Two forms, both in UTC:
 *
 * - an interval, `<n>s|m|h|d` (`30m`, `6h`, `1d`): at every multiple of it since the Unix epoch
 *   (`6h` → 00:00, 06:00, 12:00, 18:00 UTC), so every instance and every restart agrees on the slots;
 * - a daily time, `daily HH:MM` (`daily 02:30`): once a day at that time.
 *
 * Each is a period and an offset: the slots are the instants `offset + k × period`.
 */
export interface BackupSchedule {
  /** As configured, for logs and docs. */
  readonly text: string;
  readonly periodMs: number;
  readonly offsetMs: number;
}

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DAY_MS = UNIT_MS.d;
/** At least a minute apart outside tests would be wiser; seconds are allowed for test rigs. */
const MIN_PERIOD_MS = 1000;
const MAX_PERIOD_MS = 366 * DAY_MS;

/** The schedule `text` describes, or a message saying what form it should take. */
export function parseBackupSchedule(text: string): BackupSchedule | string {
  const trimmed = text.trim();
  const interval = /^(\d{1,6})\s*([smhd])$/i.exec(trimmed);
  if (interval) {
    const periodMs = Number(interval[1]) * UNIT_MS[interval[2]!.toLowerCase() as keyof typeof UNIT_MS];
    if (periodMs < MIN_PERIOD_MS || periodMs > MAX_PERIOD_MS)
      return 'must be an interval from 1s to 366d, or "daily HH:MM" (UTC)';
    return { text: trimmed, periodMs, offsetMs: 0 };
  }
  const daily = /^daily\s+([01]\d|2[0-3]):([0-5]\d)$/i.exec(trimmed);
  if (daily) {
    return {
      text: trimmed,
      periodMs: DAY_MS,
      offsetMs: Number(daily[1]) * UNIT_MS.h + Number(daily[2]) * UNIT_MS.m,
    };
  }
  return 'must be an interval such as 30m, 6h or 1d, or a daily time such as "daily 02:30" (UTC)';
}

/** The first slot strictly after `nowMs`. */
export function nextSlot(schedule: BackupSchedule, nowMs: number): number {
  const { periodMs, offsetMs } = schedule;
  const k = Math.floor((nowMs - offsetMs) / periodMs) + 1;
  return offsetMs + k * periodMs;
}

/** The name of the backup of one slot: `mdstore-backup-20261207T060000Z` (sorts by time). */
export function slotName(slotMs: number): string {
  const iso = new Date(slotMs).toISOString(); // 2026-12-07T06:00:00.000Z
  return `mdstore-backup-${iso.slice(0, 19).replace(/[-:]/g, '')}Z`;
}

export const SLOT_NAME = /^mdstore-backup-\d{8}T\d{6}Z$/;
