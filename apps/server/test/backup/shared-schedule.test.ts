import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  createMdStore,
  createScheduleSlots,
  type RecordsRepository,
  type ScheduleSlotRecord,
} from '@mdstore/core';
import { createFsBlobStore } from '@mdstore/fs';
import { openSqliteStore } from '@mdstore/sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BackupSchedule, parseBackupSchedule, slotName } from '../../src/backup/schedule.js';
import {
  BACKUP_SLOT_LEASE_MS,
  type ScheduleClock,
  type ScheduledBackupOptions,
  startScheduledBackups,
} from '../../src/backup/scheduled.js';
import { verifyBackup } from '../../src/backup/verify.js';
import { type ServerProcess, startServer } from '../../src/composition/server.js';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/logger.js';
import { dropSchema, freshSchemaName, skipWithoutPostgres, TEST_POSTGRES_URL } from '../support/adapters.js';

/**
 * Extensions §16, scheduled backups when several servers share one store (docs/operations.md): each runs
 * the schedule, each claims every slot in the store, and exactly one backs each slot up; a slot whose
 * holder died is taken over once its lease has expired. Time is one fake clock for every scheduler.
 */

const skipPostgres = await skipWithoutPostgres('shared backup schedules on Postgres');

/** One fake time for several schedulers: `advance` wakes whoever is due and waits until all sleep again. */
class SharedClock implements ScheduleClock {
  private readonly sleepers: { until: number; wake: () => void }[] = [];
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
          const at = this.sleepers.indexOf(sleeper);
          if (at >= 0) this.sleepers.splice(at, 1);
          resolve();
        },
        { once: true },
      );
    });
  }
  /** The times the sleepers wake at, earliest first. */
  get wakes(): number[] {
    return this.sleepers.map((s) => s.until).sort((a, b) => a - b);
  }
  /**
   * Moves time to the earliest wake-up, wakes every sleeper due then, and resolves once `asleep`
   * schedulers sleep again (each sleeps once at a time: its next slot, or a slot it watches).
   */
  async step(asleep: number): Promise<number> {
    const at = this.wakes[0]!;
    this.time = at;
    for (const sleeper of this.sleepers.filter((s) => s.until <= at)) {
      this.sleepers.splice(this.sleepers.indexOf(sleeper), 1);
      sleeper.wake();
    }
    for (let waited = 0; this.sleepers.length < asleep; waited++) {
      if (waited > 6000) throw new Error(`${this.sleepers.length} of ${asleep} schedulers asleep after 60 s`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return at;
  }
}

const HOUR = 3_600_000;
const START = Date.parse('2026-03-01T00:30:00Z');

function schedule(text: string): BackupSchedule {
  const parsed = parseBackupSchedule(text);
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
}

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'mdstore-shared-schedule-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Two handles on one store, as two server processes open it, with the store's blobs. */
interface SharedStore {
  readonly handles: readonly RecordsRepository[];
  readonly source: ScheduledBackupOptions['source'];
  seed(): Promise<void>;
  close(): Promise<void>;
}

async function sharedSqlite(): Promise<SharedStore> {
  const dir = await mkdtemp(path.join(root, 'sqlite-'));
  const stores = [
    await openSqliteStore({ path: path.join(dir, 'mdstore.db') }),
    await openSqliteStore({ path: path.join(dir, 'mdstore.db') }),
  ];
  const blobs = createFsBlobStore({ root: path.join(dir, 'blobs') });
  const store = createMdStore({ records: stores[0]!.records, blobs, rateLimiter: stores[0]!.rateLimiter });
  return {
    handles: stores.map((s) => s.records),
    source: { archive: stores[0]!.archive, blobs, pair: { database: 'sqlite', blob_store: 'fs' } },
    seed: async () => void (await store.accounts.create({ name: 'shared' })),
    async close() {
      await blobs.close();
      for (const s of stores) await s.close();
    },
  };
}

async function sharedPostgres(): Promise<SharedStore> {
  const { openPostgresStore } = await import('@mdstore/postgres');
  const dir = await mkdtemp(path.join(root, 'postgres-'));
  const schema = freshSchemaName();
  const open = () => openPostgresStore({ connectionString: TEST_POSTGRES_URL, schema, poolMax: 2 });
  const stores = [await open(), await open()];
  const blobs = createFsBlobStore({ root: path.join(dir, 'blobs') });
  const store = createMdStore({ records: stores[0]!.records, blobs, rateLimiter: stores[0]!.rateLimiter });
  return {
    handles: stores.map((s) => s.records),
    source: { archive: stores[0]!.archive, blobs, pair: { database: 'postgres', blob_store: 'fs' } },
    seed: async () => void (await store.accounts.create({ name: 'shared' })),
    async close() {
      await blobs.close();
      for (const s of stores) await s.close();
      await dropSchema(schema);
    },
  };
}

const slotsOf = (records: RecordsRepository, owner: string, clock: { now(): number }) =>
  createScheduleSlots({
    records,
    clock,
    owner,
    task: 'backup',
    leaseMs: BACKUP_SLOT_LEASE_MS,
    maxAttempts: 3,
    keepMs: 7 * 24 * HOUR,
  });

describe.each([
  { name: 'SQLite', open: sharedSqlite, skip: false },
  { name: 'Postgres', open: sharedPostgres, skip: skipPostgres },
])('two schedulers sharing one store ($name)', ({ open, skip }) => {
  it.skipIf(skip)(
    'each slot is backed up exactly once, by one of them',
    async () => {
      const shared = await open();
      const to = await mkdtemp(path.join(root, 'backups-'));
      const clock = new SharedClock(START);
      const outcomes: string[][] = [[], []];
      const schedulers = shared.handles.map((records, index) =>
        startScheduledBackups({
          schedule: schedule('1h'),
          to,
          keep: 10,
          s3: {},
          source: shared.source,
          logger: silentLogger,
          observer: { observeBackup: (outcome) => void outcomes[index]!.push(outcome) },
          clock,
          slots: slotsOf(records, `instance-${index}`, clock),
        }),
      );
      try {
        await shared.seed();
        const slots: number[] = [];
        // Three slots: at each, both wake; the loser watches the slot until the winner's lease would end.
        while (slots.length < 3 || clock.wakes[0]! < slots.at(-1)! + HOUR) {
          const at = await clock.step(2);
          if (at % HOUR === 0) slots.push(at);
        }
        expect(slots).toEqual([START + HOUR / 2, START + (3 * HOUR) / 2, START + (5 * HOUR) / 2]);
        expect((await readdir(to)).sort()).toEqual(slots.map(slotName));
        // No second backup of a slot was tried (it would have failed: its place taken).
        expect([...outcomes[0]!, ...outcomes[1]!]).toEqual(['ok', 'ok', 'ok']);
        for (const slotAt of slots) {
          expect((await verifyBackup(path.join(to, slotName(slotAt)))).ok).toBe(true);
          const record = await shared.handles[0]!.findScheduleSlot({ task: 'backup', slotAt });
          expect(record).toMatchObject<Partial<ScheduleSlotRecord>>({
            attempts: 1,
            outcome: 'ok',
            leaseExpiresAt: null,
          });
          expect(['instance-0', 'instance-1']).toContain(record?.owner);
        }
      } finally {
        for (const scheduler of schedulers) await scheduler.stop();
        await shared.close();
      }
    },
    120_000,
  );

  it.skipIf(skip)(
    'a slot whose holder died is backed up by another once its lease expires',
    async () => {
      const shared = await open();
      const to = await mkdtemp(path.join(root, 'backups-'));
      const clock = new SharedClock(START);
      const slot = START + HOUR / 2;
      // An instance claimed the slot, then died (it never renews nor finishes).
      const dead = slotsOf(shared.handles[1]!, 'dead', { now: () => slot });
      expect(await dead.claim(slot)).toEqual({ state: 'mine', attempt: 1 });
      const outcomes: string[] = [];
      const scheduler = startScheduledBackups({
        schedule: schedule('1h'),
        to,
        keep: 10,
        s3: {},
        source: shared.source,
        logger: silentLogger,
        observer: { observeBackup: (outcome) => void outcomes.push(outcome) },
        clock,
        slots: slotsOf(shared.handles[0]!, 'survivor', clock),
      });
      try {
        await shared.seed();
        expect(await clock.step(1)).toBe(slot);
        // Held: nothing yet; the survivor looks again when the lease ends.
        expect(outcomes).toEqual([]);
        expect(clock.wakes).toEqual([slot + BACKUP_SLOT_LEASE_MS]);
        expect(await clock.step(1)).toBe(slot + BACKUP_SLOT_LEASE_MS);
        expect(outcomes).toEqual(['ok']);
        expect(await readdir(to)).toEqual([slotName(slot)]);
        expect(await shared.handles[0]!.findScheduleSlot({ task: 'backup', slotAt: slot })).toMatchObject({
          owner: 'survivor',
          attempts: 2,
          outcome: 'ok',
        });
        // The next slot is not held up by it.
        expect(await clock.step(1)).toBe(slot + HOUR);
        expect(outcomes).toEqual(['ok', 'ok']);
      } finally {
        await scheduler.stop();
        await shared.close();
      }
    },
    120_000,
  );
});

describe('two servers on one SQLite store', () => {
  const servers: ServerProcess[] = [];
  afterAll(async () => {
    for (const server of servers) await server.stop();
  });

  it('back each slot up once between them, each server holding its own duties', async () => {
    const data = path.join(root, 'two-servers');
    const backups = path.join(root, 'two-servers-backups');
    const config = loadConfig({
      MDSTORE_DATA_DIR: data,
      PORT: '0',
      MDSTORE_METRICS_PORT: '0',
      MDSTORE_CONTENT_WORK_THREADS: '0',
      MDSTORE_BACKUP_SCHEDULE: '@hourly',
      MDSTORE_BACKUP_DIR: backups,
      MDSTORE_BACKUP_KEEP: '5',
    });
    const clock = new SharedClock(START);
    for (let i = 0; i < 2; i++)
      servers.push(await startServer({ config, logger: silentLogger, backupClock: clock }));
    expect(clock.wakes).toEqual([START + HOUR / 2, START + HOUR / 2]);
    await servers[0]!.runtime.store.accounts.create({ name: 'two-servers' });
    const slots: number[] = [];
    while (slots.length < 2 || clock.wakes[0]! < slots.at(-1)! + HOUR) {
      const at = await clock.step(2);
      if (at % HOUR === 0) slots.push(at);
    }
    expect((await readdir(backups)).sort()).toEqual(slots.map(slotName));
    const totals = await Promise.all(
      servers.map(async (server) => {
        const scrape = await (await fetch(server.metricsUrl!)).text();
        const count = (outcome: string) =>
          Number(
            new RegExp(`^mdstore_backups_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(scrape)?.[1] ??
              0,
          );
        return { ok: count('ok'), failed: count('failed') };
      }),
    );
    expect(totals.reduce((sum, t) => sum + t.ok, 0)).toBe(2);
    expect(totals.reduce((sum, t) => sum + t.failed, 0)).toBe(0);
  }, 120_000);
});
