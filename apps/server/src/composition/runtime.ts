// tsyringe needs the reflection polyfill when it loads; this module is the only one that imports it.
import 'reflect-metadata';
import type { RecordsArchive } from '@mdstore/core';
import {
  type BlobStore,
  type ContentWork,
  contentLinkIndexing,
  createMdStore,
  type Embedder,
  type InstanceProbe,
  inlineContentWork,
  type LinkIndexing,
  LocalChangeNotifier,
  type MdStore,
  type MdStoreEvents,
  noticingRecords,
  type RateLimiter,
  type RecordsRepository,
  StoreUnavailableError,
  type WebhookTransport,
} from '@mdstore/core';
import {
  type DependencyContainer,
  instancePerContainerCachingFactory,
  container as rootContainer,
} from 'tsyringe';
import type { ServerConfig } from '../config/index.js';
import { PiscinaContentWork } from '../content-work/pool.js';
import { embedderOf } from '../embeddings/index.js';
import { createInstanceProbe } from '../instance-probe.js';
import type { Logger } from '../logger.js';
import type { ServerMetrics } from '../metrics/metrics.js';
import { instrumentRecords } from '../metrics/records.js';
import { httpWebhookTransport } from '../webhooks/transport.js';
import { type AdapterModules, defaultAdapterModules, openBlobStore, openDatabase } from './adapters.js';
import { cursorKeyOf, keptCursorSecret, nodeCryptoHashing, nodeCryptoSecrets } from './secrets.js';
import { TOKENS } from './tokens.js';

export interface Runtime {
  readonly store: MdStore;
  readonly config: ServerConfig;
  /** The container the runtime was built in (for the HTTP layer or tests to resolve from); with
   * `override`, the child container holding the overrides. */
  readonly container: DependencyContainer;
  /** The records store's backup side (extensions §16), for the scheduled backups. */
  readonly archive?: RecordsArchive;
  /** Closes every adapter, in the reverse order of opening. Idempotent. */
  close(): Promise<void>;
}

export interface RuntimeOptions {
  readonly logger: Logger;
  /** Replaces how adapter packages are loaded (tests). */
  readonly adapterModules?: AdapterModules;
  /**
   * Registers replacements of some parts (a port wrapped with faults, another instance probe) in a
   * child container of the runtime's, before the store is built from it: tsyringe resolves every other
   * part from the runtime's own registrations. For tests.
   */
  readonly override?: (child: DependencyContainer) => void;
  /** When given, every records transaction is timed into it. */
  readonly metrics?: Pick<ServerMetrics, 'observeTransaction' | 'observeChangeEvents'>;
  /** Called once if the records store can no longer make commits durable (`DatabaseHooks`). */
  readonly onDurabilityLost?: (error: Error) => void;
}

/**
 * The composition root: opens the database and the blob store chosen by the configuration (loading only
 * their packages), and builds the store on them. If anything fails, whatever was opened is closed again
 * before the error is rethrown: nothing is left half-started.
 */
