// The server entry point (`npm start`).
import cluster from 'node:cluster';
import { silenceAwsSdkNodeNotice } from './aws-sdk-notice.js';
import { isS3Target } from './backup/location.js';
import {
  isTakeDuties,
  WORKER_DUTIES_VARIABLE,
  WORKER_SLOT_VARIABLE,
  type WorkerReady,
} from './cluster/messages.js';
import { clusterRegistry } from './cluster/metrics.js';
import { startPrimary } from './cluster/primary.js';
import { type ServerProcess, startServer } from './composition/server.js';
import {
  ConfigError,
  loadConfig,
  readTlsFiles,
  type ServerConfig,
  type TlsMaterial,
} from './config/index.js';
import { ListenError } from './http/server.js';
import { createLogger, type Logger } from './logger.js';
import { type RunningMetricsListener, startMetricsListener } from './metrics/listener.js';

/**
 * Reads the configuration and serves: from this process (`MDSTORE_WORKERS=1`), or as the cluster primary
 * of that many serving workers on one port, each of which runs this file again (cluster/primary.ts).
 * Every process stops cleanly on SIGTERM/SIGINT, also when the signal reaches the whole process group
 * (Ctrl-C, process managers, `npm start` forwarding it once more): a second signal during a stop changes
 * nothing. A bad configuration prints one line on stderr and exits 1 before anything is opened.
 */
async function main(): Promise<void> {
  let config: ServerConfig;
  let tls: TlsMaterial | undefined;
  try {
    config = loadConfig(process.env);
    tls = config.tls ? await readTlsFiles(config.tls) : undefined;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`mdstore: invalid configuration: ${error.message}\n`);
    process.exit(1);
  }
  const logger = createLogger({ level: config.logLevel });
  const isWorker = cluster.isWorker;
  // Said once: by the single process or the primary, not again by every worker.
  if (!isWorker) for (const warning of config.warnings) logger.warn(warning);
  if (config.workers > 1 && cluster.isPrimary) {
    await runPrimary(config, logger);
    return;
  }
  // The SDK is loaded for the blob store, or for scheduled backups to an s3:// place.
  if (config.blobStore.kind === 's3' || (config.backup.to !== null && isS3Target(config.backup.to)))
    logAwsSdkNodeSupport(logger, !isWorker);

  const shutdown = shutdownOnSignals(logger);
  let server: ServerProcess;
  try {
    server = await startServer({
      config,
      logger,
      ...(tls && { tls }),
      onDurabilityLost: (error) => exitOnLostDurability(logger, error),
      duties: !isWorker || process.env[WORKER_DUTIES_VARIABLE] === '1',
      metricsVia: isWorker ? 'cluster-primary' : 'listener',
    });
  } catch (error) {
    // A listener that cannot be opened is an operator's problem with a one-line cause: no stack.
    if (error instanceof ListenError) logger.error(`start-up failed: ${error.message}`, { code: error.code });
    else logger.error('start-up failed', { error });
    process.exit(1);
  }
  const ready = {
    url: server.url,
    ...(server.redirectUrl && { redirectUrl: server.redirectUrl }),
    ...(server.metricsUrl && { metricsUrl: server.metricsUrl }),
    instanceId: server.runtime.store.instanceId,
  };
  if (isWorker) serveAsWorker(server, logger, ready);
  else logger.info(`mdstore listening on ${server.url}`, ready);
  shutdown.attach(server);
}

/**
 * The cluster primary: binds the metrics listener (which serves every worker's metrics as one) before
 * anything else, then forks the workers; exits with the workers' verdict once they all ended.
 */
