import type { Principal } from '../authentication.js';
import { removeDoomed } from '../blob-intents.js';
import type { MdStoreContext } from '../context.js';
import { conditionsOf, type RequestConditions } from '../files/conditions.js';
import { lockActiveProject, withCounterChange } from '../files/shared.js';
import { removeAttachmentStep } from './remove.js';
import {
  checkAttachmentWrite,
  emitAttachmentEvent,
  findAttachmentOr404,
  loadAttachmentProject,
} from './shared.js';

export interface DeleteAttachmentInput {
  readonly principal: Principal;
  readonly projectId: string;
  readonly path: string;
  readonly conditions?: RequestConditions;
}

/**
 * Delete an attachment (extensions §12): one transaction under the project lock removes the record,
 * moves the counters and writes the event. When the project keeps a trash the attachment goes there
 * (its blob stays, held by the item); otherwise the delete is final and, when no other record has the
 * same bytes, the blob is doomed, removed after the commit.
 */
export async function deleteAttachment(ctx: MdStoreContext, input: DeleteAttachmentInput): Promise<void> {
  const project = await loadAttachmentProject(ctx.records, input);
  const conditions = conditionsOf(input.conditions);
  const doomed = await ctx.records.withTransaction(async (tx) => {
    const locked = await lockActiveProject(tx, input.principal, project.id);
    const current = await findAttachmentOr404(tx, locked.id, input.path);
    checkAttachmentWrite(locked, current, conditions);
    const at = ctx.clock.now();
    const { change, doomed } = await removeAttachmentStep(ctx, tx, {
      project: locked,
      attachment: current,
      at,
    });
    await tx.updateProject({ project: withCounterChange(ctx, locked, change, at) });
    await emitAttachmentEvent(ctx, tx, {
      project: locked,
      type: 'attachment.deleted',
      path: input.path,
      attachment: null,
    });
    return doomed;
  });
  for (const intent of doomed) await removeDoomed(ctx, intent);
}
