import cluster, { type Worker } from 'node:cluster';
import { SHUTDOWN_GRACE_MS } from '../composition/server.js';
import type { Logger } from '../logger.js';
import { isWorkerReady, WORKER_DUTIES_VARIABLE, WORKER_SLOT_VARIABLE, type WorkerReady } from './messages.js';

export interface PrimaryOptions {
  /** How many serving workers (`MDSTORE_WORKERS`, at least 2 here). */
  readonly workers: number;
  readonly logger: Logger;
  /** The primary's metrics listener (every worker's metrics as one), when configured. */
  readonly metricsUrl?: string;
  /** Called once with the exit code when every worker has ended (main.ts exits the process with it). */
  readonly onExit: (code: number) => void;
}

export interface Primary {
  /** Stops every worker gracefully (SIGTERM to each, then waits). Idempotent: a second call changes nothing. */
  stop(signal: NodeJS.Signals): void;
}

/** Past the workers' own grace period for requests in flight, what is still running is killed. */
const STOP_TIMEOUT_MS = SHUTDOWN_GRACE_MS + 20_000;
/** A replacement that dies before it is ready waits this long, doubled each time, up to the cap. */
const RESTART_DELAY_MS = 500;
const RESTART_DELAY_CAP_MS = 30_000;

interface Slot {
  readonly index: number;
  worker: Worker | undefined;
  ready: WorkerReady | undefined;
  /** Replacements in a row that died before becoming ready. */
  failures: number;
  restart: NodeJS.Timeout | undefined;
}

/**
 * The cluster primary of `MDSTORE_WORKERS` > 1: forks that many workers, each running the whole server
 * (main.ts) on the one port the primary shares among them (node:cluster, connections handed round-robin),
 * and opens no store itself. One worker holds the maintenance duties (periodic reconciliation and expiry,
 * the webhook deliverer); when it dies another ready worker is told to take them. A worker that dies is
 * replaced; one that fails before the first "listening" fails the whole start (exit 1). On `stop` every
 * worker is sent SIGTERM and the primary waits for all of them: exit 0 when every worker stopped cleanly.
 */
export function startPrimary(options: PrimaryOptions): Primary {
  const { logger } = options;
  const slots: Slot[] = Array.from({ length: options.workers }, (_, index) => ({
    index,
    worker: undefined,
    ready: undefined,
    failures: 0,
    restart: undefined,
  }));
  let dutySlot = 0;
  let started = false;
  let stopping = false;
  let exitCode = 0;
  let finished = false;

  const finish = (code: number) => {
    if (finished) return;
    finished = true;
    options.onExit(code);
  };

  const fork = (slot: Slot) => {
    slot.restart = undefined;
    slot.ready = undefined;
    const worker = cluster.fork({
      [WORKER_SLOT_VARIABLE]: String(slot.index),
      [WORKER_DUTIES_VARIABLE]: slot.index === dutySlot ? '1' : '0',
    });
    slot.worker = worker;
    worker.on('message', (message: unknown) => {
      if (!isWorkerReady(message) || slot.worker !== worker) return;
      slot.ready = message;
      slot.failures = 0;
      if (!started && slots.every((s) => s.ready)) {
        started = true;
        logger.info(`mdstore listening on ${message.url}`, {
          url: message.url,
          ...(message.redirectUrl && { redirectUrl: message.redirectUrl }),
          ...(options.metricsUrl && { metricsUrl: options.metricsUrl }),
          workers: slots.map((s) => ({ pid: s.worker?.process.pid, instanceId: s.ready?.instanceId })),
        });
      } else if (started) {
        logger.info('replacement worker serving', {
          pid: worker.process.pid,
          instanceId: message.instanceId,
        });
      }
    });
    worker.on('exit', (code, signal) => onWorkerExit(slot, worker, code, signal));
  };

  const onWorkerExit = (slot: Slot, worker: Worker, code: number | null, signal: string | null) => {
    if (slot.worker !== worker) return;
    const wasReady = slot.ready !== undefined;
    slot.worker = undefined;
    slot.ready = undefined;
    if (stopping) {
      // A worker still loading when the signal came has no handler yet and ends by it, with nothing open.
      if (code !== 0 && signal !== 'SIGTERM' && signal !== 'SIGINT') exitCode = 1;
      if (slots.every((s) => s.worker === undefined)) {
        logger.info('mdstore stopped', { exitCode });
        finish(exitCode);
      }
      return;
    }
    if (!started) {
      // A worker that cannot start (a busy port, an unreachable database) fails the whole start.
      logger.error('a worker failed to start: stopping the others', {
        pid: worker.process.pid,
        code,
        signal,
      });
      exitCode = 1;
      stop('SIGTERM');
      return;
    }
    if (!wasReady) slot.failures += 1;
    const delay =
      slot.failures === 0 ? 0 : Math.min(RESTART_DELAY_CAP_MS, RESTART_DELAY_MS * 2 ** (slot.failures - 1));
    logger.warn('worker exited: starting a replacement', {
      pid: worker.process.pid,
      code,
      signal,
      delayMs: delay,
    });
    if (slot.index === dutySlot) handOverDuties(slot);
    slot.restart = setTimeout(() => fork(slot), delay);
  };

  /** The duty holder died: a worker serving now takes over; if none is, the replacement starts with them. */
  const handOverDuties = (dead: Slot) => {
    const heir = slots.find((s) => s !== dead && s.ready !== undefined && s.worker?.isConnected());
    if (!heir?.worker) return;
    dutySlot = heir.index;
    heir.worker.send({ type: 'mdstore:take-duties' });
    logger.info('maintenance duties handed over', { pid: heir.worker.process.pid });
  };

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.info('already stopping: waiting for the workers', { signal });
      return;
    }
    stopping = true;
    logger.info('stopping', { signal, workers: slots.filter((s) => s.worker).length });
    for (const slot of slots) {
      if (slot.restart) clearTimeout(slot.restart);
      slot.restart = undefined;
      // Also when the signal went to the whole process group: a worker's stop is idempotent.
      slot.worker?.process.kill('SIGTERM');
    }
    if (slots.every((s) => s.worker === undefined)) {
      finish(exitCode);
      return;
    }
    setTimeout(() => {
      const left = slots.filter((s) => s.worker);
      logger.error('workers still running after the stop timeout: killing them', {
        pids: left.map((s) => s.worker?.process.pid),
      });
      for (const slot of left) slot.worker?.process.kill('SIGKILL');
      finish(1);
    }, STOP_TIMEOUT_MS).unref();
  };

  for (const slot of slots) fork(slot);
  return { stop };
}
