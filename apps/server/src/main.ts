// The server entry point (`npm start`).
import { silenceAwsSdkNodeNotice } from './aws-sdk-notice.js';
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

/**
 * Reads the configuration, starts the server and stops it cleanly on SIGTERM/SIGINT (a second signal
 * exits at once). A bad configuration prints one line on stderr and exits 1 before anything is opened.
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
  for (const warning of config.warnings) logger.warn(warning);
  if (config.blobStore.kind === 's3') logAwsSdkNodeSupport(logger);

  const shutdown = shutdownOnSignals(logger);
  let server: ServerProcess;
  try {
    server = await startServer({
      config,
      logger,
      ...(tls && { tls }),
      onDurabilityLost: (error) => exitOnLostDurability(logger, error),
    });
  } catch (error) {
    // A listener that cannot be opened is an operator's problem with a one-line cause: no stack.
    if (error instanceof ListenError) logger.error(`start-up failed: ${error.message}`, { code: error.code });
    else logger.error('start-up failed', { error });
    process.exit(1);
  }
  logger.info(`mdstore listening on ${server.url}`, {
    url: server.url,
    ...(server.redirectUrl && { redirectUrl: server.redirectUrl }),
    ...(server.metricsUrl && { metricsUrl: server.metricsUrl }),
    instanceId: server.runtime.store.instanceId,
  });
  shutdown.attach(server);
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
function logAwsSdkNodeSupport(logger: Logger): void {
  if (!silenceAwsSdkNodeNotice()) return;
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 22) {
    logger.warn(
      'AWS SDK for JavaScript releases published after the first week of January 2027 require Node.js 22 or newer',
      { node: process.version, see: 'https://github.com/aws/aws-sdk-js-v3/issues/7983' },
    );
  }
}

function shutdownOnSignals(logger: Logger): { attach(server: ServerProcess): void } {
  let server: ServerProcess | undefined;
  let requested: NodeJS.Signals | undefined;
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
  const onSignal = (signal: NodeJS.Signals) => {
    if (requested) {
      logger.warn('second signal: exiting without waiting', { signal });
      process.exit(1);
    }
    requested = signal;
    logger.info('stopping', { signal });
    if (server) void stop(server);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
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
