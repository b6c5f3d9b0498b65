import type { RecordsArchive } from '@mdstore/core';
import { type ArchiveEngine, type SqlExecutor, sqlArchive } from '@mdstore/sql';
import { type Db, openConnection, retryOnBusy, waitForWriteLockAsynchronously } from './connections.js';
import { toStoreError } from './errors.js';
import { SQLITE_DIALECT } from './records/dialect.js';
import { sqliteExecutor, statementCache } from './records/executor.js';
import { SQLITE_SCHEMA_VERSION } from './schema.js';

export interface SqliteArchive extends RecordsArchive {
  /** Closes the archive's own connections (a snapshot still open is closed by its `close`). */
  close(): void;
}

const executorOf = (db: Db): SqlExecutor =>
  sqliteExecutor(statementCache(db), { check: () => {}, failed: (error) => toStoreError(error) });

/**
 * The archive of a SQLite store (extensions §16), on connections of its own to the file: a snapshot is
 * a read transaction on a fresh read-only connection (WAL: it pins the state of its first read and never
 * blocks a writer; checkpoints cannot reset the WAL past it while it lasts); a restore writes through a
 * connection with `synchronous=FULL`, so each COMMIT is durable when it returns.
 */
export function openSqliteArchive(o: { path: string; busyTimeoutMs: number }): SqliteArchive {
  let reader: Db | undefined;
  let writer: Db | undefined;
  const readerDb = () => {
    reader ??= openConnection({
      path: o.path,
      busyTimeoutMs: o.busyTimeoutMs,
      synchronous: 'FULL',
      readonly: true,
    });
    return reader;
  };
  const writerDb = () => {
    if (!writer) {
      writer = openConnection({ path: o.path, busyTimeoutMs: o.busyTimeoutMs, synchronous: 'FULL' });
      waitForWriteLockAsynchronously(writer);
    }
    return writer;
  };
  let readerExecutor: SqlExecutor | undefined;
  let writerExecutor: SqlExecutor | undefined;
  const reading = () => {
    readerExecutor ??= executorOf(readerDb());
    return readerExecutor;
  };
  const lazyReader: SqlExecutor = {
    all: (sql, params) => reading().all(sql, params),
    get: (sql, params) => reading().get(sql, params),
    run: (sql, params) => reading().run(sql, params),
    write: (sql, params) => reading().write(sql, params),
  };
  const engine: ArchiveEngine = {
    dialect: SQLITE_DIALECT,
    schemaVersion: SQLITE_SCHEMA_VERSION,
    binary: (column) => column,
    reader: lazyReader,
    async openSnapshot() {
      const db = openConnection({
        path: o.path,
        busyTimeoutMs: o.busyTimeoutMs,
        synchronous: 'FULL',
        readonly: true,
      });
      try {
        db.exec('BEGIN DEFERRED');
        // The first read starts the read transaction: the snapshot is taken here.
        db.prepare('SELECT count(*) FROM sqlite_master').get();
      } catch (error) {
        db.close();
        throw toStoreError(error);
      }
      let closed = false;
      return {
        executor: executorOf(db),
        async close() {
          if (closed) return;
          closed = true;
          try {
            if (db.inTransaction) db.exec('COMMIT');
          } finally {
            db.close();
          }
        },
      };
    },
    async write(work) {
      const db = writerDb();
      await retryOnBusy(() => db.exec('BEGIN IMMEDIATE'), { busyTimeoutMs: o.busyTimeoutMs });
      try {
        writerExecutor ??= executorOf(db);
        const result = await work(writerExecutor);
        db.exec('COMMIT');
        return result;
      } catch (error) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw toStoreError(error);
      }
    },
  };
  return {
    ...sqlArchive(engine),
    close() {
      reader?.close();
      writer?.close();
      reader = undefined;
      writer = undefined;
      readerExecutor = undefined;
      writerExecutor = undefined;
    },
  };
}
