import { AsyncLocalStorage } from 'node:async_hooks';
import type { RecordsReader, RecordsRepository, RecordsTransaction } from '@mdstore/core';
import { StoreUnavailableError } from '@mdstore/core';
import { type Db, retryOnBusy } from '../connections.js';
import { toStoreError, translated } from '../errors.js';
import { createMutex } from '../mutex.js';
import { createReadQueries } from './read-queries.js';
import { createWriteQueries } from './write-queries.js';

// biome-ignore lint/suspicious/noExplicitAny: a generic bag of synchronous methods
type SyncMethods = Record<string, (...args: any[]) => unknown>;
type AsyncMethods<S extends SyncMethods> = {
  [K in keyof S]: (...args: Parameters<S[K]>) => Promise<ReturnType<S[K]>>;
};

/** Exposes synchronous statement runners as the port's async methods, each call going through `run`. */
function asAsync<S extends SyncMethods>(methods: S, run: <R>(call: () => R) => R): AsyncMethods<S> {
  const entries = Object.entries(methods).map(([name, method]) => [
    name,
    async (...args: unknown[]) => run(() => method(...args)),
  ]);
  return Object.fromEntries(entries) as AsyncMethods<S>;
}

/** What one `withTransaction` call knows about its transaction. */
interface TransactionState {
  active: boolean;
  /** The first error a statement raised: the transaction can then only be rolled back. */
  failure: unknown;
}

/**
 * The records repository on two connections to one SQLite file (WAL mode, migrated): `writer` runs
 * every transaction with `synchronous=FULL` (an acknowledged commit is fsynced and survives power loss);
 * `reader` is read-only and serves reads outside transactions, so each sees the last committed state (a
 * WAL snapshot), never another request's uncommitted writes. The repository owns and closes both.
 */
export function createSqliteRecords(c: { writer: Db; reader: Db; busyTimeoutMs: number }): RecordsRepository {
  const { writer, reader, busyTimeoutMs } = c;
  const readerQueries = createReadQueries(reader);
  const writerReads = createReadQueries(writer);
  const writerWrites = createWriteQueries(writer);
  const mutex = createMutex();
  const currentTransaction = new AsyncLocalStorage<TransactionState>();
  let closing: Promise<void> | undefined;

  const ensureOpen = (): void => {
    if (closing) throw new StoreUnavailableError('SQLite records store is closed');
  };

  const reads: RecordsReader = asAsync(readerQueries, (call) => {
    ensureOpen();
    return translated(call);
  });

  const transactionFor = (state: TransactionState): RecordsTransaction => {
    const run = <R>(call: () => R): R => {
      if (!state.active) throw new Error('This transaction has ended: use the repository, not a kept `tx`');
      if (state.failure !== undefined) throw state.failure;
      try {
        return call();
      } catch (error) {
        state.failure = toStoreError(error);
        throw state.failure;
      }
    };
    const txReads = asAsync(writerReads, run);
    return {
      ...txReads,
      ...asAsync(writerWrites, run),
      // BEGIN IMMEDIATE took the database's write lock: no other writer can change the row until COMMIT.
      lockProject: txReads.findProjectById,
    };
  };

  const rollbackQuietly = (): void => {
    try {
      if (writer.inTransaction) writer.exec('ROLLBACK');
    } catch {
      // The connection reports the failure again on the next BEGIN; the caller's error matters more.
    }
  };

  const runTransaction = async <T>(work: (tx: RecordsTransaction) => Promise<T>): Promise<T> => {
    ensureOpen();
    rollbackQuietly(); // in case an earlier ROLLBACK failed and left the connection inside a transaction
    await retryOnBusy(() => writer.exec('BEGIN IMMEDIATE'), { busyTimeoutMs });
    const state: TransactionState = { active: true, failure: undefined };
    try {
      const result = await currentTransaction.run(state, () => work(transactionFor(state)));
      // `work` swallowed a statement's error: what it wrote is incomplete, so nothing is committed.
      if (state.failure !== undefined) throw state.failure;
      translated(() => writer.exec('COMMIT'));
      return result;
    } catch (error) {
      rollbackQuietly();
      throw error;
    } finally {
      state.active = false;
    }
  };

  return {
    ...reads,
    supports: { durable: true, sharedBetweenProcesses: true },
    withTransaction<T>(work: (tx: RecordsTransaction) => Promise<T>): Promise<T> {
      if (currentTransaction.getStore()?.active) {
        // The writer runs one transaction at a time: waiting for ourselves would never end.
        return Promise.reject(new Error('withTransaction cannot be nested: use the `tx` you were given'));
      }
      return mutex.run(() => runTransaction(work));
    },
    close(): Promise<void> {
      closing ??= mutex.run(async () => {
        reader.close();
        writer.close();
      });
      return closing;
    },
  };
}
