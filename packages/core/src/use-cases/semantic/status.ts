import { SEMANTIC_LIMITS } from '../../semantic/limits.js';
import { loadOwnedProject } from '../access.js';
import type { Principal } from '../authentication.js';
import type { MdStoreContext } from '../context.js';

/** `GET /api/projects/{id}/search/status` (extensions §15). */
export interface SearchStatus {
  /** Whether embeddings are on, and their model (null when off). */
  readonly enabled: boolean;
  readonly model: string | null;
  /** Files of the project with chunks of the model. */
  readonly embedded: number;
  /**
   * File changes of the project the indexer has not handled yet (counted up to `statusMaxPending`); before
   * the indexer's first pass over the account (or after a change of model), the project's file count.
   */
  readonly pending: number;
  /** How long the oldest of those changes has waited (0 when none). */
  readonly lagMs: number;
}

/**
 * Where the semantic indexer stands for one project: read from the store (its cursor, the feed, the
 * chunks), so every instance answers alike. Costs one cursor read, one count and one feed page.
 */
export async function searchStatus(
  ctx: MdStoreContext,
  input: { principal: Principal; projectId: string },
): Promise<SearchStatus> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const embedder = ctx.embedder;
  if (embedder === undefined) return { enabled: false, model: null, embedded: 0, pending: 0, lagMs: 0 };
  const max = SEMANTIC_LIMITS.statusMaxPending;
  const cursor = await ctx.records.findEmbeddingCursor({ accountId: project.accountId });
  const embedded = await ctx.records.countEmbeddedFiles({ projectId: project.id, model: embedder.model });
  const current = cursor !== null && cursor.model === embedder.model;
  const feed = await ctx.records.listChangeEvents({
    accountId: project.accountId,
    afterSeq: current ? cursor.seq : 0,
    limit: max,
    projectIds: [project.id],
  });
  // File changes only: project and draft events change no chunk.
  const events = feed.filter((event) => event.type.startsWith('file.'));
  const oldest = events[0]?.at;
  const now = ctx.clock.now();
  return {
    enabled: true,
    model: embedder.model,
    embedded,
    pending: current ? events.length : Math.min(max, Math.max(events.length, project.fileCount)),
    lagMs: oldest === undefined ? 0 : Math.max(0, now - oldest),
  };
}
