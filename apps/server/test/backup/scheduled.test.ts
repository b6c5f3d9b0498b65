import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BackupRoot, openBackupRoot } from '../../src/backup/location.js';
import { type BackupSchedule, parseBackupSchedule, slotName } from '../../src/backup/schedule.js';
import { runScheduledBackup, type ScheduleClock, startScheduledBackups } from '../../src/backup/scheduled.js';
import { verifyBackup } from '../../src/backup/verify.js';
import { type ServerProcess, startServer } from '../../src/composition/server.js';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/logger.js';
import { fileS3rver, skipWithoutPostgres } from '../support/adapters.js';
import { openPair, text } from './pairs.js';

/**
 * Extensions §16, scheduled backups: `MDSTORE_BACKUP_SCHEDULE`'s forms, a server that backs itself up at
 * each slot (only the process holding the duties), keeps the newest `MDSTORE_BACKUP_KEEP` after a verified
 * backup and deletes nothing after a failed one, and the backup metrics. Time is a fake clock.
 */

const skipPostgres = await skipWithoutPostgres('scheduled backups to S3');

/** Time that moves only when the test says: `fire` wakes the scheduler and waits until it sleeps again. */
class FakeClock implements ScheduleClock {
  private readonly sleepers: { until: number; wake: () => void }[] = [];
  private onSleep: (() => void) | undefined;
  constructor(private time: number) {}
  now() {
    return this.time;
  }
  sleep(ms: number, signal: AbortSignal) {
    return new Promise<void>((resolve) => {
      const sleeper = { until: this.time + ms, wake: resolve };
      this.sleepers.push(sleeper);
      signal.addEventListener(
        'abort',
        () => {
          this.sleepers.splice(this.sleepers.indexOf(sleeper), 1);
          resolve();
        },
        { once: true },
      );
      const notify = this.onSleep;
      this.onSleep = undefined;
      notify?.();
    });
  }
  get sleeping() {
    return this.sleepers.length;
  }
  /** When the only sleeper wakes (ms since the epoch). */
  get wakesAt() {
    return this.sleepers[0]!.until;
  }
  /** Moves time to the sleeper's wake-up and wakes it; resolves once the scheduler sleeps again. */
  async fire(): Promise<void> {
    const sleeper = this.sleepers.shift()!;
    this.time = sleeper.until;
    const slept = new Promise<void>((resolve) => {
      this.onSleep = resolve;
    });
    sleeper.wake();
    await slept;
  }
}

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'mdstore-scheduled-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const HOUR = 3_600_000;
const START = Date.parse('2026-03-01T00:30:00Z');

/** The schedule `text` describes (fails the test when it is refused). */
function schedule(text: string): BackupSchedule {
  const parsed = parseBackupSchedule(text);
  if (typeof parsed === 'string') throw new Error(`${text}: ${parsed}`);
  return parsed;
}

/** The first `n` slots of `text` after `from` (ISO), as ISO strings. */
function slots(text: string, from: string, n = 3): string[] {
  const s = schedule(text);
  const out: string[] = [];
  let at = Date.parse(from);
  for (let i = 0; i < n; i++) {
    at = s.next(at)!;
    out.push(new Date(at).toISOString());
  }
  return out;
}

