import { AsyncLocalStorage } from 'node:async_hooks';
import type { RecordsReader, RecordsRepository, RecordsTransaction } from '@mdstore/core';
import { StoreUnavailableError } from '@mdstore/core';
import { type Db, retryOnBusy } from '../connections.js';
import { toStoreError, translated } from '../errors.js';
import { createMutex } from '../mutex.js';
import { SQLITE_RECORDS } from './dialect.js';
import { sqliteExecutor, statementCache } from './executor.js';

/** What one `withTransaction` call knows about its (logical) transaction. */
interface TransactionState {
  active: boolean;
  /** The first error a statement raised: the transaction can then only be rolled back. */
  failure: unknown;
}

/** A logical transaction whose writes are released into the batch, waiting for the batch's COMMIT. */
interface Member {
  acknowledge(): void;
  reject(error: unknown): void;
}

/** One physical `BEGIN IMMEDIATE … COMMIT` holding the logical transactions of a group commit. */
interface Batch {
  readonly startedAt: number;
  readonly members: Member[];
  commitScheduled: boolean;
}

/**
 * A batch commits as soon as the logical transactions already queued behind the mutex have run (the
 * commit is queued on the mutex one event-loop turn later), or earlier when it reaches either bound: the
 * write lock stays short, so other connections (the rate limiter, other processes) barely wait for it.
 */
export const GROUP_COMMIT_LIMITS = { maxTransactions: 64, maxMilliseconds: 5 } as const;

const SAVEPOINT = 'mdstore_logical';

/**
 * The records repository on two connections to one SQLite file (WAL mode, migrated): `writer` runs
 * every transaction with `synchronous=NORMAL` (the COMMIT writes the WAL without syncing it); the store
 * (`store.ts`, `wal-sync.ts`) acknowledges a transaction only after an `fdatasync` of the WAL on libuv's
 * thread pool, so an acknowledged commit survives power loss and the sync never holds the event loop;
 * `reader` is read-only and serves reads outside transactions, so each sees the last committed state (a
 * WAL snapshot), never another request's uncommitted writes. The repository owns and closes both.
 *
 * Group commit: `withTransaction` calls still run one at a time (a mutex), each inside a SAVEPOINT of a
 * shared physical transaction. When one ends, its savepoint is released but the COMMIT waits until the
 * transactions already waiting have joined; one COMMIT (and the WAL sync after it) then makes the whole
 * batch durable, and only after it does any of them resolve. A logical transaction that
 * fails rolls back to its savepoint alone; a failed COMMIT rejects every member of the batch.
 * `onPhysicalTransactionEnd` is told whenever the write lock is given back (the rate limiter waits on it).
 */
