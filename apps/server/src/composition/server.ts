import {
  type BlobStore,
  type ChangeNotifier,
  type ContentWork,
  createScheduleSlots,
  type RecordsRepository,
} from '@mdstore/core';
import { backupS3Options } from '../backup/location.js';
import {
  BACKUP_SLOT_ATTEMPTS,
  BACKUP_SLOT_LEASE_MS,
  BACKUP_SLOTS_KEPT_MS,
  type ScheduleClock,
  startScheduledBackups,
  systemClock,
} from '../backup/scheduled.js';
import { answerPrimaryWith } from '../cluster/metrics.js';
import type { ServerConfig, TlsMaterial } from '../config/index.js';
import { startSemanticIndexer } from '../embeddings/indexer.js';
import { AuditQueue } from '../http/audit.js';
import { createHttpApp, type RunningHttpServer, startHttpServer } from '../http/index.js';
import { jsonParserOf } from '../http/json-parser.js';
import { createReadinessCheck } from '../http/readiness.js';
import { startingGate } from '../http/starting.js';
import { type WriteActivity, writeActivity } from '../http/write-activity.js';
import type { Logger } from '../logger.js';
import { type RunningMetricsListener, startMetricsListener } from '../metrics/listener.js';
import { createServerMetrics, type ServerMetrics } from '../metrics/metrics.js';
import { startWebhookDelivery } from '../webhooks/delivery.js';
import type { AdapterModules } from './adapters.js';
import { createRuntime, type Runtime, type RuntimeOptions } from './runtime.js';
import { TOKENS } from './tokens.js';

export interface ServerProcess {
  readonly url: string;
  /** The plain-HTTP listener that redirects to HTTPS, when configured. */
  readonly redirectUrl: string | undefined;
  /** The Prometheus listener (`…/metrics`), when configured. */
  readonly metricsUrl: string | undefined;
  readonly runtime: Runtime;
  /**
   * Starts the periodic maintenance loop and the webhook deliverer in this process, if they do not run
   * here yet (a worker given the duty after the one holding it died). No-op once stopping.
   */
  takeDuties(): void;
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
  /** Parts replaced in a child container before the store is built (tests; see `RuntimeOptions`). */
  readonly override?: RuntimeOptions['override'];
  /**
   * Whether this process runs the periodic maintenance loop (reconciliation, expiry) and the webhook
   * deliverer. Default true; of several workers on one port (`MDSTORE_WORKERS`) only the one the primary
   * chose does (main.ts). Heartbeats, start-up reconciliation and backfills run in every process.
   */
  readonly duties?: boolean;
  /**
   * With `config.metrics`: `listener` (default) serves them on the metrics port; `cluster-primary` opens
   * no metrics listener and answers the cluster primary, which serves every worker's metrics as one.
   */
  readonly metricsVia?: 'listener' | 'cluster-primary';
  /** The clock of scheduled backups (`MDSTORE_BACKUP_SCHEDULE`); tests pass a fake one. */
  readonly backupClock?: ScheduleClock;
  /** See `RuntimeOptions.onDurabilityLost`; `npm start` exits the process (main.ts). */
  readonly onDurabilityLost?: RuntimeOptions['onDurabilityLost'];
}

/** Well inside the core's 30 s instance lease, so a live server is never taken for a gone one. */
export const HEARTBEAT_INTERVAL_MS = 10_000;
export const RECONCILE_INTERVAL_MS = 60_000;
export const SHUTDOWN_GRACE_MS = 10_000;

/**
 * Starts the API. Every listener is bound first, before any store is opened: an instance started on a
 * busy port fails without migrating, registering or reconciling anything (until the app is ready the
 * listener answers 503). Then it opens the stores, registers this instance, repairs what crashed
 * processes left behind, and serves. Periodic heartbeats and reconciliations follow; their failures are
 * logged and retried at the next tick, never fatal. On a failure during start-up everything opened so
 * far is closed again before the error is rethrown.
 */
