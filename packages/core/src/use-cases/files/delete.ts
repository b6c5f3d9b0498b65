import { loadOwnedProject } from '../access.js';
import type { Principal } from '../authentication.js';
import { removeDoomed } from '../blob-intents.js';
import type { MdStoreContext } from '../context.js';
import { checkWriteConditions, type RequestConditions } from './conditions.js';
import { applyPlan, planRemoval } from './revisions.js';
import { findFileOr404, lockActiveProject, withCounterChange } from './shared.js';

export interface DeleteFileInput {
  readonly principal: Principal;
  readonly projectId: string;
  readonly filename: string;
  readonly conditions?: RequestConditions;
}

/**
 * Removes the record, its revisions and their inline contents, and moves the counters, in one
 * transaction; then the blob versions it held.
 */
export async function deleteFile(ctx: MdStoreContext, input: DeleteFileInput): Promise<void> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const doomed = await ctx.records.withTransaction(async (tx) => {
    const locked = await lockActiveProject(tx, input.principal, project.id);
    const file = await findFileOr404(tx, locked.id, input.filename);
    checkWriteConditions(locked, file, input.conditions);
    const plan = planRemoval(await tx.listRevisionContents({ fileId: file.id }));
    await tx.deleteFile({ fileId: file.id });
    const intents = await applyPlan(ctx, tx, { fileId: file.id, project: locked }, plan);
    const change = { files: -1, bytes: -file.sizeBytes, historyBytes: plan.historyDelta };
    await tx.updateProject({ project: withCounterChange(ctx, locked, change, ctx.clock.now()) });
    return intents;
  });
  for (const intent of doomed) await removeDoomed(ctx, intent);
}