export function createSqliteRecords(c: {
  writer: Db;
  reader: Db;
  busyTimeoutMs: number;
  onPhysicalTransactionEnd?: () => void;
}): RecordsRepository {
  const { writer, reader, busyTimeoutMs } = c;
  const lockReleased = c.onPhysicalTransactionEnd ?? (() => undefined);
  const readerStatements = statementCache(reader);
  const writerStatements = statementCache(writer);
  const mutex = createMutex();
  const currentTransaction = new AsyncLocalStorage<TransactionState>();
  let batch: Batch | undefined;
  let closing: Promise<void> | undefined;

  const ensureOpen = (): void => {
    if (closing) throw new StoreUnavailableError('SQLite records store is closed');
  };

  const reads: RecordsReader = SQLITE_RECORDS.reader(
    sqliteExecutor(readerStatements, { check: ensureOpen, failed: toStoreError }),
  );

  /** The logical transaction running now (the mutex runs one at a time); its statements check it. */
  let running: TransactionState = { active: false, failure: undefined };
  const ended = () => new Error('This transaction has ended: use the repository, not a kept `tx`');
  // `lockProject` is a plain read here: BEGIN IMMEDIATE took the database's write lock, so no other
  // writer can change the row until COMMIT. Built once: binding the port's hundred-odd statements to a
  // new executor for every transaction cost about 140 µs per upload (docs/performance.md).
  const writes: RecordsTransaction = SQLITE_RECORDS.transaction(
    sqliteExecutor(writerStatements, {
      check() {
        if (!running.active) throw ended();
        if (running.failure !== undefined) throw running.failure;
      },
      failed(error) {
        running.failure = toStoreError(error);
        return running.failure;
      },
    }),
  );
  /** The `tx` one logical transaction is given: the shared statements, refused once it has ended. */
  const transactionFor = (state: TransactionState): RecordsTransaction =>
    new Proxy(writes, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => (state.active ? value(...args) : Promise.reject(ended()));
      },
    });

  const rollbackQuietly = (): void => {
    try {
      if (writer.inTransaction) writer.exec('ROLLBACK');
    } catch {
      // The connection reports the failure again on the next BEGIN; the caller's error matters more.
    }
  };

  const beginBatch = async (): Promise<Batch> => {
    rollbackQuietly(); // in case an earlier ROLLBACK failed and left the connection inside a transaction
    await retryOnBusy(() => writer.exec('BEGIN IMMEDIATE'), { busyTimeoutMs });
    return { startedAt: performance.now(), members: [], commitScheduled: false };
  };

  /** Ends the batch without committing: none of its members was acknowledged, all of them fail. */
  const abandonBatch = (current: Batch, error: unknown): void => {
    if (batch === current) batch = undefined;
    rollbackQuietly();
    lockReleased();
    for (const member of current.members) member.reject(error);
  };

  /** Runs inside the mutex: COMMIT (the fsync), then, and only then, acknowledges every member. */
  const commitBatch = (current: Batch): void => {
    if (batch !== current) return;
    try {
      translated(() => writer.exec('COMMIT'));
    } catch (error) {
      abandonBatch(current, error);
      return;
    }
    batch = undefined;
    lockReleased();
    for (const member of current.members) member.acknowledge();
  };

  const commitSoon = (current: Batch): void => {
    const full = current.members.length >= GROUP_COMMIT_LIMITS.maxTransactions;
    if (full || performance.now() - current.startedAt >= GROUP_COMMIT_LIMITS.maxMilliseconds) {
      commitBatch(current); // still inside the mutex
      return;
    }
    if (current.commitScheduled) return;
    current.commitScheduled = true;
    // Transactions queued on the mutex by now run first and join the batch; later ones start the next.
    setImmediate(() => void mutex.run(async () => commitBatch(current)));
  };

  /** Undoes one failed logical transaction; if SQLite already ended the whole transaction, the batch. */
  const undoLogical = (current: Batch, error: unknown): void => {
    try {
      if (!writer.inTransaction) throw error;
      writer.exec(`ROLLBACK TO ${SAVEPOINT}`);
      writer.exec(`RELEASE ${SAVEPOINT}`);
    } catch (undoError) {
      abandonBatch(current, toStoreError(undoError));
      return;
    }
    // The batch may hold nothing at all now: it must still end, to give the write lock back.
    commitSoon(current);
  };

  /**
   * Runs `work` inside the mutex as one logical transaction. Resolves, once `work` is done and its
   * savepoint released, to the acknowledgement: a promise settled by the batch's COMMIT. Wrapped in an
   * object so that leaving the mutex does not wait for that COMMIT.
   */
  const runLogical = async <T>(
    work: (tx: RecordsTransaction) => Promise<T>,
  ): Promise<{ acknowledged: Promise<T> }> => {
    ensureOpen();
    batch ??= await beginBatch();
    const current = batch;
    try {
      translated(() => writer.exec(`SAVEPOINT ${SAVEPOINT}`));
    } catch (error) {
      abandonBatch(current, error);
      throw error;
    }
    const state: TransactionState = { active: true, failure: undefined };
    running = state;
    let result: T;
    try {
      result = await currentTransaction.run(state, () => work(transactionFor(state)));
      // `work` swallowed a statement's error: what it wrote is incomplete, so nothing is committed.
      if (state.failure !== undefined) throw state.failure;
      translated(() => writer.exec(`RELEASE ${SAVEPOINT}`));
    } catch (error) {
      undoLogical(current, error);
      throw error;
    } finally {
      state.active = false;
    }
    const acknowledged = new Promise<T>((resolve, reject) => {
      current.members.push({ acknowledge: () => resolve(result), reject });
    });
    commitSoon(current);
    return { acknowledged };
  };

  return {
    ...reads,
    supports: { durable: true, sharedBetweenProcesses: true },
    async withTransaction<T>(work: (tx: RecordsTransaction) => Promise<T>): Promise<T> {
      if (currentTransaction.getStore()?.active) {
        // The writer runs one transaction at a time: waiting for ourselves would never end.
        throw new Error('withTransaction cannot be nested: use the `tx` you were given');
      }
      const { acknowledged } = await mutex.run(() => runLogical(work));
      return acknowledged;
    },
    close(): Promise<void> {
      closing ??= mutex.run(async () => {
        if (batch) commitBatch(batch); // members already released deserve their COMMIT
        reader.close();
        writer.close();
      });
      return closing;
    },
  };
}
