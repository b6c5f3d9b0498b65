import type { BlobIntentRecord, ProjectRecord, TrashRecord } from '../../model/records.js';
import type { RecordsTransaction } from '../../ports/records.js';
import type { MdStoreContext } from '../context.js';
import { applyPlan, planRemoval } from '../files/revisions.js';
import { isAttachmentItem, purgeClaimedAttachment } from './attachments.js';
import { heldBytes } from './held.js';

export interface Purged {
  /** Bytes no longer held by the trash. */
  readonly freedBytes: number;
  /** Blob versions to remove once the transaction has committed. */
  readonly doomed: BlobIntentRecord[];
}

/**
 * Inside a transaction that has claimed `item` (deleted its trash row): its revisions and inline
 * contents go at once, its blob versions are noted as doomed for after the commit (an attachment's blob
 * only when nothing else references it). The caller moves the
 * project's `trashSizeBytes` by `freedBytes`.
 */
export async function purgeClaimed(
  ctx: MdStoreContext,
  tx: RecordsTransaction,
  project: ProjectRecord,
  item: TrashRecord,
): Promise<Purged> {
  if (isAttachmentItem(item)) return purgeClaimedAttachment(ctx, tx, project, item);
  const revisions = await tx.listRevisionContents({ fileId: item.file.id });
  const doomed = await applyPlan(ctx, tx, { fileId: item.file.id, project }, planRemoval(revisions));
  return { freedBytes: heldBytes(item.file, revisions), doomed };
}
