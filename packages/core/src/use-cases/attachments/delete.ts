import type { BlobIntentRecord } from '../../model/records.js';
import type { Principal } from '../authentication.js';
import { doomResource, removeDoomed } from '../blob-intents.js';
import type { MdStoreContext } from '../context.js';
import { conditionsOf, type RequestConditions } from '../files/conditions.js';
import { type CounterChange, lockActiveProject, withCounterChange } from '../files/shared.js';
import { moveAttachmentToTrash } from '../trash/attachments.js';
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
    await tx.deleteAttachment({ attachmentId: current.id });
    const at = ctx.clock.now();
    const intents: BlobIntentRecord[] = [];
    let change: CounterChange;
    if (locked.trashRetentionDays > 0) {
      change = await moveAttachmentToTrash(ctx, tx, { project: locked, attachment: current, at });
    } else {
      const resource = { bucket: locked.bucketName, key: current.blobKey };
      if (!(await tx.isBlobReferenced(resource))) intents.push(await doomResource(ctx, tx, resource));
      change = { attachments: -1, attachmentBytes: -current.sizeBytes };
    }
    await tx.updateProject({ project: withCounterChange(ctx, locked, change, at) });
    await emitAttachmentEvent(ctx, tx, {
      project: locked,
      type: 'attachment.deleted',
      path: input.path,
      attachment: null,
    });
    return intents;
  });
  for (const intent of doomed) await removeDoomed(ctx, intent);
}
