import { AttachmentPathTakenError, isRecordConflict, TrashItemNotFoundError } from '../../errors.js';
import type { ProjectRecord } from '../../model/records.js';
import { type AttachmentView, emitAttachmentEvent, toAttachmentView } from '../attachments/shared.js';
import type { Principal } from '../authentication.js';
import { type MdStoreContext, notBefore } from '../context.js';
import { lockActiveProject, withCounterChange } from '../files/shared.js';
import { attachmentOfItem, isAttachmentItem } from './attachments.js';
import { isLive } from './held.js';

/**
 * Puts an attachment's trash item back (extensions §12): the same attachment (id, bytes, content type)
 * at its old path or `to`, with the next revision, in one transaction that claims the item; its bytes
 * move from `trashSizeBytes` back to `attachmentBytes`, and `attachment.created` is written. A taken
 * path is `409`; an unknown or expired item `404`.
 */
export async function restoreAttachmentItem(
  ctx: MdStoreContext,
  input: { principal: Principal; project: ProjectRecord; trashId: string; to: string | null },
): Promise<AttachmentView> {
  const attachment = await ctx.records.withTransaction(async (tx) => {
    const locked = await lockActiveProject(tx, input.principal, input.project.id);
    const at = ctx.clock.now();
    const found = await tx.findTrashItem({ projectId: locked.id, trashId: input.trashId });
    if (!isLive(found, ctx, at) || !isAttachmentItem(found)) throw new TrashItemNotFoundError();
    const path = input.to ?? found.file.filename;
    if (await tx.findAttachment({ projectId: locked.id, path })) throw new AttachmentPathTakenError(path);
    const item = await tx.deleteTrashItem({ projectId: locked.id, trashId: found.id });
    if (!item || !isAttachmentItem(item)) throw new TrashItemNotFoundError();
    const restored = attachmentOfItem(item, {
      path,
      revision: item.file.revision + 1,
      updatedAt: notBefore(at, item.file.updatedAt),
    });
    // The path was free under the project lock; a unique-rule conflict still reads as the 409 it is.
    await tx.insertAttachment({ attachment: restored }).catch((error: unknown) => {
      if (isRecordConflict(error, 'attachment_path')) throw new AttachmentPathTakenError(path);
      throw error;
    });
    const size = restored.sizeBytes;
    const change = { attachments: 1, attachmentBytes: size, trashBytes: -size };
    await tx.updateProject({ project: withCounterChange(ctx, locked, change, at) });
    await emitAttachmentEvent(ctx, tx, {
      project: locked,
      type: 'attachment.created',
      path,
      attachment: restored,
    });
    return restored;
  });
  return toAttachmentView(attachment);
}