export async function createRuntime(config: ServerConfig, options: RuntimeOptions): Promise<Runtime> {
  const modules = options.adapterModules ?? defaultAdapterModules;
  const container = rootContainer.createChildContainer();
  const closers: Array<() => Promise<void>> = [];
  const closeAll = onceOnly(() => closeInReverse(closers, options.logger));
  try {
    container.register(TOKENS.config, { useValue: config });
    container.register(TOKENS.logger, { useValue: options.logger });
    container.register(TOKENS.probe, { useValue: createInstanceProbe() });
    // Per container: a child with overrides builds its own events and store from what it resolves.
    container.register(TOKENS.events, {
      useFactory: instancePerContainerCachingFactory((c) => loggingEvents(c.resolve<Logger>(TOKENS.logger))),
    });

    const database = await openDatabase(
      config.database,
      modules,
      options.onDurabilityLost ? { onDurabilityLost: options.onDurabilityLost } : {},
    );
    closers.push(() => database.close());
    // Extensions §16: a store an interrupted restore left is refused until the restore is run again.
    if (await database.archive?.unfinishedRestore()) {
      throw new StoreUnavailableError(
        'The store holds an unfinished restore: run `mdstore restore PATH` again before serving it',
      );
    }
    const records = options.metrics ? instrumentRecords(database.records, options.metrics) : database.records;
    container.register(TOKENS.records, { useValue: records });
    // Extensions §7: the records store is the change feed webhooks deliver from.
    container.register(TOKENS.changeFeed, { useValue: records });
    container.register(TOKENS.rateLimiter, { useValue: database.rateLimiter });
    // Extensions §3: without a configured secret, the one every instance of the store shares.
    const cursorSecret = config.cursorSecret ?? (await keptCursorSecret(database.records));
    container.register(TOKENS.cursorKey, { useValue: cursorKeyOf(cursorSecret) });
    // Extensions §7: commits of this process wake its held reads; Postgres's notices those of the others.
    const changeNotifier = new LocalChangeNotifier();
    container.register(TOKENS.changeNotifier, { useValue: changeNotifier });
    container.register(TOKENS.metrics, { useValue: options.metrics ?? NO_METRICS });
    if (database.changeNotices) {
      const unsubscribe = database.changeNotices.subscribe((accountId) => changeNotifier.publish(accountId));
      closers.push(async () => unsubscribe());
    }

    const blobs = await openBlobStore(config.blobStore, modules);
    closers.push(() => blobs.close());
    container.register(TOKENS.blobs, { useValue: blobs });

    container.register(TOKENS.contentWork, { useValue: openContentWork(config, options.logger, closers) });
    container.register(TOKENS.linkIndexing, { useValue: contentLinkIndexing });
    container.register(TOKENS.webhookTransport, {
      useValue: httpWebhookTransport({ allowPrivate: config.webhookAllowPrivate }),
    });

    // A factory: tsyringe takes a `useValue` of null for no registration at all.
    const embedder = embedderOf(config.embeddings, closers) ?? null;
    container.register(TOKENS.embedder, { useFactory: () => embedder });

    container.register(TOKENS.store, { useFactory: instancePerContainerCachingFactory(buildStore) });
    const scope = options.override ? withOverrides(container, options.override) : container;
    const store = scope.resolve<MdStore>(TOKENS.store);
    return {
      store,
      config,
      container: scope,
      ...(database.archive && { archive: database.archive }),
      close: closeAll,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

function withOverrides(
  container: DependencyContainer,
  override: (child: DependencyContainer) => void,
): DependencyContainer {
  const child = container.createChildContainer();
  override(child);
  return child;
}

const withEmbedder = (embedder: Embedder | null) => (embedder ? { embedder } : {});

function buildStore(c: DependencyContainer): MdStore {
  const config = c.resolve<ServerConfig>(TOKENS.config);
  const notifier = c.resolve<LocalChangeNotifier>(TOKENS.changeNotifier);
  const metrics = c.resolve<Pick<ServerMetrics, 'observeChangeEvents'>>(TOKENS.metrics);
  return createMdStore({
    records: noticingRecords(c.resolve<RecordsRepository>(TOKENS.records), (accountId, events) => {
      notifier.publish(accountId);
      metrics.observeChangeEvents(events);
    }),
    rateLimiter: c.resolve<RateLimiter>(TOKENS.rateLimiter),
    blobs: c.resolve<BlobStore>(TOKENS.blobs),
    probe: c.resolve<InstanceProbe>(TOKENS.probe),
    events: c.resolve<MdStoreEvents>(TOKENS.events),
    contentWork: c.resolve<ContentWork>(TOKENS.contentWork),
    linkIndexing: c.resolve<LinkIndexing>(TOKENS.linkIndexing),
    webhookTransport: c.resolve<WebhookTransport>(TOKENS.webhookTransport),
    ...withEmbedder(c.resolve<Embedder | null>(TOKENS.embedder)),
    secrets: nodeCryptoSecrets,
    hashing: nodeCryptoHashing,
    ...withCursorKey(c.resolve<Uint8Array | undefined>(TOKENS.cursorKey)),
    settings: {
      maxFileBytes: config.maxFileBytes,
      maxAttachmentBytes: config.maxAttachmentBytes,
      inlineMaxBytes: config.inlineMaxBytes,
      auditRetentionDays: config.auditRetentionDays,
      changesRetentionDays: config.changes.retentionDays,
      shareRateLimit: config.shareRateLimit,
      maxProjectBytes: config.maxProjectBytes,
      maxImportBytes: config.maxImportBytes,
      rateLimits: config.rateLimits,
      bucketPrefix: config.bucketPrefix,
      contentBudgetBytes: config.contentBudgetBytes,
      // A request waits for room in the budget as long as a pooled step may run: the pool's deadline.
      contentBudgetWaitMs: config.contentWork.deadlineMs,
    },
  });
}

/**
 * The worker pool of parses too costly for this thread (content-work/pool.ts), closed with the
 * adapters; with `MDSTORE_CONTENT_WORK_THREADS=0`, the core's inline default (one step's bound).
 */
function openContentWork(
  config: ServerConfig,
  logger: Logger,
  closers: Array<() => Promise<void>>,
): ContentWork {
  if (config.contentWork.threads === 0) return inlineContentWork;
  const pool = new PiscinaContentWork(config.contentWork, (error) =>
    logger.error('a content work thread failed', { error }),
  );
  closers.push(() => pool.close());
  return pool;
}

/** What a runtime without a metrics listener tells: nothing. */
const NO_METRICS: Pick<ServerMetrics, 'observeTransaction' | 'observeChangeEvents'> = {
  observeTransaction: () => {},
  observeChangeEvents: () => {},
};

const withCursorKey = (cursorKey: Uint8Array | undefined) => (cursorKey ? { cursorKey } : {});

/** The core's warnings (a clean-up that will be retried, …) become log lines. */
export const loggingEvents = (logger: Logger): MdStoreEvents => ({
  warn: (message, details) => logger.warn(message, details),
});

async function closeInReverse(closers: Array<() => Promise<void>>, logger: Logger): Promise<void> {
  for (const close of [...closers].reverse()) {
    try {
      await close();
    } catch (error) {
      logger.error('closing an adapter failed', { error });
    }
  }
}

function onceOnly(work: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => {
    running ??= work();
    return running;
  };
}
