import { DAY_MS } from '../../defaults/trash.js';
import type {
  AttachmentRecord,
  BlobIntentRecord,
  FileRecord,
  ProjectRecord,
  TrashRecord,
} from '../../model/records.js';
import type { RecordsTransaction } from '../../ports/records.js';
import { doomResource } from '../blob-intents.js';
import type { MdStoreContext } from '../context.js';
import type { CounterChange } from '../files/shared.js';

/** A trash item that holds a deleted attachment (extensions §12). */
export type AttachmentTrashRecord = TrashRecord & { readonly attachment: { readonly contentType: string } };

export const isAttachmentItem = (item: TrashRecord): item is AttachmentTrashRecord =>
  item.attachment !== undefined;

/**
 * The file fields an attachment's trash item carries: its id, path, size, sha256, blob key and revision;
 * never inline, no metadata.
 */
const asTrashedFile = (a: AttachmentRecord): FileRecord => ({
  id: a.id,
  projectId: a.projectId,
  filename: a.path,
  sizeBytes: a.sizeBytes,
  sha256: a.sha256,
  metadataJson: null,
  frontmatterJson: null,
  contentKey: a.blobKey,
  inline: false,
  revision: a.revision,
  createdAt: a.createdAt,
  updatedAt: a.updatedAt,
});

/** The attachment an item holds, back at `path` (its own or another), as of `revision`/`updatedAt`. */
export const attachmentOfItem = (
  item: AttachmentTrashRecord,
  o: { path: string; revision: number; updatedAt: number },
): AttachmentRecord => ({
  id: item.file.id,
  projectId: item.projectId,
  path: o.path,
  sizeBytes: item.file.sizeBytes,
  contentType: item.attachment.contentType,
  sha256: item.file.sha256,
  blobKey: item.file.contentKey,
  revision: o.revision,
  createdAt: item.file.createdAt,
  updatedAt: o.updatedAt,
});

/**
 * Inside the delete's transaction (the attachment record already removed): the attachment goes into the
 * trash, its blob left where it is (the item references it), its path free again. `expiresAt` as for files.
 * Returns how the counters move: its bytes go from the attachments' to the trash's.
 */
export async function moveAttachmentToTrash(
  ctx: MdStoreContext,
  tx: RecordsTransaction,
  o: { project: ProjectRecord; attachment: AttachmentRecord; at: number },
): Promise<CounterChange> {
  const { attachment, project, at } = o;
  await tx.insertTrashItem({
    item: {
      id: ctx.ids.uuid(),
      projectId: project.id,
      file: asTrashedFile(attachment),
      attachment: { contentType: attachment.contentType },
      deletedAt: at,
      expiresAt: at + project.trashRetentionDays * DAY_MS,
    },
  });
  const size = attachment.sizeBytes;
  return { attachments: -1, attachmentBytes: -size, trashBytes: size };
}

/**
 * Inside a transaction that has claimed an attachment's item: its blob is doomed unless another record
 * (a twin attachment, another item) still references it.
 */
export async function purgeClaimedAttachment(
  ctx: MdStoreContext,
  tx: RecordsTransaction,
  project: ProjectRecord,
  item: AttachmentTrashRecord,
): Promise<{ freedBytes: number; doomed: BlobIntentRecord[] }> {
  const resource = { bucket: project.bucketName, key: item.file.contentKey };
  const doomed = (await tx.isBlobReferenced(resource)) ? [] : [await doomResource(ctx, tx, resource)];
  return { freedBytes: item.file.sizeBytes, doomed };
}
