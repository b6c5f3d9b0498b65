import { loadOwnedProject } from '../access.js';
import type { Principal } from '../authentication.js';
import { removeDoomed } from '../blob-intents.js';
import { emitFileEvent } from '../changes/emit.js';
import type { MdStoreContext } from '../context.js';
import { moveToTrash } from '../trash/move-to-trash.js';
import { checkWriteConditions, conditionsOf, type RequestConditions } from './conditions.js';
import { applyPlan, planRemoval } from './revisions.js';
import { findFileOr404, lockActiveProject, withCounterChange } from './shared.js';

export interface DeleteFileInput {
  readonly principal: Principal;
  readonly projectId: string;
  readonly filename: string;
  readonly conditions?: RequestConditions;
}

/**
 * Removes the record and moves the counters in one transaction. With the project's
 * `trashRetentionDays` above 0 the file goes to the trash (extensions §5) in that transaction and
 * nothing else is removed; with 0 its revisions and their inline contents go too, and after the commit
 * the blob versions it held.
 */
export async function deleteFile(ctx: MdStoreContext, input: DeleteFileInput): Promise<void> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const conditions = conditionsOf(input.conditions);
  const doomed = await ctx.records.withTransaction(async (tx) => {
    const locked = await lockActiveProject(tx, input.principal, project.id);
    const file = await findFileOr404(tx, locked.id, input.filename);
    checkWriteConditions(locked, file, conditions);
    const revisions = await tx.listRevisionContents({ fileId: file.id });
    await tx.deleteFile({ fileId: file.id });
    await emitFileEvent(ctx, tx, {
      project: locked,
      type: 'file.deleted',
      filename: file.filename,
      file: null,
    });
    const at = ctx.clock.now();
    if (locked.trashRetentionDays > 0) {
      const change = await moveToTrash(ctx, tx, { project: locked, file, revisions, at });
      await tx.updateProject({ project: withCounterChange(ctx, locked, change, at) });
      return [];
    }
    const plan = planRemoval(revisions);
    const intents = await applyPlan(ctx, tx, { fileId: file.id, project: locked }, plan);
    const change = { files: -1, bytes: -file.sizeBytes, historyBytes: plan.historyDelta };
    await tx.updateProject({ project: withCounterChange(ctx, locked, change, at) });
    return intents;
  });
  for (const intent of doomed) await removeDoomed(ctx, intent);
}
