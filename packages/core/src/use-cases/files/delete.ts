import { FileReferencedError } from '../../errors.js';
import { parseBooleanQuery } from '../../validation/query.js';
import { loadOwnedProject } from '../access.js';
import type { Principal } from '../authentication.js';
import { removeDoomed } from '../blob-intents.js';
import type { MdStoreContext } from '../context.js';
import { referrersOf } from '../links/read.js';
import { checkWriteConditions, conditionsOf, type RequestConditions } from './conditions.js';
import { findFileOr404, lockActiveProject, withCounterChange } from './shared.js';
import { deleteFileStep } from './steps.js';

export interface DeleteFileInput {
  readonly principal: Principal;
  readonly projectId: string;
  readonly filename: string;
  readonly conditions?: RequestConditions;
  /**
   * `?if_unreferenced=` as sent (extensions §9): `true` refuses to delete a file other files link to
   * (409 `FILE_REFERENCED` with their names), judged in the delete's transaction.
   */
  readonly ifUnreferenced?: string;
}

/**
 * Removes the record and moves the counters in one transaction. With the project's
 * `trashRetentionDays` above 0 the file goes to the trash (extensions §5) in that transaction and
 * nothing else is removed; with 0 its revisions and their inline contents go too, and after the commit
 * the blob versions it held.
 */
export async function deleteFile(ctx: MdStoreContext, input: DeleteFileInput): Promise<void> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId, input.filename);
  const conditions = conditionsOf(input.conditions);
  const ifUnreferenced = parseBooleanQuery(input.ifUnreferenced, 'if_unreferenced');
  const doomed = await ctx.records.withTransaction(async (tx) => {
    const locked = await lockActiveProject(tx, input.principal, project.id);
    const file = await findFileOr404(tx, locked.id, input.filename);
    checkWriteConditions(locked, file, conditions);
    if (ifUnreferenced) {
      const referencedBy = await referrersOf(tx, file);
      if (referencedBy.length > 0) throw new FileReferencedError(referencedBy);
    }
    const at = ctx.clock.now();
    const step = await deleteFileStep(ctx, tx, { project: locked, file, at });
    await tx.updateProject({ project: withCounterChange(ctx, locked, step.counters, at) });
    return step.doomed;
  });
  for (const intent of doomed) await removeDoomed(ctx, intent);
}