async function runPrimary(config: ServerConfig, logger: Logger): Promise<void> {
  let metrics: RunningMetricsListener | undefined;
  if (config.metrics) {
    try {
      metrics = await startMetricsListener({
        ...config.metrics,
        metrics: { registry: clusterRegistry() },
        logger,
      });
    } catch (error) {
      if (error instanceof ListenError)
        logger.error(`start-up failed: ${error.message}`, { code: error.code });
      else logger.error('start-up failed', { error });
      process.exit(1);
    }
  }
  const primary = startPrimary({
    workers: config.workers,
    logger,
    ...(metrics && { metricsUrl: `${metrics.url}/metrics` }),
    onExit: (code) => {
      void (metrics?.close() ?? Promise.resolve()).finally(() => process.exit(code));
    },
  });
  onStopSignals(logger, (signal) => primary.stop(signal));
}

/** A worker tells the primary it serves, takes the duties when told to, and stops when the primary is gone. */
function serveAsWorker(server: ServerProcess, logger: Logger, ready: Omit<WorkerReady, 'type'>): void {
  const duties = process.env[WORKER_DUTIES_VARIABLE] === '1';
  logger.info('worker serving', { ...ready, slot: Number(process.env[WORKER_SLOT_VARIABLE]), duties });
  if (duties) logger.info('maintenance duties held', { instanceId: ready.instanceId });
  process.on('message', (message: unknown) => {
    if (!isTakeDuties(message)) return;
    server.takeDuties();
    logger.info('maintenance duties held', { instanceId: ready.instanceId });
  });
  process.send?.({ type: 'mdstore:ready', ...ready } satisfies WorkerReady);
}

/**
 * The records store could not make commits durable (SQLite: an fdatasync of the WAL failed). The
 * requests waiting for that sync can never be answered truthfully, and Linux may already have dropped the
 * pages that failed, so the process stops at once, as PostgreSQL does on a failed fsync: the supervisor
 * restarts it, and start-up reconciliation settles whatever those writes left (docs/reliability.md).
 */
const EXIT_DURABILITY_LOST = 70;

function exitOnLostDurability(logger: Logger, error: Error): void {
  logger.error('records store lost durability: exiting so that a restart can reconcile', { error });
  process.exit(EXIT_DURABILITY_LOST);
}

/** The AWS SDK's Node.js version notice, as one warn line of the log instead of text on stderr. */
function logAwsSdkNodeSupport(logger: Logger, say: boolean): void {
  if (!silenceAwsSdkNodeNotice() || !say) return;
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 22) {
    logger.warn(
      'AWS SDK for JavaScript releases published after the first week of January 2027 require Node.js 22 or newer',
      { node: process.version, see: 'https://github.com/aws/aws-sdk-js-v3/issues/7983' },
    );
  }
}

/**
 * Calls `stop` on the first SIGTERM or SIGINT; later ones are logged and change nothing, so that a
 * graceful stop is not cut short when the signal arrives twice (the process group's and the one `npm`
 * or the cluster primary forwards). The stop itself is bounded by the grace period.
 */
function onStopSignals(logger: Logger, stop: (signal: NodeJS.Signals) => void): void {
  let requested = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (requested) {
      logger.info('already stopping', { signal });
      return;
    }
    requested = true;
    stop(signal);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

function shutdownOnSignals(logger: Logger): { attach(server: ServerProcess): void } {
  let server: ServerProcess | undefined;
  let requested = false;
  const stop = async (target: ServerProcess) => {
    try {
      await target.stop();
      logger.info('mdstore stopped');
      process.exit(0);
    } catch (error) {
      logger.error('shutdown failed', { error });
      process.exit(1);
    }
  };
  const request = (reason: string) => {
    if (requested) return;
    requested = true;
    logger.info('stopping', { signal: reason });
    if (server) void stop(server);
  };
  onStopSignals(logger, request);
  // A worker whose primary is gone (killed) stops too, rather than serving unsupervised.
  if (cluster.isWorker) process.on('disconnect', () => request('primary gone'));
  return {
    attach(started) {
      server = started;
      // A signal that arrived during start-up is honoured as soon as there is something to stop.
      if (requested) void stop(started);
    },
  };
}

main().catch((error: unknown) => {
  process.stderr.write(`mdstore: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
