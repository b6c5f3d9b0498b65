import { randomUUID } from 'node:crypto';
import { RecordConflictError, StoreUnavailableError } from '@mdstore/core';
import { aFile, anAccount, anApiKey, aProject } from '@mdstore/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../src/index.js';
import { tempDatabase } from './temp-db.js';

let database: Awaited<ReturnType<typeof tempDatabase>>;
let stores: SqliteStore[];
const open = async (busyTimeoutMs?: number) => {
  const store = await openSqliteStore({ path: database.path, busyTimeoutMs });
  stores.push(store);
  return store;
};

beforeEach(async () => {
  database = await tempDatabase();
  stores = [];
});
afterEach(async () => {
  await Promise.all(stores.map((store) => store.close()));
  await database.remove();
});

/** A promise and the function that settles it: lets a test hold a transaction open. */
const gate = () => {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
};

describe('connections', () => {
  it('uses WAL everywhere, NORMAL commits (records: the WAL is synced after them, off the loop)', async () => {
    const settings = (await open(1_234)).connectionSettings();
    expect(settings.writer).toMatchObject({
      journalMode: 'wal',
      synchronous: 1,
      foreignKeys: true,
      readonly: false,
    });
    expect(settings.rateLimiter).toMatchObject({ journalMode: 'wal', synchronous: 1, readonly: false });
    expect(settings.reader).toMatchObject({ journalMode: 'wal', readonly: true, busyTimeoutMs: 1_234 });
    // Connections that take the write lock wait for it asynchronously (retryOnBusy), never inside SQLite.
    expect(settings.writer.busyTimeoutMs).toBe(0);
    expect(settings.rateLimiter.busyTimeoutMs).toBe(0);
  });

  it('refuses a path that is not a file', async () => {
    await expect(openSqliteStore({ path: ':memory:' })).rejects.toThrow(/path of a database file/);
  });

  it('declares itself durable and shared between processes', async () => {
    expect((await open()).records.supports).toEqual({ durable: true, sharedBetweenProcesses: true });
  });

  it('enforces foreign keys', async () => {
    const { records } = await open();
    const orphan = anApiKey({ accountId: randomUUID() });
    await expect(records.withTransaction((tx) => tx.insertApiKey({ apiKey: orphan }))).rejects.toMatchObject({
      code: 'SQLITE_CONSTRAINT_FOREIGNKEY',
    });
  });
});

describe('write transactions (BEGIN IMMEDIATE)', () => {
  it('two stores on one file writing at once both succeed: the second waits for the lock', async () => {
    const [first, second] = [await open(), await open()];
    const holding = gate();
    const started = gate();
    const account = anAccount();
    const slow = first.records.withTransaction(async (tx) => {
      await tx.insertAccount({ account });
      started.open();
      await holding.promise;
    });
    await started.promise;
    const other = anAccount();
    const waiting = second.records.withTransaction((tx) => tx.insertAccount({ account: other }));
    setTimeout(holding.open, 50);
    await Promise.all([slow, waiting]);
    expect((await second.records.listAccounts()).map((a) => a.id).sort()).toEqual(
      [account.id, other.id].sort(),
    );
  });

  it('gives up with StoreUnavailableError (cause SQLITE_BUSY) after busyTimeoutMs', async () => {
    const [first, second] = [await open(), await open(20)];
    const holding = gate();
    const started = gate();
    const slow = first.records.withTransaction(async (tx) => {
      await tx.insertAccount({ account: anAccount() });
      started.open();
      await holding.promise;
    });
    await started.promise;
    const error = await second.records
      .withTransaction((tx) => tx.insertAccount({ account: anAccount() }))
      .catch((caught: unknown) => caught);
    holding.open();
    await slow;
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).cause).toMatchObject({ code: 'SQLITE_BUSY' });
    // The lock is free again.
    await second.records.withTransaction((tx) => tx.insertAccount({ account: anAccount() }));
    expect(await second.records.listAccounts()).toHaveLength(2);
  });

  it('a rate-limit request waits for a records transaction of the same process, without blocking it', async () => {
    const store = await open();
    const holding = gate();
    const started = gate();
    const transaction = store.records.withTransaction(async (tx) => {
      await tx.insertAccount({ account: anAccount() });
      started.open();
      await holding.promise;
    });
    await started.promise;
    const decision = store.rateLimiter.consume({ key: 'k', limit: 1, windowMs: 1_000, now: 0 });
    setTimeout(holding.open, 20);
    await transaction;
    expect(await decision).toMatchObject({ allowed: true, used: 1 });
  });

  it('a failing statement rolls back the earlier writes, and the error reaches the caller', async () => {
    const { records } = await open();
    const account = anAccount();
    const failing = records.withTransaction(async (tx) => {
      await tx.insertAccount({ account });
      await tx.insertProject({ project: aProject({ accountId: randomUUID() }) }); // no such account
    });
    await expect(failing).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
    expect(await records.listAccounts()).toEqual([]);
  });

  it('does not commit when work swallows a statement error: it rolls back and reports the error', async () => {
    const { records } = await open();
    const taken = anAccount({ name: 'taken' });
    await records.withTransaction((tx) => tx.insertAccount({ account: taken }));
    const fresh = anAccount();
    const swallowing = records.withTransaction(async (tx) => {
      await tx.insertAccount({ account: fresh });
      await tx.insertAccount({ account: anAccount({ name: 'taken' }) }).catch(() => undefined);
      return 'pretending all went well';
    });
    await expect(swallowing).rejects.toBeInstanceOf(RecordConflictError);
    expect(await records.listAccounts()).toEqual([taken]);
  });

  it('refuses a tx used after its transaction ended', async () => {
    const { records } = await open();
    let kept: Parameters<Parameters<typeof records.withTransaction>[0]>[0] | undefined;
    await records.withTransaction(async (tx) => {
      kept = tx;
    });
    await expect(kept!.insertAccount({ account: anAccount() })).rejects.toThrow(/transaction has ended/);
    expect(await records.listAccounts()).toEqual([]);
  });

  it('refuses a nested withTransaction instead of deadlocking', async () => {
    const { records } = await open();
    const nested = records.withTransaction(() => records.withTransaction(async () => 'inner'));
    await expect(nested).rejects.toThrow(/cannot be nested/);
  });

  it('runs transactions of one store one at a time, in order', async () => {
    const { records } = await open();
    const order: string[] = [];
    const transaction = (name: string) =>
      records.withTransaction(async (tx) => {
        order.push(`${name}:begin`);
        await new Promise((resolve) => setImmediate(resolve));
        await tx.insertAccount({ account: anAccount({ name }) });
        order.push(`${name}:end`);
      });
    await Promise.all([transaction('a'), transaction('b'), transaction('c')]);
    expect(order).toEqual(['a:begin', 'a:end', 'b:begin', 'b:end', 'c:begin', 'c:end']);
  });
});

