import { close, fdatasync, fsync, open } from 'node:fs';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { type RecordsRepository, StoreUnavailableError } from '@mdstore/core';

const openFile = promisify(open);
const closeFile = promisify(close);
const datasyncFile = promisify(fdatasync);
const syncFile = promisify(fsync);

/**
 * Makes the commits of a `synchronous=NORMAL` WAL connection durable off the event loop.
 *
 * With NORMAL, SQLite's COMMIT writes the transaction's frames to the WAL file and returns without
 * syncing it (a plain `write`, quick). `sync()` then runs `fdatasync` on the WAL file, which node runs on
 * libuv's thread pool, so the event loop keeps serving meanwhile. One fdatasync covers every frame
 * written before it started, whoever wrote it: callers that arrive while one runs share the next one,
 * which starts when it ends (a group fsync).
 *
 * Checkpoints stay SQLite's: in NORMAL it syncs the WAL before copying it into the database file, syncs
 * the database file after, and syncs the WAL header when the WAL restarts from its beginning, so a
 * checkpoint or a WAL reset never loses a frame this sync acknowledged.
 */
export interface WalSync {
  /**
   * Resolves once every commit made before the call is on disk. After a failed fdatasync it never
   * settles (see `begin`), for a commit that ran before the call is in the file, durable or not.
   */
  sync(): Promise<void>;
  /** The `StoreUnavailableError` to refuse new work with, once an fdatasync has failed. */
  failure(): StoreUnavailableError | undefined;
  /**
   * One last sync, then the descriptor is closed. Call it after the writer connection is closed: no
   * commit can follow, so later `sync()` calls resolve at once.
   */
  close(): Promise<void>;
}

export interface WalSyncIo {
  /** Flushes a file's data (and the metadata needed to read it back) to disk. */
  datasync(fd: number): Promise<void>;
  close(fd: number): Promise<void>;
}

/** What a failed fdatasync means for every later caller. */
const brokenDurability = (cause: unknown) =>
  new StoreUnavailableError(
    `SQLite: syncing the WAL file failed (${cause instanceof Error ? cause.message : String(cause)}); ` +
      'what reached the disk is unknown, restart the process',
  );

/** A promise that never settles: the fate of commits a failed fdatasync was to cover is unknown. */
const never = new Promise<never>(() => undefined);

export interface WalSyncHooks {
  /** After each successful fdatasync (the checkpointer's cue). */
  readonly afterSync?: () => void;
  /**
   * Once, when an fdatasync fails: the commits it was to cover will never be acknowledged, so the owner
   * of the process may stop it (the server exits, and reconciliation at the next start settles them).
   */
  readonly onFailure?: (error: StoreUnavailableError) => void;
}

export function createWalSync(fd: number, io: WalSyncIo, hooks: WalSyncHooks = {}): WalSync {
  const afterSync = hooks.afterSync ?? (() => undefined);
  /** The fdatasync in flight. */
  let running: Promise<void> | undefined;
  /** The next one, shared by the callers that arrived while `running` ran. */
  let next: Promise<void> | undefined;
  let failure: StoreUnavailableError | undefined;
  let reportFailure!: (error: StoreUnavailableError) => void;
  const failed = new Promise<never>((_, reject) => {
    reportFailure = reject;
  });
  failed.catch(() => undefined);
  let closing: Promise<void> | undefined;
  let closed = false;

  const begin = (): Promise<void> => {
    const synced = () => {
      try {
        afterSync();
      } catch {
        // A listener's failure (the checkpointer's) must not turn a durable commit into a failed one.
      }
    };
    const round = io.datasync(fd).then(synced, (error: unknown) => {
      // Linux may already have dropped the pages that failed to write, so a retry could "succeed"
      // without them: the store stops here. The transactions waiting for this sync are committed in
      // the file (and may be lost on a power cut): they are never settled, since a rejection would make
      // the write path compensate (delete a new blob) for records the file holds. A restart settles
      // them: reconciliation reads the intents of whatever survived.
      if (!failure) {
        failure = brokenDurability(error);
        reportFailure(failure);
        try {
          hooks.onFailure?.(failure);
        } catch {
          // The owner's reaction must not change what the store does: it already refuses new work.
        }
      }
      return never;
    });
    running = round;
    const clear = () => {
      if (running === round) running = undefined;
    };
    round.then(clear, clear);
    return round;
  };

  const sync = (): Promise<void> => {
    if (failure) return never;
    if (closed) return Promise.resolve();
    if (next) return next;
    if (!running) return begin();
    // The fdatasync in flight may have started before the caller's commit: the caller needs the next.
    next = running.then(() => {
      next = undefined;
      return failure ? never : begin();
    });
    return next;
  };

  return {
    sync,
    failure: () => failure,
    close() {
      closing ??= (async () => {
        try {
          await Promise.race([sync(), failed]);
          // A caller that came during that sync started another: it ends before the descriptor closes.
          while (running || next) await Promise.race([next ?? running, failed]);
          closed = true;
        } finally {
          await io.close(fd);
        }
      })();
      return closing;
    },
  };
}

/**
 * Opens the WAL file of the database at `databasePath` (it exists: a connection has the file open in
 * WAL mode) and syncs its folder once, so the WAL's own name is on disk too, as SQLite does for a WAL
 * it creates when it first syncs it.
 */
const io: WalSyncIo = { datasync: datasyncFile, close: closeFile };

export async function openWalSync(databasePath: string, hooks: WalSyncHooks = {}): Promise<WalSync> {
  const fd = await openFile(`${databasePath}-wal`, 'r');
  try {
    // Windows cannot open a folder, nor needs to: its file system records the name with the file.
    if (process.platform === 'win32') return createWalSync(fd, io, hooks);
    const folder = await openFile(dirname(databasePath), 'r');
    try {
      await syncFile(folder);
    } finally {
      await closeFile(folder);
    }
  } catch (error) {
    await closeFile(fd);
    throw error;
  }
  return createWalSync(fd, io, hooks);
}

/**
 * The repository whose `withTransaction` resolves only once its COMMIT is on disk: after the commit (a
 * NORMAL one, not synced) the WAL is synced. A read after the acknowledgement sees the write
 * (read-your-writes); a read made between the COMMIT and its sync may see it before it is acknowledged
 * (docs/reliability.md, "Records, SQLite"). Once a sync has failed, reads and new transactions are refused.
 */
export function withSyncedCommits(records: RecordsRepository, wal: WalSync): RecordsRepository {
  const guarded: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(records)) {
    guarded[name] =
      typeof member === 'function' && name !== 'close'
        ? (...args: unknown[]) => {
            const broken = wal.failure();
            return broken ? Promise.reject(broken) : member.apply(records, args);
          }
        : member;
  }
  return {
    ...(guarded as unknown as RecordsRepository),
    async withTransaction(work) {
      const broken = wal.failure();
      if (broken) throw broken;
      const result = await records.withTransaction(work);
      await wal.sync();
      return result;
    },
  };
}
