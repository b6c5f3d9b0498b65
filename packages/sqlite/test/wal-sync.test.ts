import { isMdStoreError } from '@mdstore/core';
import { anAccount } from '@mdstore/core/testing';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../src/index.js';
import { createWalSync, type WalSyncIo } from '../src/wal-sync.js';
import { tempDatabase } from './temp-db.js';

type Datasync = (fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => void;

/** The store's fdatasync, replaceable per test (the real one by default). */
const stub = vi.hoisted(() => ({ datasync: undefined as Datasync | undefined, calls: 0 }));
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const fdatasync: Datasync = (fd, callback) => {
    stub.calls += 1;
    (stub.datasync ?? fs.fdatasync)(fd, callback);
  };
  return { ...fs, default: { ...fs, fdatasync }, fdatasync };
});

/** Lets a test hold every fdatasync until it says so; `started` settles at the first one. */
function heldDatasync() {
  const waiting: (() => void)[] = [];
  let started!: () => void;
  const firstStarted = new Promise<void>((resolve) => {
    started = resolve;
  });
  const datasync: Datasync = (_fd, callback) => {
    waiting.push(() => callback(null));
    started();
  };
  return {
    datasync,
    firstStarted,
    releaseAll: () => {
      for (const release of waiting.splice(0)) release();
    },
  };
}

/** Settles after `turns` event-loop turns: what a promise did not do by then, it is waiting for. */
const turns = async (count: number) => {
  for (let turn = 0; turn < count; turn += 1) await new Promise((resolve) => setImmediate(resolve));
};

/** Reports whether a promise has settled, without waiting for it. */
function watch(promise: Promise<unknown>) {
  const state = { settled: false };
  promise.then(
    () => {
      state.settled = true;
    },
    () => {
      state.settled = true;
    },
  );
  return state;
}

describe('WAL sync (unit)', () => {
  /** An fdatasync per call, each settled by the test. */
  function manualIo() {
    const rounds: { settle: (error?: Error) => void }[] = [];
    const io: WalSyncIo = {
      datasync: () =>
        new Promise<void>((resolve, reject) => {
          rounds.push({ settle: (error) => (error ? reject(error) : resolve()) });
        }),
      close: vi.fn(async () => undefined),
    };
    return { io, rounds };
  }

  it('runs one fdatasync for all the callers that arrive while another one runs', async () => {
    const { io, rounds } = manualIo();
    const wal = createWalSync(7, io);
    const first = watch(wal.sync());
    expect(rounds).toHaveLength(1);
    // These callers' commits may postdate the running fdatasync's start: it does not cover them.
    const second = [wal.sync(), wal.sync(), wal.sync(), wal.sync()].map(watch);
    await turns(3);
    expect(rounds).toHaveLength(1);
    rounds[0]?.settle();
    await turns(3);
    expect(first.settled).toBe(true);
    expect(second.map((state) => state.settled)).toEqual([false, false, false, false]);
    expect(rounds).toHaveLength(2);
    rounds[1]?.settle();
    await turns(3);
    expect(second.map((state) => state.settled)).toEqual([true, true, true, true]);
    expect(rounds).toHaveLength(2);
  });

  it('after a failed fdatasync, settles none of its waiters, reports the failure, and stops syncing', async () => {
    const { io, rounds } = manualIo();
    const onFailure = vi.fn();
    const wal = createWalSync(7, io, { onFailure });
    const during = watch(wal.sync());
    const next = watch(wal.sync().then(() => wal.sync()));
    expect(onFailure).not.toHaveBeenCalled();
    rounds[0]?.settle(new Error('EIO: i/o error, fdatasync'));
    await turns(5);
    expect(onFailure).toHaveBeenCalledTimes(1);
    expect(during.settled).toBe(false);
    expect(next.settled).toBe(false);
    const failure = wal.failure();
    expect(isMdStoreError(failure, 'STORE_UNAVAILABLE')).toBe(true);
    expect(failure?.message).toMatch(/EIO/);
    const later = watch(wal.sync());
    await turns(5);
    expect(later.settled).toBe(false);
    expect(rounds).toHaveLength(1); // no retry: the pages that failed may be gone
    await expect(wal.close()).rejects.toBe(failure);
    expect(io.close).toHaveBeenCalledWith(7);
    expect(onFailure).toHaveBeenCalledTimes(1);
    expect(onFailure).toHaveBeenCalledWith(failure);
  });

  it('closes the descriptor only after a sync that started while it closed', async () => {
    const { io, rounds } = manualIo();
    const wal = createWalSync(7, io);
    const closed = watch(wal.close());
    const late = watch(wal.sync()); // a commit acknowledged late, while the last sync runs
    rounds[0]?.settle();
    await turns(3);
    expect(rounds).toHaveLength(2);
    expect(io.close).not.toHaveBeenCalled();
    rounds[1]?.settle();
    await turns(5);
    expect(late.settled).toBe(true);
    expect(closed.settled).toBe(true);
    expect(io.close).toHaveBeenCalledWith(7);
  });

  it('syncs once more when closing, then lets later callers through at once', async () => {
    const { io, rounds } = manualIo();
    const wal = createWalSync(7, io);
    const closed = wal.close();
    expect(rounds).toHaveLength(1);
    rounds[0]?.settle();
    await closed;
    expect(io.close).toHaveBeenCalledWith(7);
    await wal.sync();
    expect(rounds).toHaveLength(1);
  });
});