describe('unique rules', () => {
  const conflictOf = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error,
    );

  it('maps each unique index to its rule and keeps the driver error as the cause', async () => {
    const { records } = await open();
    const account = anAccount({ name: 'acme' });
    const project = aProject({ accountId: account.id, name: 'docs' });
    const file = aFile({ projectId: project.id, filename: 'a.md' });
    await records.withTransaction(async (tx) => {
      await tx.insertAccount({ account });
      await tx.insertProject({ project });
      await tx.insertFile({ file });
    });
    const cases = [
      {
        rule: 'account_name',
        write: () =>
          records.withTransaction((tx) => tx.insertAccount({ account: anAccount({ name: 'acme' }) })),
      },
      {
        rule: 'project_name',
        write: () =>
          records.withTransaction((tx) =>
            tx.insertProject({ project: aProject({ accountId: account.id, name: 'docs' }) }),
          ),
      },
      {
        rule: 'filename',
        write: () =>
          records.withTransaction((tx) =>
            tx.insertFile({ file: aFile({ projectId: project.id, filename: 'a.md' }) }),
          ),
      },
    ];
    for (const { rule, write } of cases) {
      const error = await conflictOf(write());
      expect(error).toBeInstanceOf(RecordConflictError);
      expect(error).toMatchObject({
        code: 'RECORD_CONFLICT',
        rule,
        cause: { code: 'SQLITE_CONSTRAINT_UNIQUE' },
      });
    }
  });

  it('does not report other unique violations (primary keys, key hashes) as a rule conflict', async () => {
    const { records } = await open();
    const account = anAccount();
    const apiKey = anApiKey({ accountId: account.id });
    await records.withTransaction(async (tx) => {
      await tx.insertAccount({ account });
      await tx.insertApiKey({ apiKey });
    });
    const sameId = await conflictOf(
      records.withTransaction((tx) =>
        tx.insertAccount({ account: anAccount({ id: account.id, name: 'other-name' }) }),
      ),
    );
    expect(sameId).not.toBeInstanceOf(RecordConflictError);
    expect(sameId).toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
    const sameHash = await conflictOf(
      records.withTransaction((tx) =>
        tx.insertApiKey({ apiKey: anApiKey({ accountId: account.id, keyHash: apiKey.keyHash }) }),
      ),
    );
    expect(sameHash).not.toBeInstanceOf(RecordConflictError);
    expect(sameHash).toMatchObject({ code: 'SQLITE_CONSTRAINT_UNIQUE' });
  });
});

describe('close', () => {
  it('waits for the running transaction, then refuses further use; closing twice is fine', async () => {
    const store = await open();
    const started = gate();
    const holding = gate();
    const account = anAccount();
    const transaction = store.records.withTransaction(async (tx) => {
      started.open();
      await holding.promise;
      await tx.insertAccount({ account });
    });
    await started.promise;
    const closing = store.close();
    holding.open();
    await transaction;
    await closing;
    await store.close();
    await expect(store.records.listAccounts()).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.records.withTransaction(async () => 1)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(
      store.rateLimiter.consume({ key: 'k', limit: 1, windowMs: 1, now: 0 }),
    ).rejects.toBeInstanceOf(StoreUnavailableError);
    const reopened = await open();
    expect(await reopened.records.listAccounts()).toEqual([account]);
  });
});
