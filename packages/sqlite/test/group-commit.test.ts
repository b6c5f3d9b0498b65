import { RecordConflictError, type RecordsRepository } from '@mdstore/core';
import { anAccount } from '@mdstore/core/testing';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Db, enableWal, openConnection, waitForWriteLockAsynchronously } from '../src/connections.js';
import { applyMigrations } from '../src/migrations.js';
import { createSqliteRecords } from '../src/records/repository.js';
import { tempDatabase } from './temp-db.js';

const BUSY_TIMEOUT_MS = 1_000;

let database: Awaited<ReturnType<typeof tempDatabase>>;
let writer: Db;
let reader: Db;
let records: RecordsRepository;
/** Every SQL text the writer connection executed with `exec`, in order. */
let executed: string[];
/** Called with the SQL text before the writer executes it; may throw to make the statement fail. */
let beforeExec: (sql: string) => void;

beforeEach(async () => {
  database = await tempDatabase();
  writer = openConnection({ path: database.path, busyTimeoutMs: BUSY_TIMEOUT_MS, synchronous: 'FULL' });
  await enableWal(writer, BUSY_TIMEOUT_MS);
  await applyMigrations(writer, { busyTimeoutMs: BUSY_TIMEOUT_MS });
  reader = openConnection({
    path: database.path,
    busyTimeoutMs: BUSY_TIMEOUT_MS,
    synchronous: 'FULL',
    readonly: true,
  });
  waitForWriteLockAsynchronously(writer);
  executed = [];
  beforeExec = () => undefined;
  const realExec = Database.prototype.exec;
  vi.spyOn(writer, 'exec').mockImplementation(function (this: Db, sql: string) {
    executed.push(sql);
    beforeExec(sql);
    return realExec.call(this, sql);
  });
  records = createSqliteRecords({ writer, reader, busyTimeoutMs: BUSY_TIMEOUT_MS });
});

/** `performance.now()` stands still until the test ends: the 5 ms bound of a batch never passes. */
const stopBatchClock = () => {
  const now = performance.now();
  vi.spyOn(performance, 'now').mockReturnValue(now);
};

afterEach(async () => {
  vi.restoreAllMocks();
  await records.close();
  await database.remove();
});

const count = (sql: string) => executed.filter((text) => text === sql).length;
const committedAccountNames = () =>
  (reader.prepare('SELECT name FROM accounts ORDER BY name').pluck().all() as string[]).sort();
const insertAccount = (name: string) =>
  records.withTransaction((tx) => tx.insertAccount({ account: anAccount({ name }) }));

describe('group commit', () => {
  it('runs transactions that wait for each other in one physical transaction, with one COMMIT', async () => {
    // Warmed first: the first use of the insert prepares its statements, which on a slow machine can take
    // longer than the 5 ms a batch stays open (GROUP_COMMIT_LIMITS), and the batch would rightly close.
    await insertAccount('0-warm-up');
    executed.length = 0;
    // And the batch's clock stands still: a pause of the machine longer than its 5 ms bound (seen on a
    // loaded CI machine) would rightly close it early. The batch then closes when the queued ones ran.
    stopBatchClock();
    await Promise.all(['a', 'b', 'c', 'd', 'e'].map(insertAccount));
    expect(count('BEGIN IMMEDIATE')).toBe(1);
    expect(count('COMMIT')).toBe(1);
    expect(committedAccountNames()).toEqual(['0-warm-up', 'a', 'b', 'c', 'd', 'e']);
  });

  it('rolls back a failing transaction alone: the others of its batch are committed', async () => {
    // Warmed first, as above: a cold insert can outlast the batch's 5 ms on a loaded machine.
    await insertAccount('0-warm-up');
    executed.length = 0;
    stopBatchClock();
    const boom = new Error('boom');
    const outcomes = await Promise.allSettled([
      insertAccount('a'),
      records.withTransaction(async (tx) => {
        await tx.insertAccount({ account: anAccount({ name: 'b' }) });
        throw boom;
      }),
      insertAccount('c'),
      insertAccount('a'), // a unique conflict with the first one of the same batch
      insertAccount('d'),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBe(boom);
    expect((outcomes[3] as PromiseRejectedResult).reason).toBeInstanceOf(RecordConflictError);
    expect(count('COMMIT')).toBe(1);
    expect(committedAccountNames()).toEqual(['0-warm-up', 'a', 'c', 'd']);
  });

  it('rejects every transaction of the batch when the COMMIT fails, and commits none of them', async () => {
    const diskFailure = new Error('the disk failed during COMMIT');
    await insertAccount('0-warm-up');
    executed.length = 0;
    beforeExec = (sql) => {
      if (sql === 'COMMIT') throw diskFailure;
    };
    const outcomes = await Promise.allSettled(['a', 'b', 'c'].map(insertAccount));
    expect(outcomes).toEqual([
      { status: 'rejected', reason: diskFailure },
      { status: 'rejected', reason: diskFailure },
      { status: 'rejected', reason: diskFailure },
    ]);
    expect(count('COMMIT')).toBe(1);
    expect(committedAccountNames()).toEqual(['0-warm-up']);

    beforeExec = () => undefined;
    await insertAccount('after');
    expect(committedAccountNames()).toEqual(['0-warm-up', 'after']);
  });

  it('acknowledges a transaction only after the COMMIT that makes it durable has run', async () => {
    // Warmed and with the batch's clock stopped, as above: the three must share one batch and one COMMIT
    // (a loaded machine once split them, and the second COMMIT saw the first batch acknowledged).
    await insertAccount('0-warm-up');
    stopBatchClock();
    const settled = [false, false, false];
    let seenAtCommit: { settled: boolean[]; visibleToReaders: string[] } | undefined;
    beforeExec = (sql) => {
      if (sql === 'COMMIT')
        seenAtCommit = { settled: [...settled], visibleToReaders: committedAccountNames() };
    };
    const transactions = ['a', 'b', 'c'].map((name, index) =>
      insertAccount(name).then(() => {
        settled[index] = true;
      }),
    );
    await Promise.all(transactions);
    // Every transaction's work and savepoint were done before the COMMIT, yet none had been acknowledged,
    // and readers (another connection) had not seen the released but uncommitted writes either.
    expect(seenAtCommit).toEqual({ settled: [false, false, false], visibleToReaders: ['0-warm-up'] });
    expect(settled).toEqual([true, true, true]);
    expect(committedAccountNames()).toEqual(['0-warm-up', 'a', 'b', 'c']);
  });

  it('starts a new physical transaction for work queued after the commit was scheduled', async () => {
    await insertAccount('a');
    await insertAccount('b');
    expect(count('BEGIN IMMEDIATE')).toBe(2);
    expect(count('COMMIT')).toBe(2);
  });

  it('commits the released transactions of an open batch when the repository closes', async () => {
    let wrote!: () => void;
    const written = new Promise<void>((resolve) => {
      wrote = resolve;
    });
    const transaction = records.withTransaction(async (tx) => {
      await tx.insertAccount({ account: anAccount({ name: 'a' }) });
      wrote();
    });
    await written;
    // The transaction already runs: closing waits for it, then must not drop its pending COMMIT.
    const closed = records.close();
    await transaction;
    await closed;
    expect(count('COMMIT')).toBe(1);
    const afterwards = new Database(database.path, { readonly: true });
    expect(afterwards.prepare('SELECT name FROM accounts').pluck().all()).toEqual(['a']);
    afterwards.close();
  });
});
