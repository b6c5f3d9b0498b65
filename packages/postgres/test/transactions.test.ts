import type { RecordsTransaction } from '@mdstore/core';
import { StoreUnavailableError } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { openPostgresStore } from '../src/index.js';
import { anAccount, aProject, useStores } from './support/fixtures.js';
import { skipPostgres } from './support/pg-available.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves for everyone once `parties` callers have arrived; later arrivals pass straight through. */
const barrier = (parties: number) => {
  let arrived = 0;
  let release!: () => void;
  const all = new Promise<void>((resolve) => {
    release = resolve;
  });
  return async () => {
    arrived += 1;
    if (arrived >= parties) release();
    await all;
  };
};

const gate = () => {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
};

describe('postgres store without a database', () => {
  it('fails to open with StoreUnavailableError, keeping the cause, when the server is unreachable', async () => {
    const opening = openPostgresStore({
      connectionString: 'postgres://postgres@127.0.0.1:1/test',
      connectTimeoutMs: 1_000,
    });
    const error = await opening.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).cause).toBeInstanceOf(Error);
  });

  it('refuses a schema name that would need escaping', async () => {
    await expect(
      openPostgresStore({ connectionString: 'postgres://postgres@127.0.0.1:1/test', schema: 'a b; DROP' }),
    ).rejects.toThrow(/Invalid schema name/);
  });
});

describe.skipIf(skipPostgres)('postgres transactions', () => {
  const { open, newSchema } = useStores();

  const seedProjects = async (records: Awaited<ReturnType<typeof open>>['records'], count: number) => {
    const account = anAccount();
    const projects = Array.from({ length: count }, () => aProject({ accountId: account.id }));
    await records.withTransaction(async (tx) => {
      await tx.insertAccount({ account });
      for (const project of projects) await tx.insertProject({ project });
    });
    return projects;
  };

  it('commits when work resolves and returns its value', async () => {
    const { records } = await open();
    const account = anAccount();
    await expect(
      records.withTransaction(async (tx) => {
        await tx.insertAccount({ account });
        return 'value';
      }),
    ).resolves.toBe('value');
    await expect(records.findAccountById({ accountId: account.id })).resolves.toEqual(account);
  });

  it('rolls back every write and rethrows the very same error when work throws', async () => {
    const { records } = await open();
    const thrown = new Error('domain refusal');
    const account = anAccount();
    const error = await records
      .withTransaction(async (tx) => {
        await tx.insertAccount({ account });
        throw thrown;
      })
      .catch((e: unknown) => e);
    expect(error).toBe(thrown);
    await expect(records.findAccountById({ accountId: account.id })).resolves.toBeNull();
  });

  it('makes a second lockProject wait until the holder commits, then see its write', async () => {
    const schema = await newSchema();
    const one = await open({ schema });
    const two = await open({ schema });
    const [project] = await seedProjects(one.records, 1);
    const locked = gate();
    const holder = one.records.withTransaction(async (tx) => {
      await tx.lockProject({ projectId: project!.id });
      locked.open();
      await sleep(150); // give the waiter every chance to read too early if the lock did not hold it
      await tx.updateProject({ project: { ...project!, fileCount: 1 } });
    });
    await locked.promise;
    const seen = await two.records.withTransaction((tx) => tx.lockProject({ projectId: project!.id }));
    await holder;
    expect(seen?.fileCount).toBe(1);
  });

  it('retries the whole work after a deadlock, so both transactions succeed', async () => {
    const { records } = await open();
    const [p1, p2] = await seedProjects(records, 2);
    const bothLockedOne = barrier(2);
    let runs = 0;
    const crossLock = (first: string, second: string) =>
      records.withTransaction(async (tx: RecordsTransaction) => {
        runs += 1;
        await tx.lockProject({ projectId: first });
        await bothLockedOne();
        await tx.lockProject({ projectId: second });
        return 'done';
      });
    const outcomes = await Promise.all([crossLock(p1!.id, p2!.id), crossLock(p2!.id, p1!.id)]);
    expect(outcomes).toEqual(['done', 'done']);
    expect(runs).toBe(3); // the deadlock victim ran twice
  });

  it('reports a statement timeout as StoreUnavailableError and keeps working afterwards', async () => {
    const schema = await newSchema();
    const holderStore = await open({ schema });
    // 1 s, not less: opening runs the migration check under the same timeout, and on a loaded machine
    // (test files run side by side) a shorter one can expire there instead of at the lock below.
    const impatient = await open({ schema, statementTimeoutMs: 1_000 });
    const [project] = await seedProjects(holderStore.records, 1);
    const locked = gate();
    const release = gate();
    const holder = holderStore.records.withTransaction(async (tx) => {
      await tx.lockProject({ projectId: project!.id });
      locked.open();
      await release.promise;
    });
    await locked.promise;
    const error = await impatient.records
      .withTransaction((tx) => tx.lockProject({ projectId: project!.id }))
      .catch((e: unknown) => e);
    release.open();
    await holder;
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error & { cause: { code: string } }).cause.code).toBe('57014');
    await expect(
      impatient.records.withTransaction((tx) => tx.lockProject({ projectId: project!.id })),
    ).resolves.toEqual(project);
  });

  it('survives the server ending a session idle in a transaction: error reported, client destroyed', async () => {
    const { records } = await open({ idleInTransactionTimeoutMs: 200, poolMax: 1 });
    const error = await records
      .withTransaction(async (tx) => {
        await tx.listAccounts();
        await sleep(800); // work must never wait like this; the server ends the session
        await tx.insertAccount({ account: anAccount() });
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    // With a pool of one, this only works if the dead client was discarded rather than reused.
    await expect(records.withTransaction((tx) => tx.listAccounts())).resolves.toEqual([]);
    await expect(records.listAccounts()).resolves.toEqual([]);
  });

  it('refuses a transaction object used after its transaction ended', async () => {
    const { records } = await open();
    let leaked: RecordsTransaction | undefined;
    await records.withTransaction(async (tx) => {
      leaked = tx;
    });
    await expect(leaked!.listAccounts()).rejects.toThrow(/already ended/);
  });

  it('answers StoreUnavailableError once closed; close is idempotent', async () => {
    const store = await open();
    await store.records.close();
    await expect(store.records.listAccounts()).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.records.withTransaction((tx) => tx.listAccounts())).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    // The rate limiter shares the pool and keeps working until it is closed too.
    await expect(
      store.rateLimiter.consume({ key: 'k', limit: 1, windowMs: 1000, now: 1 }),
    ).resolves.toMatchObject({
      allowed: true,
    });
    await store.close();
    await store.close();
    await expect(
      store.rateLimiter.consume({ key: 'k', limit: 1, windowMs: 1000, now: 1 }),
    ).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});