export async function startServer(options: StartServerOptions): Promise<ServerProcess> {
  const { config, logger } = options;
  if (config.tls !== null && options.tls === undefined)
    throw new TypeError('startServer needs the TLS material');
  const metrics = config.metrics ? createServerMetrics() : undefined;
  const listeners = await bindListeners(options, metrics);
  let runtime: Runtime;
  try {
    runtime = await createRuntime(config, {
      logger,
      ...(options.adapterModules && { adapterModules: options.adapterModules }),
      ...(options.override && { override: options.override }),
      ...(options.onDurabilityLost && { onDurabilityLost: options.onDurabilityLost }),
      ...(metrics && { metrics }),
    });
  } catch (error) {
    await listeners.close();
    throw error;
  }
  const { store } = runtime;
  // Extensions §8: the audit log's writer, flushed on stop after the last request has finished.
  const audit = new AuditQueue(store, logger);
  let registered = false;
  const closing = new AbortController();
  // Extensions §15: the writes being served, which the semantic indexer gives way to.
  const writes = writeActivity();
  try {
    await store.maintenance.heartbeat();
    registered = true;
    await reconcile(runtime, logger, metrics, true);
    // Files stored before search existed get their front matter and index before the server is ready.
    const backfill = await store.maintenance.backfillSearch();
    if (backfill.indexed > 0) logger.info('search index backfilled', { ...backfill });
    const linkBackfill = await store.maintenance.backfillLinks();
    if (linkBackfill.indexed > 0) logger.info('link index backfilled', { ...linkBackfill });
    listeners.gate.open(
      writes.wrap(
        createHttpApp({
          store,
          logger,
          audit,
          trustProxy: config.trustProxy,
          publicOrigins: config.publicOrigins,
          accountShare: config.accountShare,
          tls: options.tls !== undefined,
          // Changesets, PATCH and `/mcp` bodies above 1 MiB are parsed in the content work pool.
          jsonParser: jsonParserOf(runtime.container.resolve<ContentWork>(TOKENS.contentWork)),
          readiness: createReadinessCheck({
            records: runtime.container.resolve<RecordsRepository>(TOKENS.records),
            blobs: runtime.container.resolve<BlobStore>(TOKENS.blobs),
            logger,
          }),
          ...(metrics && { metrics }),
          changes: {
            closing: closing.signal,
            notifier: runtime.container.resolve<ChangeNotifier>(TOKENS.changeNotifier),
            maxStreamsPerKey: config.changes.maxStreamsPerKey,
            maxStreamsPerAccount: config.changes.maxStreamsPerAccount,
            maxStreams: config.changes.maxStreams,
            ...(metrics && { onOpenStreams: (delta: number) => metrics.observeChangeStreams(delta) }),
          },
        }),
      ),
    );
  } catch (error) {
    await listeners.close();
    if (registered) await unregister(runtime, logger);
    await runtime.close();
    throw error;
  }
  let stopping: Promise<void> | undefined;
  const heartbeats = startPeriodic(logger, [
    {
      task: 'heartbeat',
      everyMs: options.heartbeatIntervalMs ?? HEARTBEAT_INTERVAL_MS,
      work: () => store.maintenance.heartbeat(),
    },
  ]);
  let duties: { stop(): Promise<void> } | undefined;
  const takeDuties = () => {
    if (duties || stopping) return;
    duties = startDuties(
      runtime,
      logger,
      metrics,
      options.reconcileIntervalMs ?? RECONCILE_INTERVAL_MS,
      options.backupClock,
      writes,
    );
  };
  if (options.duties ?? true) takeDuties();
  const stop = () => {
    stopping ??= (async () => {
      // Held change reads answer (long polls) or end (streams) now, not at the end of the grace period.
      closing.abort();
      await heartbeats.stop();
      await duties?.stop();
      await listeners
        .close()
        .catch((error: unknown) => logger.error('closing the HTTP server failed', { error }));
      await audit.close();
      await unregister(runtime, logger);
      await runtime.close();
    })();
    return stopping;
  };
  return {
    url: listeners.http.url,
    redirectUrl: listeners.http.redirectUrl,
    metricsUrl: listeners.metrics && `${listeners.metrics.url}/metrics`,
    runtime,
    takeDuties,
    stop,
  };
}

/** The API listener (with its redirect listener) and the metrics listener, bound before anything else. */
async function bindListeners(options: StartServerOptions, metrics: ServerMetrics | undefined) {
  const { config, logger } = options;
  const gate = startingGate({ secure: options.tls !== undefined });
  const http: RunningHttpServer = await startHttpServer({
    app: gate.listener,
    host: config.host,
    port: config.port,
    ...(options.tls && { tls: { cert: options.tls.cert, key: options.tls.key } }),
    ...(config.httpRedirectPort !== null && { redirectPort: config.httpRedirectPort }),
    logger,
    shutdownGraceMs: options.shutdownGraceMs ?? SHUTDOWN_GRACE_MS,
  });
  let metricsListener: RunningMetricsListener | undefined;
  if (config.metrics && metrics && options.metricsVia === 'cluster-primary')
    answerPrimaryWith(metrics.registry);
  else if (config.metrics && metrics) {
    try {
      metricsListener = await startMetricsListener({ ...config.metrics, metrics, logger });
    } catch (error) {
      await http.close();
      throw error;
    }
  }
  return {
    gate,
    http,
    metrics: metricsListener,
    async close() {
      await Promise.all([http.close(), metricsListener?.close()]);
    },
  };
}

