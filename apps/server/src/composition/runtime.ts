import {
  type BlobStore,
  createMdStore,
  type InstanceProbe,
  type MdStore,
  type MdStoreEvents,
  type RateLimiter,
  type RecordsRepository,
} from '@mdstore/core';
import { type DependencyContainer, instanceCachingFactory, container as rootContainer } from 'tsyringe';
import type { ServerConfig } from '../config/index.js';
import { createInstanceProbe } from '../instance-probe.js';
import type { Logger } from '../logger.js';
import type { ServerMetrics } from '../metrics/metrics.js';
import { instrumentRecords } from '../metrics/records.js';
import { type AdapterModules, defaultAdapterModules, openBlobStore, openDatabase } from './adapters.js';
import { cursorKeyOf, nodeCryptoHashing, nodeCryptoSecrets } from './secrets.js';
import { TOKENS } from './tokens.js';

export interface Runtime {
  readonly store: MdStore;
  readonly config: ServerConfig;
  /** The container the runtime was built in (for the HTTP layer or tests to resolve from). */
  readonly container: DependencyContainer;
  /** Closes every adapter, in the reverse order of opening. Idempotent. */
  close(): Promise<void>;
}

export interface RuntimeOptions {
  readonly logger: Logger;
  /** Replaces how adapter packages are loaded (tests). */
  readonly adapterModules?: AdapterModules;
  /** Replaces the instance probe (tests). */
  readonly probe?: InstanceProbe;
  /** When given, every records transaction is timed into it. */
  readonly metrics?: Pick<ServerMetrics, 'observeTransaction'>;
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
    container.register(TOKENS.probe, { useValue: options.probe ?? createInstanceProbe() });
    container.register(TOKENS.events, {
      useFactory: instanceCachingFactory((c) => loggingEvents(c.resolve<Logger>(TOKENS.logger))),
    });

    const database = await openDatabase(config.database, modules);
    closers.push(() => database.close());
    const records = options.metrics ? instrumentRecords(database.records, options.metrics) : database.records;
    container.register(TOKENS.records, { useValue: records });
    container.register(TOKENS.rateLimiter, { useValue: database.rateLimiter });

    const blobs = await openBlobStore(config.blobStore, modules);
    closers.push(() => blobs.close());
    container.register(TOKENS.blobs, { useValue: blobs });

    container.register(TOKENS.store, { useFactory: instanceCachingFactory(buildStore) });
    const store = container.resolve<MdStore>(TOKENS.store);
    return { store, config, container, close: closeAll };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

function buildStore(c: DependencyContainer): MdStore {
  const config = c.resolve<ServerConfig>(TOKENS.config);
  return createMdStore({
    records: c.resolve<RecordsRepository>(TOKENS.records),
    rateLimiter: c.resolve<RateLimiter>(TOKENS.rateLimiter),
    blobs: c.resolve<BlobStore>(TOKENS.blobs),
    probe: c.resolve<InstanceProbe>(TOKENS.probe),
    events: c.resolve<MdStoreEvents>(TOKENS.events),
    secrets: nodeCryptoSecrets,
    hashing: nodeCryptoHashing,
    ...withCursorKey(cursorKeyOf(config.cursorSecret)),
    settings: {
      maxFileBytes: config.maxFileBytes,
      inlineMaxBytes: config.inlineMaxBytes,
      auditRetentionDays: config.auditRetentionDays,
      maxProjectBytes: config.maxProjectBytes,
      rateLimits: config.rateLimits,
      bucketPrefix: config.bucketPrefix,
    },
  });
}

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
