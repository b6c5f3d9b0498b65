import type { AttachmentRecord, BlobIntentRecord, ProjectRecord } from '../../model/records.js';
import type { RecordsTransaction } from '../../ports/records.js';
import { doomResource } from '../blob-intents.js';
import type { MdStoreContext } from '../context.js';
import type { CounterChange } from '../files/shared.js';
import { moveAttachmentToTrash } from '../trash/attachments.js';

/**
 * An attachment's removal (a delete, a changeset's `detach`), inside a transaction under the project
 * lock: its record goes; with the project's `trashRetentionDays` above 0 it goes to the trash (its blob
 * held by the item), else its blob is noted doomed when no other record points to it. Returns how the
 * counters move and the doomed blobs (removed after the commit). The caller writes the event.
 */
export async function removeAttachmentStep(
  ctx: MdStoreContext,
  tx: RecordsTransaction,
  o: { project: ProjectRecord; attachment: AttachmentRecord; at: number },
): Promise<{ change: CounterChange; doomed: BlobIntentRecord[] }> {
  const { project, attachment } = o;
  await tx.deleteAttachment({ attachmentId: attachment.id });
  if (project.trashRetentionDays > 0) {
    return { change: await moveAttachmentToTrash(ctx, tx, o), doomed: [] };
  }
  const resource = { bucket: project.bucketName, key: attachment.blobKey };
  const doomed = (await tx.isBlobReferenced(resource)) ? [] : [await doomResource(ctx, tx, resource)];
  return { change: { attachments: -1, attachmentBytes: -attachment.sizeBytes }, doomed };
}
