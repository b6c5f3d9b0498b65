import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BackupRoot, openBackupRoot } from '../../src/backup/location.js';
import { nextSlot, parseBackupSchedule, slotName } from '../../src/backup/schedule.js';
import { runScheduledBackup, type ScheduleClock } from '../../src/backup/scheduled.js';
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

describe('MDSTORE_BACKUP_SCHEDULE', () => {
  it('takes an interval aligned on the epoch or a daily UTC time, and names what it wants otherwise', () => {
    const sixHours = parseBackupSchedule('6h');
    expect(sixHours).toMatchObject({ periodMs: 6 * HOUR, offsetMs: 0 });
    if (typeof sixHours === 'string') throw new Error(sixHours);
    expect(new Date(nextSlot(sixHours, START)).toISOString()).toBe('2026-03-01T06:00:00.000Z');
    // A slot is strictly after now: at 06:00 exactly, the next is 12:00.
    expect(new Date(nextSlot(sixHours, Date.parse('2026-03-01T06:00:00Z'))).toISOString()).toBe(
      '2026-03-01T12:00:00.000Z',
    );
    const daily = parseBackupSchedule('daily 02:30');
    if (typeof daily === 'string') throw new Error(daily);
    expect(new Date(nextSlot(daily, START)).toISOString()).toBe('2026-03-01T02:30:00.000Z');
    expect(new Date(nextSlot(daily, Date.parse('2026-03-01T03:00:00Z'))).toISOString()).toBe(
      '2026-03-02T02:30:00.000Z',
    );
    for (const wrong of ['0 3 * * *', '6', '0h', 'daily 24:00', '400d', 'weekly'])
      expect(parseBackupSchedule(wrong), wrong).toEqual(expect.stringMatching(/^must be/));
    expect(slotName(Date.parse('2026-03-01T06:00:00Z'))).toBe('mdstore-backup-20260301T060000Z');
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
      { MDSTORE_BACKUP_SCHEDULE: 'daily 01:00', MDSTORE_BACKUP_DIR: 'backups' },
      { cwd: '/srv' },
    );
    expect(config.backup).toMatchObject({ to: '/srv/backups', keep: 7, schedule: { offsetMs: HOUR } });
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
      MDSTORE_BACKUP_SCHEDULE: '1h',
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

describe('rotation waits for the verification', () => {
  it('a backup that does not verify is deleted and deletes no older one', async () => {
    const pair = await openPair('sqlite-fs');
    const to = path.join(root, 'unverified');
    const observed: string[] = [];
    try {
      await pair.store.accounts.create({ name: 'kept' });
      const options = {
        schedule: { text: '1h', periodMs: HOUR, offsetMs: 0 },
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
        schedule: { text: '1h', periodMs: HOUR, offsetMs: 0 },
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
