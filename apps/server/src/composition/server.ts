import type { InstanceProbe } from '@mdstore/core';
import type { ServerConfig, TlsMaterial } from '../config/index.js';
import { createHttpApp, startHttpServer } from '../http/index.js';
import type { Logger } from '../logger.js';
import type { AdapterModules } from './adapters.js';
import { createRuntime, type Runtime } from './runtime.js';

export interface ServerProcess {
  readonly url: string;
  /** The plain-HTTP listener that redirects to HTTPS, when configured. */
  readonly redirectUrl: string | undefined;
  readonly runtime: Runtime;
  /**
   * Stops listening, lets requests in flight finish (within the grace period), unregisters this
   * instance and closes every adapter. Idempotent.
   */
  stop(): Promise<void>;
}

export interface StartServerOptions {
  readonly config: ServerConfig;
  readonly logger: Logger;
  /** The PEM material read from `config.tls`; required when it is set. */
  readonly tls?: TlsMaterial;
  readonly heartbeatIntervalMs?: number;
  readonly reconcileIntervalMs?: number;
  /** How long `stop` waits for requests in flight. */
  readonly shutdownGraceMs?: number;
  readonly adapterModules?: AdapterModules;
  readonly probe?: InstanceProbe;
}

/** Well inside the core's 30 s instance lease, so a live server is never taken for a gone one. */
export const HEARTBEAT_INTERVAL_MS = 10_000;
export const RECONCILE_INTERVAL_MS = 60_000;
export const SHUTDOWN_GRACE_MS = 10_000;

/**
 * Starts the API: opens the stores, registers this instance, repairs what crashed processes left behind
 * (before accepting requests), then listens. Periodic heartbeats and reconciliations follow; their
 * failures are logged and retried at the next tick, never fatal. On a failure during start-up everything
 * opened so far is closed again before the error is rethrown.
 */
export async function startServer(options: StartServerOptions): Promise<ServerProcess> {
  const { config, logger } = options;
  if (config.tls !== null && options.tls === undefined)
    throw new TypeError('startServer needs the TLS material');
  const runtime = await createRuntime(config, {
    logger,
    ...(options.adapterModules && { adapterModules: options.adapterModules }),
    ...(options.probe && { probe: options.probe }),
  });
  const { store } = runtime;
  let registered = false;
  try {
    await store.maintenance.heartbeat();
    registered = true;
    const report = await store.maintenance.reconcile();
    logger.info('reconciliation finished', { ...report });
    const app = createHttpApp({
      store,
      logger,
      trustProxy: config.trustProxy,
      tls: options.tls !== undefined,
    });
    const http = await startHttpServer({
      app,
      host: config.host,
      port: config.port,
      ...(options.tls && { tls: { cert: options.tls.cert, key: options.tls.key } }),
      ...(config.httpRedirectPort !== null && { redirectPort: config.httpRedirectPort }),
      logger,
      shutdownGraceMs: options.shutdownGraceMs ?? SHUTDOWN_GRACE_MS,
    });
    const timers = startMaintenance(runtime, logger, {
      heartbeatMs: options.heartbeatIntervalMs ?? HEARTBEAT_INTERVAL_MS,
      reconcileMs: options.reconcileIntervalMs ?? RECONCILE_INTERVAL_MS,
    });
    let stopping: Promise<void> | undefined;
    const stop = () => {
      stopping ??= (async () => {
        await timers.stop();
        await http
          .close()
          .catch((error: unknown) => logger.error('closing the HTTP server failed', { error }));
        await unregister(runtime, logger);
        await runtime.close();
      })();
      return stopping;
    };
    return { url: http.url, redirectUrl: http.redirectUrl, runtime, stop };
  } catch (error) {
    if (registered) await unregister(runtime, logger);
    await runtime.close();
    throw error;
  }
}

async function unregister(runtime: Runtime, logger: Logger): Promise<void> {
  try {
    await runtime.store.maintenance.unregister();
  } catch (error) {
    logger.warn('unregistering the instance failed; its lease will expire', { error });
  }
}

/**
 * Heartbeat and reconciliation on unref'd timers. A run never overlaps the previous one of its kind,
 * and `stop` waits for the runs in progress so that the stores are not closed under them.
 */
function startMaintenance(
  runtime: Runtime,
  logger: Logger,
  intervals: { heartbeatMs: number; reconcileMs: number },
): { stop(): Promise<void> } {
  const { maintenance } = runtime.store;
  const running = new Set<Promise<void>>();
  const every = (ms: number, task: string, work: () => Promise<void>) => {
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      const run = work()
        .catch((error: unknown) => logger.error(`${task} failed`, { error }))
        .finally(() => {
          busy = false;
          running.delete(run);
        });
      running.add(run);
    }, ms);
    timer.unref();
    return timer;
  };
  const timers = [
    every(intervals.heartbeatMs, 'heartbeat', () => maintenance.heartbeat()),
    every(intervals.reconcileMs, 'reconciliation', async () => {
      const report = await maintenance.reconcile();
      if (report.intentsResolved > 0 || report.deletionsCompleted > 0 || report.failures > 0) {
        logger.info('reconciliation finished', { ...report });
      }
    }),
  ];
  return {
    async stop() {
      for (const timer of timers) clearInterval(timer);
      await Promise.allSettled([...running]);
    },
  };
}