describe('SQLite store: commits synced off the event loop', () => {
  let database: Awaited<ReturnType<typeof tempDatabase>>;
  let store: SqliteStore | undefined;

  beforeEach(async () => {
    stub.datasync = undefined;
    database = await tempDatabase();
    store = await openSqliteStore({ path: database.path });
    stub.calls = 0;
  });
  afterEach(async () => {
    stub.datasync = undefined;
    await store?.close().catch(() => undefined);
    await database.remove();
  });

  const committedNames = () => {
    const db = new Database(database.path, { readonly: true });
    try {
      return db.prepare('SELECT name FROM accounts ORDER BY name').pluck().all();
    } finally {
      db.close();
    }
  };

  it('acknowledges a transaction only after the WAL fdatasync that follows its COMMIT, serving meanwhile', async () => {
    const records = store!.records;
    const existing = anAccount({ name: 'existing' });
    await records.withTransaction((tx) => tx.insertAccount({ account: existing }));

    const held = heldDatasync();
    stub.datasync = held.datasync;
    const account = anAccount({ name: 'new' });
    const transaction = records.withTransaction((tx) => tx.insertAccount({ account }));
    const state = watch(transaction);
    await held.firstStarted;

    // The COMMIT ran (another connection sees the row), its sync is pending, and it is not acknowledged.
    expect(committedNames()).toEqual(['existing', 'new']);
    expect(state.settled).toBe(false);
    // Meanwhile the event loop serves: a timer fires, a read through the store completes.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await records.findAccountById({ accountId: existing.id })).toMatchObject({ name: 'existing' });
    expect(state.settled).toBe(false);

    held.releaseAll();
    await transaction;
    // Read-your-writes: once acknowledged, the store's reads see it.
    expect(await records.findAccountById({ accountId: account.id })).toMatchObject({ name: 'new' });
  });

  it('syncs the WAL file itself: the fdatasync runs on its descriptor, once for a group of commits', async () => {
    const records = store!.records;
    let syncedPath: string | undefined;
    const { fdatasync, readlinkSync } = await vi.importActual<typeof import('node:fs')>('node:fs');
    stub.datasync = (fd, callback) => {
      syncedPath = readlinkSync(`/proc/self/fd/${fd}`);
      fdatasync(fd, callback);
    };
    const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    await Promise.all(
      names.map((name) =>
        records.withTransaction((tx) => tx.insertAccount({ account: anAccount({ name }) })),
      ),
    );
    expect(syncedPath).toBe(`${database.path}-wal`);
    expect(stub.calls).toBeGreaterThanOrEqual(1);
    expect(stub.calls).toBeLessThan(names.length);
  });

  it('after a failed fdatasync, refuses reads and writes and never acknowledges what it was for', async () => {
    const records = store!.records;
    stub.datasync = (_fd, callback) => callback(Object.assign(new Error('EIO: i/o error'), { code: 'EIO' }));
    const lost = watch(records.withTransaction((tx) => tx.insertAccount({ account: anAccount() })));
    await turns(10);
    expect(lost.settled).toBe(false);
    const refusedRead = await records.findAccountById({ accountId: crypto.randomUUID() }).catch((e) => e);
    expect(isMdStoreError(refusedRead, 'STORE_UNAVAILABLE')).toBe(true);
    const work = vi.fn(async () => undefined);
    const refusedWrite = await records.withTransaction(work).catch((e) => e);
    expect(isMdStoreError(refusedWrite, 'STORE_UNAVAILABLE')).toBe(true);
    expect(work).not.toHaveBeenCalled();
  });

  it('makes the last batch durable when the store closes', async () => {
    await store!.records.withTransaction((tx) => tx.insertAccount({ account: anAccount({ name: 'a' }) }));
    stub.calls = 0;
    await store!.close();
    expect(stub.calls).toBe(1);
    store = undefined;
    expect(committedNames()).toEqual(['a']);
  });
});
