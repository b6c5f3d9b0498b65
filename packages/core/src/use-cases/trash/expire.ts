import { TRASH_LIMITS } from '../../defaults/trash.js';
import type { BlobIntentRecord, TrashRecord } from '../../model/records.js';
import { removeDoomed } from '../blob-intents.js';
import type { MdStoreContext } from '../context.js';
import { withCounterChange } from '../files/shared.js';
import { purgeClaimed } from './purge.js';

export interface ExpiryReport {
  /** Items purged by this call (those another instance claimed first are not counted). */
  readonly purged: number;
  /** Transactions that failed (their items stay for the next run). */
  readonly failures: number;
}

function byProject(items: readonly TrashRecord[]): Map<string, TrashRecord[]> {
  const groups = new Map<string, TrashRecord[]>();
  for (const item of items) groups.set(item.projectId, [...(groups.get(item.projectId) ?? []), item]);
  return groups;
}

/**
 * Purges the trash items whose `expiresAt` has passed, on any instance: per project, one transaction
 * locks the project and claims each item by deleting its row (`deleteTrashItem`), so an item another
 * instance claimed first is skipped and nothing is purged or counted twice; blob versions go after the
 * commit through the doomed-resource path. Stops at the first failed transaction (the next run retries).
 */
export async function expireTrash(ctx: MdStoreContext): Promise<ExpiryReport> {
  const now = ctx.clock.now();
  let purged = 0;
  for (;;) {
    const batch = await ctx.records.listExpiredTrash({ now, limit: TRASH_LIMITS.expiryBatch });
    let claimed = 0;
    for (const [projectId, items] of byProject(batch)) {
      let outcome: { claimed: number; doomed: BlobIntentRecord[] };
      try {
        outcome = await expireInProject(ctx, projectId, items, now);
      } catch {
        return { purged: purged + claimed, failures: 1 };
      }
      claimed += outcome.claimed;
      for (const intent of outcome.doomed) await removeDoomed(ctx, intent);
    }
    purged += claimed;
    // A short batch was the last; a batch of which nothing could be claimed (all taken by another
    // instance meanwhile) ends the run too, so two instances never spin on each other's items.
    if (batch.length < TRASH_LIMITS.expiryBatch || claimed === 0) return { purged, failures: 0 };
  }
}

async function expireInProject(
  ctx: MdStoreContext,
  projectId: string,
  items: readonly TrashRecord[],
  now: number,
): Promise<{ claimed: number; doomed: BlobIntentRecord[] }> {
  return ctx.records.withTransaction(async (tx) => {
    let claimed = 0;
    const doomed: BlobIntentRecord[] = [];
    const project = await tx.lockProject({ projectId });
    if (!project) return { claimed, doomed };
    let freed = 0;
    for (const candidate of items) {
      const item = await tx.deleteTrashItem({ projectId, trashId: candidate.id });
      if (!item) continue;
      const result = await purgeClaimed(ctx, tx, project, item);
      freed += result.freedBytes;
      doomed.push(...result.doomed);
      claimed++;
    }
    if (freed > 0) {
      const change = { trashBytes: -freed };
      await tx.updateProject({ project: withCounterChange(ctx, project, change, now, { touch: false }) });
    }
    return { claimed, doomed };
  });
}
