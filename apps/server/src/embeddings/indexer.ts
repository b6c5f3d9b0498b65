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
import type { WriteActivity } from '../http/write-activity.js';
import type { Logger } from '../logger.js';

/** How often the indexer looks for work besides the notifier's hints (other instances, expired leases). */
export const INDEXER_SWEEP_MS = 2_000;
/** How long the indexer waits, before each file, for the writes being served to end (then it goes on). */
export const INDEXER_GIVE_WAY_MS = 250;

/**
 * Starts this instance's semantic indexer (extensions §15) when embeddings are on: it follows the
 * change feed of every account under per-account leases in the store (instances sharing it never work
 * one account at once), woken by the change notifier and a sweep, giving way to the writes this process
 * serves (`writes`). Nothing when embeddings are off.
 */
export function startSemanticIndexer(
  runtime: Runtime,
  logger: Logger,
  writes?: WriteActivity,
): { stop(): Promise<void> } {
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
    // Writes first: before each file, the writes this process is serving end (or 250 ms pass).
    ...(writes && { giveWay: () => writes.quiet(INDEXER_GIVE_WAY_MS) }),
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
