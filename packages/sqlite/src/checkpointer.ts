import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * WAL checkpoints in a worker thread. A checkpoint copies the WAL's pages into the database file and
 * fsyncs both; run by the writer connection (SQLite's automatic checkpoint, at its COMMIT every 1 000
 * pages) it holds the event loop for as long as that takes: measured with 4 KiB rows, it made the mean
 * COMMIT 3 to 8 times slower, with stalls of 50 to 200 ms. Here a connection of its own, in a worker,
 * runs `PRAGMA wal_checkpoint(PASSIVE)` (which never waits for, nor blocks, readers and writers) at most
 * every `minIntervalMs` while commits arrive. The writer keeps an automatic checkpoint at a much larger
 * size (`WRITER_AUTOCHECKPOINT_PAGES`) as a safety net, should the worker fall behind or fail.
 *
 * Durability is untouched: in NORMAL and FULL alike, SQLite syncs the WAL before a checkpoint copies it
 * and the database file after, so the database file never holds a page the WAL had not made durable.
 */
export interface Checkpointer {
  /** Commits were made durable: a checkpoint follows within `minIntervalMs`. */
  committed(): void;
  /** Checkpoints that have completed, for tests and diagnostics. */
  completed(): number;
  /** Stops the worker after its current checkpoint. Idempotent. */
  close(): Promise<void>;
}

export const CHECKPOINT_INTERVAL_MS = 100;
export const WRITER_AUTOCHECKPOINT_PAGES = 16_384;

/** CommonJS, evaluated as the worker's script: no file to resolve from sources or from the build. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('busy_timeout = 0');
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage('done');
  } catch (error) {
    // SQLITE_BUSY: another connection checkpoints right now. Anything else: the next one tries again.
    parentPort.postMessage('failed');
  }
});
`;

export function startCheckpointer(path: string, minIntervalMs = CHECKPOINT_INTERVAL_MS): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, driver } });
  worker.unref();
  let alive = true;
  let running = false;
  let wanted = false;
  let lastStart = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | undefined;
  let completed = 0;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  void exited.then(() => {
    alive = false;
  });
  // A worker that fails leaves the checkpoints to the writer's own (the safety net).
  worker.on('error', () => {
    alive = false;
  });

  const start = () => {
    timer = undefined;
    if (!alive || running || !wanted) return;
    const wait = lastStart + minIntervalMs - performance.now();
    if (wait > 0) {
      timer = setTimeout(start, wait);
      timer.unref();
      return;
    }
    wanted = false;
    running = true;
    lastStart = performance.now();
    worker.postMessage('checkpoint');
  };
  worker.on('message', (message) => {
    running = false;
    if (message === 'done') completed += 1;
    start();
  });

  let closing: Promise<void> | undefined;
  return {
    committed() {
      wanted = true;
      if (!timer) start();
    },
    completed: () => completed,
    close() {
      closing ??= (async () => {
        if (timer) clearTimeout(timer);
        alive = false;
        // Unreferenced, the worker would not keep the process alive until it has closed its connection.
        worker.ref();
        worker.postMessage('close');
        await exited;
      })();
      return closing;
    },
  };
}
