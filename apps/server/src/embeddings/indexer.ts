import {
  type ChangeNotifier,
  createSemanticIndexer,
  type Embedder,
  type RecordsRepository,
  runSemanticIndexer,
  systemClock,
} from '@mdstore/core';
import { loggingEvents, type Runtime } from '../composition/runtime.js';
import { TOKENS } from '../composition/tokens.js';
import type { Logger } from '../logger.js';

/** How often the indexer looks for work besides the notifier's hints (other instances, expired leases). */
export const INDEXER_SWEEP_MS = 2_000;

/**
 * Starts this instance's semantic indexer (extensions §15) when embeddings are on: it follows the
 * change feed of every account under per-account leases in the store (instances sharing it never work
 * one account at once), woken by the change notifier and a sweep. Nothing when embeddings are off.
 */
export function startSemanticIndexer(runtime: Runtime, logger: Logger): { stop(): Promise<void> } {
  const c = runtime.container;
  const embedder = c.resolve<Embedder | null>(TOKENS.embedder);
  if (embedder === null) return { stop: async () => {} };
  const events = loggingEvents(logger);
  const indexer = createSemanticIndexer({
    records: c.resolve<RecordsRepository>(TOKENS.records),
    embedder,
    clock: systemClock,
    owner: runtime.store.instanceId,
    events,
  });
  return runSemanticIndexer(indexer, {
    notifier: c.resolve<ChangeNotifier>(TOKENS.changeNotifier),
    intervalMs: INDEXER_SWEEP_MS,
    events,
    timers: {
      set: (run, ms) => {
        const handle = setTimeout(run, ms);
        handle.unref();
        return handle;
      },
      clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
    },
  });
}
