import { TrashItemNotFoundError } from '../../errors.js';
import { loadOwnedProject } from '../access.js';
import type { Principal } from '../authentication.js';
import { removeDoomed } from '../blob-intents.js';
import type { MdStoreContext } from '../context.js';
import { lockActiveProject, withCounterChange } from '../files/shared.js';
import { isLive } from './held.js';
import { purgeClaimed } from './purge.js';

/**
 * Removes a trash item for good: claimed, its revisions and inline contents deleted and the project's
 * `trashSizeBytes` lowered in one transaction; its blob versions after the commit. An expired item is
 * already gone for the caller (`404`); the reconciler purges it.
 */
export async function deleteTrashItem(
  ctx: MdStoreContext,
  input: { principal: Principal; projectId: string; trashId: string },
): Promise<void> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const doomed = await ctx.records.withTransaction(async (tx) => {
    const locked = await lockActiveProject(tx, input.principal, project.id);
    const at = ctx.clock.now();
    const found = await tx.findTrashItem({ projectId: locked.id, trashId: input.trashId });
    if (!isLive(found, ctx, at)) throw new TrashItemNotFoundError();
    const item = await tx.deleteTrashItem({ projectId: locked.id, trashId: found.id });
    if (!item) throw new TrashItemNotFoundError();
    const purged = await purgeClaimed(ctx, tx, locked, item);
    await tx.updateProject({
      project: withCounterChange(ctx, locked, { trashBytes: -purged.freedBytes }, at),
    });
    return purged.doomed;
  });
  for (const intent of doomed) await removeDoomed(ctx, intent);
}