async function reconcile(
  runtime: Runtime,
  logger: Logger,
  metrics: ServerMetrics | undefined,
  always: boolean,
): Promise<void> {
  let report: Awaited<ReturnType<Runtime['store']['maintenance']['reconcile']>>;
  try {
    report = await runtime.store.maintenance.reconcile();
  } catch (error) {
    metrics?.observeReconciliation('failed');
    throw error;
  }
  metrics?.observeReconciliation(report);
  if (
    always ||
    report.intentsResolved > 0 ||
    report.deletionsCompleted > 0 ||
    report.trashItemsExpired > 0 ||
    report.failures > 0
  ) {
    logger.info('reconciliation finished', { ...report });
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
 * The duties one process of a store's deployment runs for all (of several workers on one port, only
 * one): periodic reconciliation (which also expires trash, audit and changes past retention), the
 * webhook deliverer and the scheduled backups (extensions §16). Extensions §7: pending deliveries resume
 * at once (the engine sweeps at start).
 */
function startDuties(
  runtime: Runtime,
  logger: Logger,
  metrics: ServerMetrics | undefined,
  reconcileMs: number,
  backupClock: ScheduleClock | undefined,
  writes: WriteActivity,
): { stop(): Promise<void> } {
  const timers = startPeriodic(logger, [
    { task: 'reconciliation', everyMs: reconcileMs, work: () => reconcile(runtime, logger, metrics, false) },
  ]);
  const webhooks = startWebhookDelivery(runtime, logger, metrics);
  // Extensions §15: the semantic indexer, when embeddings are on (off the request path).
  const indexer = startSemanticIndexer(runtime, logger, writes);
  const backups = startBackups(runtime, logger, metrics, backupClock);
  return {
    async stop() {
      await timers.stop();
      await webhooks.stop();
      await indexer.stop();
      await backups?.stop();
    },
  };
}

/** Extensions §16: the server's own backups, when `MDSTORE_BACKUP_SCHEDULE` is set. */
function startBackups(
  runtime: Runtime,
  logger: Logger,
  metrics: ServerMetrics | undefined,
  clock: ScheduleClock | undefined,
): { stop(): Promise<void> } | undefined {
  const { backup, database, blobStore } = runtime.config;
  if (backup.schedule === null || backup.to === null) return undefined;
  if (!runtime.archive) {
    logger.error('scheduled backups are off: this records store cannot be backed up');
    return undefined;
  }
  // Servers sharing the store each run the schedule; the claim of each slot in the store picks one.
  const slots = createScheduleSlots({
    records: runtime.container.resolve<RecordsRepository>(TOKENS.records),
    clock: clock ?? systemClock,
    owner: runtime.store.instanceId,
    task: 'backup',
    leaseMs: BACKUP_SLOT_LEASE_MS,
    maxAttempts: BACKUP_SLOT_ATTEMPTS,
    keepMs: BACKUP_SLOTS_KEPT_MS,
  });
  return startScheduledBackups({
    slots,
    schedule: backup.schedule,
    to: backup.to,
    keep: backup.keep,
    s3: backupS3Options(backup.s3),
    source: {
      archive: runtime.archive,
      blobs: runtime.container.resolve<BlobStore>(TOKENS.blobs),
      pair: { database: database.kind, blob_store: blobStore.kind },
    },
    logger,
    ...(metrics && { observer: metrics }),
    ...(clock && { clock }),
  });
}

/**
 * Periodic tasks on unref'd timers; failures are logged and retried at the next tick. A run never
 * overlaps the previous one of its kind, and `stop` waits for the runs in progress so that the stores
 * are not closed under them.
 */
function startPeriodic(
  logger: Logger,
  tasks: ReadonlyArray<{ task: string; everyMs: number; work: () => Promise<void> }>,
): { stop(): Promise<void> } {
  const running = new Set<Promise<void>>();
  const timers = tasks.map(({ task, everyMs, work }) => {
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
    }, everyMs);
    timer.unref();
    return timer;
  });
  return {
    async stop() {
      for (const timer of timers) clearInterval(timer);
      await Promise.allSettled([...running]);
    },
  };
}
