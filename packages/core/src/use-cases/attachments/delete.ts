import type { BlobIntentRecord } from '../../model/records.js';
import type { Principal } from '../authentication.js';
import { doomResource, removeDoomed } from '../blob-intents.js';
import type { MdStoreContext } from '../context.js';
import { conditionsOf, type RequestConditions } from '../files/conditions.js';
import { lockActiveProject, withCounterChange } from '../files/shared.js';
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
 * moves the counters, writes the event and, when no other attachment has the same bytes, dooms the blob,
 * removed after the commit. Attachments do not go to the trash yet (docs/api.md): the delete is final.
 */
export async function deleteAttachment(ctx: MdStoreContext, input: DeleteAttachmentInput): Promise<void> {
  const project = await loadAttachmentProject(ctx.records, input);
  const conditions = conditionsOf(input.conditions);
  const doomed = await ctx.records.withTransaction(async (tx) => {
    const locked = await lockActiveProject(tx, input.principal, project.id);
    const current = await findAttachmentOr404(tx, locked.id, input.path);
    checkAttachmentWrite(locked, current, conditions);
    await tx.deleteAttachment({ attachmentId: current.id });
    const bucket = locked.bucketName;
    const intents: BlobIntentRecord[] = [];
    if (!(await tx.isBlobReferenced({ bucket, key: current.blobKey }))) {
      intents.push(await doomResource(ctx, tx, { bucket, key: current.blobKey }));
    }
    const at = ctx.clock.now();
    const change = { attachments: -1, attachmentBytes: -current.sizeBytes };
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