describe('MDSTORE_BACKUP_SCHEDULE', () => {
  it('takes 5-field cron in UTC: steps, lists, ranges, names, day-of-week, and the nicknames', () => {
    // START is Sunday 2026-03-01 00:30 UTC.
    expect(slots('*/15 * * * *', '2026-03-01T00:30:00Z')).toEqual([
      '2026-03-01T00:45:00.000Z', // strictly after now: 00:30 itself is not a slot
      '2026-03-01T01:00:00.000Z',
      '2026-03-01T01:15:00.000Z',
    ]);
    expect(slots('30 2 * * *', '2026-03-01T00:30:00Z', 2)).toEqual([
      '2026-03-01T02:30:00.000Z',
      '2026-03-02T02:30:00.000Z',
    ]);
    // Day of week: Monday to Friday at 03:00, so Saturday 7 and Sunday 8 are skipped.
    expect(slots('0 3 * * 1-5', '2026-03-05T12:00:00Z')).toEqual([
      '2026-03-06T03:00:00.000Z',
      '2026-03-09T03:00:00.000Z',
      '2026-03-10T03:00:00.000Z',
    ]);
    // Names, lists, a step over a range; 0 and 7 are both Sunday.
    expect(slots('0 4 * * SAT,SUN', '2026-03-01T00:30:00Z')).toEqual([
      '2026-03-01T04:00:00.000Z',
      '2026-03-07T04:00:00.000Z',
      '2026-03-08T04:00:00.000Z',
    ]);
    expect(slots('0 0 * * 7', '2026-03-01T00:30:00Z', 1)).toEqual(['2026-03-08T00:00:00.000Z']);
    expect(slots('0 9-17/4 * * *', '2026-03-01T00:30:00Z')).toEqual([
      '2026-03-01T09:00:00.000Z',
      '2026-03-01T13:00:00.000Z',
      '2026-03-01T17:00:00.000Z',
    ]);
    expect(slots('0 1 1 JAN,JUL *', '2026-03-01T00:30:00Z', 2)).toEqual([
      '2026-07-01T01:00:00.000Z',
      '2027-01-01T01:00:00.000Z',
    ]);
    // Both day fields restricted: either matches (standard cron), the 15th or any Monday.
    expect(slots('0 0 15 * 1', '2026-03-10T00:30:00Z')).toEqual([
      '2026-03-15T00:00:00.000Z',
      '2026-03-16T00:00:00.000Z',
      '2026-03-23T00:00:00.000Z',
    ]);
    expect(slots('@hourly', '2026-03-01T00:30:00Z', 1)).toEqual(['2026-03-01T01:00:00.000Z']);
    expect(slots('@daily', '2026-03-01T00:30:00Z', 1)).toEqual(['2026-03-02T00:00:00.000Z']);
    expect(slots('@weekly', '2026-03-01T00:30:00Z', 1)).toEqual(['2026-03-08T00:00:00.000Z']);
    expect(slots('@monthly', '2026-03-01T00:30:00Z', 1)).toEqual(['2026-04-01T00:00:00.000Z']);
    expect(slots('@yearly', '2026-03-01T00:30:00Z', 1)).toEqual(['2027-01-01T00:00:00.000Z']);
    // February 29th: only leap years.
    expect(slots('0 0 29 2 *', '2026-03-01T00:30:00Z', 2)).toEqual([
      '2028-02-29T00:00:00.000Z',
      '2032-02-29T00:00:00.000Z',
    ]);
    expect(schedule(' 30 2 * * * ')).toMatchObject({ text: '30 2 * * *', kind: 'cron' });
  });

  it('reads cron in UTC whatever the time zone of the process', () => {
    const zone = process.env.TZ;
    try {
      for (const tz of ['America/New_York', 'Asia/Kolkata']) {
        process.env.TZ = tz; // Node reads it again on assignment
        expect(new Date(Date.parse('2026-03-01T00:00:00Z')).getHours(), tz).not.toBe(0);
        expect(slots('30 2 * * 1', '2026-03-01T00:30:00Z', 1), tz).toEqual(['2026-03-02T02:30:00.000Z']);
      }
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it('also takes an interval aligned on the epoch', () => {
    expect(schedule('6h').kind).toBe('interval');
    expect(slots('6h', '2026-03-01T00:30:00Z', 2)).toEqual([
      '2026-03-01T06:00:00.000Z',
      '2026-03-01T12:00:00.000Z',
    ]);
    // A slot is strictly after now: at 06:00 exactly, the next is 12:00.
    expect(slots('6h', '2026-03-01T06:00:00Z', 1)).toEqual(['2026-03-01T12:00:00.000Z']);
    expect(slots('90m', '2026-03-01T00:30:00Z', 2)).toEqual([
      '2026-03-01T01:30:00.000Z',
      '2026-03-01T03:00:00.000Z',
    ]);
    expect(slotName(Date.parse('2026-03-01T06:00:00Z'))).toBe('mdstore-backup-20260301T060000Z');
  });

  it('refuses what is neither, saying what it wants', () => {
    for (const wrong of [
      '6',
      '0h',
      '400d',
      'weekly',
      'daily 02:30',
      '60 * * * *',
      '0 24 * * *',
      '0 0 0 * *',
      '0 0 * 13 *',
      '0 0 * * 8',
      '0 0 * * FUNDAY',
      '*/0 * * * *',
      '5/15 * * * *',
      '0 0 * * * *',
      '0 0 0 * * * 2027',
      '* * * *',
      '0 0 30 2 *',
      '0 0 31 4 *',
      '@reboot',
      '@fortnightly',
    ]) {
      const refused = parseBackupSchedule(wrong);
      expect(typeof refused, wrong).toBe('string');
      expect(refused, wrong).toMatch(/5 fields "minute hour day-of-month month day-of-week" in UTC/);
    }
    expect(parseBackupSchedule('0 0 31 4 *')).toMatch(/^never runs/);
    expect(parseBackupSchedule('61 * * * *')).toMatch(/minute/);
  });

  it('needs MDSTORE_BACKUP_DIR, keeps 7 by default, and checks an s3:// place', () => {
    expect(() => loadConfig({ MDSTORE_BACKUP_SCHEDULE: '6h' })).toThrow(ConfigError);
    expect(() => loadConfig({ MDSTORE_BACKUP_SCHEDULE: 'often', MDSTORE_BACKUP_DIR: '/b' })).toThrow(
      /MDSTORE_BACKUP_SCHEDULE/,
    );
    expect(() => loadConfig({ MDSTORE_BACKUP_SCHEDULE: '6h', MDSTORE_BACKUP_DIR: 's3://A_B/x' })).toThrow(
      /MDSTORE_BACKUP_DIR/,
    );
    const config = loadConfig(
      { MDSTORE_BACKUP_SCHEDULE: '0 1 * * *', MDSTORE_BACKUP_DIR: 'backups' },
      { cwd: '/srv' },
    );
    expect(config.backup).toMatchObject({
      to: '/srv/backups',
      keep: 7,
      schedule: { text: '0 1 * * *', kind: 'cron' },
    });
    // The S3 settings serve s3:// backups of an fs instance: not reported as ignored then.
    const toS3 = loadConfig({
      MDSTORE_BACKUP_SCHEDULE: '6h',
      MDSTORE_BACKUP_DIR: 's3://backups/mdstore',
      MDSTORE_S3_ENDPOINT: 'http://127.0.0.1:9000',
      MDSTORE_S3_FORCE_PATH_STYLE: 'true',
      MDSTORE_S3_CHECKSUM: 'when_required',
    });
    expect(toS3.warnings).toEqual([]);
    expect(toS3.backup.s3).toEqual({
      endpoint: 'http://127.0.0.1:9000',
      forcePathStyle: true,
      checksum: 'WHEN_REQUIRED',
    });
    expect(loadConfig({ MDSTORE_S3_ENDPOINT: 'http://127.0.0.1:9000' }).warnings).toEqual([
      'MDSTORE_S3_ENDPOINT is ignored: MDSTORE_BLOB_STORE is fs',
    ]);
  });
});

describe('scheduled backups in the server (SQLite + fs)', () => {
  let server: ServerProcess | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it('backs up at each slot in the duty holder only, keeps the newest after verifying, and tells the metrics', async () => {
    const data = path.join(root, 'server');
    const backups = path.join(root, 'server-backups');
    const config = loadConfig({
      MDSTORE_DATA_DIR: data,
      PORT: '0',
      MDSTORE_METRICS_PORT: '0',
      MDSTORE_CONTENT_WORK_THREADS: '0',
      MDSTORE_BACKUP_SCHEDULE: '@hourly',
      MDSTORE_BACKUP_DIR: backups,
      MDSTORE_BACKUP_KEEP: '2',
    });
    const clock = new FakeClock(START);
    server = await startServer({ config, logger: silentLogger, duties: false, backupClock: clock });
    // Without the duties, no schedule runs here.
    expect(clock.sleeping).toBe(0);
    server.takeDuties();
    expect(clock.sleeping).toBe(1);
    expect(new Date(clock.wakesAt).toISOString()).toBe('2026-03-01T01:00:00.000Z');

    const created = await server.runtime.store.accounts.create({ name: 'scheduled' });
    const principal = await server.runtime.store.authenticate({ apiKey: created.apiKey.apiKey });
    const at = { principal, projectId: created.defaultProject.id };
    const listed = async () => (await readdir(backups)).sort();

    await server.runtime.store.files.upload({ ...at, filename: 'one.md', content: text('# one\n') });
    await clock.fire();
    expect(await listed()).toEqual(['mdstore-backup-20260301T010000Z']);
    await server.runtime.store.files.upload({ ...at, filename: 'two.md', content: text('# two\n') });
    await clock.fire();
    await clock.fire();
    // Three backups, two kept: the newest, each whole.
    expect(await listed()).toEqual(['mdstore-backup-20260301T020000Z', 'mdstore-backup-20260301T030000Z']);
    for (const name of await listed()) {
      const report = await verifyBackup(path.join(backups, name));
      expect(report.ok, report.problems.join('\n')).toBe(true);
      // Dated by its slot.
      const slot = name.replace(
        /^mdstore-backup-(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/,
        '$1-$2-$3T$4:$5:$6.000Z',
      );
      expect(report.manifest?.created_at).toBe(slot);
      expect(report.manifest?.tables.find((t) => t.name === 'files')?.rows).toBe(2);
    }

    // A backup that fails (its place is taken) deletes nothing, not even what an older one cut short left.
    const leftover = 'mdstore-backup-20260301T010000Z.partial-0123456789ab';
    await mkdir(path.join(backups, leftover));
    await mkdir(path.join(backups, 'mdstore-backup-20260301T040000Z'));
    await clock.fire();
    expect(await listed()).toEqual([
      leftover,
      'mdstore-backup-20260301T020000Z',
      'mdstore-backup-20260301T030000Z',
      'mdstore-backup-20260301T040000Z',
    ]);

    const scrape = await (await fetch(server.metricsUrl!)).text();
    expect(scrape).toMatch(/^mdstore_backups_total\{outcome="ok"\} 3$/m);
    expect(scrape).toMatch(/^mdstore_backups_total\{outcome="failed"\} 1$/m);
    expect(scrape).toContain(
      `mdstore_backup_last_success_timestamp_seconds ${Date.parse('2026-03-01T03:00:00Z') / 1000}\n`,
    );
    expect(scrape).toContain(
      `mdstore_backup_last_failure_timestamp_seconds ${Date.parse('2026-03-01T04:00:00Z') / 1000}\n`,
    );
    // The fake clock stands still during a run: the duration is what it says, 0.
    expect(scrape).toMatch(/^mdstore_backup_last_duration_seconds 0$/m);

    // The next one succeeds again and deletes the older ones, and what a backup cut short left.
    await mkdir(path.join(backups, 'not-ours'));
    await clock.fire();
    expect(await listed()).toEqual([
      'mdstore-backup-20260301T030000Z',
      'mdstore-backup-20260301T050000Z',
      'not-ours',
    ]);
    await server.stop();
    // Stopped: the scheduler sleeps no more.
    expect(clock.sleeping).toBe(0);
  }, 120_000);
});

describe('a schedule driven by a cron expression', () => {
  it('backs up at each weekday 03:00 UTC slot, named after it, skipping the weekend', async () => {
    const pair = await openPair('sqlite-fs');
    const to = path.join(root, 'weekdays');
    // Thursday 2026-03-05 12:00 UTC.
    const clock = new FakeClock(Date.parse('2026-03-05T12:00:00Z'));
    const observed: string[] = [];
    const scheduled = startScheduledBackups({
      schedule: schedule('0 3 * * 1-5'),
      to,
      keep: 2,
      s3: {},
      source: pair,
      logger: silentLogger,
      observer: { observeBackup: (outcome) => void observed.push(outcome) },
      clock,
    });
    try {
      await pair.store.accounts.create({ name: 'weekdays' });
      const wakes: string[] = [];
      for (let i = 0; i < 3; i++) {
        wakes.push(new Date(clock.wakesAt).toISOString());
        await clock.fire();
      }
      // Friday, then Monday: Saturday and Sunday have no slot.
      expect(wakes).toEqual([
        '2026-03-06T03:00:00.000Z',
        '2026-03-09T03:00:00.000Z',
        '2026-03-10T03:00:00.000Z',
      ]);
      expect(new Date(clock.wakesAt).toISOString()).toBe('2026-03-11T03:00:00.000Z');
      expect(observed).toEqual(['ok', 'ok', 'ok']);
      expect((await readdir(to)).sort()).toEqual([
        'mdstore-backup-20260309T030000Z',
        'mdstore-backup-20260310T030000Z',
      ]);
      expect(
        (await verifyBackup(path.join(to, 'mdstore-backup-20260310T030000Z'))).manifest?.created_at,
      ).toBe('2026-03-10T03:00:00.000Z');
    } finally {
      await scheduled.stop();
      await pair.close();
    }
    expect(clock.sleeping).toBe(0);
  }, 60_000);
});

describe('rotation waits for the verification', () => {
  it('a backup that does not verify is deleted and deletes no older one', async () => {
    const pair = await openPair('sqlite-fs');
    const to = path.join(root, 'unverified');
    const observed: string[] = [];
    try {
      await pair.store.accounts.create({ name: 'kept' });
      const options = {
        schedule: schedule('1h'),
        to,
        keep: 1,
        s3: {},
        source: pair,
        logger: silentLogger,
        observer: { observeBackup: (outcome: string) => void observed.push(outcome) },
      };
      await runScheduledBackup(options, START);
      // The next one is written whole, but reads back wrong (a disk that lies): it must not verify.
      const lying = async (): Promise<BackupRoot> => {
        const real = await openBackupRoot(to);
        return {
          ...real,
          child(name) {
            const location = real.child(name);
            return {
              ...location,
              async read(file) {
                const bytes = await location.read(file);
                if (file !== 'records/accounts.jsonl') return bytes;
                return (async function* () {
                  for await (const chunk of bytes)
                    yield Buffer.from(chunk).map((b) => (b === 0x6b ? 0x4b : b));
                })();
              },
            };
          },
        };
      };
      await runScheduledBackup({ ...options, openRoot: lying }, START + HOUR);
      expect(observed).toEqual(['ok', 'failed']);
      expect(await readdir(to)).toEqual([slotName(START)]);
      expect((await verifyBackup(path.join(to, slotName(START)))).ok).toBe(true);
    } finally {
      await pair.close();
    }
  }, 60_000);
});

describe.skipIf(skipPostgres)('scheduled backups to an S3 prefix (Postgres + S3)', () => {
  it('writes each under the prefix and keeps the newest after verifying', async () => {
    const s3 = await fileS3rver();
    const { createS3BlobStore } = await import('@mdstore/s3');
    const bucketStore = createS3BlobStore(s3.s3ClientOptions);
    await bucketStore.createBucket({ bucket: 'scheduled-backups' });
    await bucketStore.close();
    const pair = await openPair('postgres-s3');
    const observed: string[] = [];
    try {
      const created = await pair.store.accounts.create({ name: 'to-s3' });
      const principal = await pair.store.authenticate({ apiKey: created.apiKey.apiKey });
      const to = 's3://scheduled-backups/nightly/mdstore';
      const options = {
        schedule: schedule('1h'),
        to,
        keep: 1,
        s3: s3.s3ClientOptions,
        source: pair,
        logger: silentLogger,
        observer: { observeBackup: (outcome: string) => void observed.push(outcome) },
      };
      for (const [n, slot] of [1, 2].map((n) => [n, START + n * HOUR] as const)) {
        await pair.store.files.upload({
          principal,
          projectId: created.defaultProject.id,
          filename: `${n}.md`,
          content: text(`# ${n}\n${'x'.repeat(100)}\n`),
        });
        await runScheduledBackup(options, slot);
      }
      expect(observed).toEqual(['ok', 'ok']);
      const backupRoot = await openBackupRoot(to, s3.s3ClientOptions);
      try {
        expect(await backupRoot.entries()).toEqual([
          { name: 'mdstore-backup-20260301T023000Z', complete: true },
        ]);
        const report = await verifyBackup(backupRoot.child('mdstore-backup-20260301T023000Z'));
        expect(report.ok, report.problems.join('\n')).toBe(true);
        expect(report.path).toBe(`${to}/mdstore-backup-20260301T023000Z`);
        expect(report.manifest?.blobs.count).toBe(2);
      } finally {
        await backupRoot.close();
      }
    } finally {
      await pair.close();
    }
  }, 120_000);
});
