import { FilenameTakenError, isRecordConflict, TrashItemNotFoundError } from '../../errors.js';
import type { FileRecord } from '../../model/records.js';
import type { TrashRestoreInput } from '../../validation/bodies.js';
import { checkAttachmentPath } from '../../validation/schemas.js';
import { parseTrashRestoreBody } from '../../validation/trash.js';
import { loadOwnedProject } from '../access.js';
import type { AttachmentView } from '../attachments/shared.js';
import type { Principal } from '../authentication.js';
import { removeDoomed } from '../blob-intents.js';
import { type MdStoreContext, notBefore } from '../context.js';
import { type BodyOf, deferred } from '../deferred-body.js';
import { historyBytes, recordRevision } from '../files/revisions.js';
import { lockActiveProject, withCounterChange } from '../files/shared.js';
import { indexFileWrite, storedContentLinks } from '../links/index-step.js';
import { contentSearchFields } from '../search/content-fields.js';
import { type FileView, toFileView } from '../views.js';
import { isAttachmentItem } from './attachments.js';
import { heldBytes, isLive } from './held.js';
import { restoreAttachmentItem } from './restore-attachment.js';

/** What a restore puts back: a file, or an attachment (extensions §12) as `{ attachment }`. */
export type TrashRestored = FileView | { readonly attachment: AttachmentView };

/**
 * Puts a trash item back (extensions §5): the same file (id, content, metadata, history) under its old
 * name or `to`, with a new revision `change: "restore"`, in one transaction that claims the item. Its
 * bytes move from `trashSizeBytes` back to current and history (the storage cap is checked like any
 * write; a restore never adds bytes, it may free some when the new revision prunes the oldest). A taken
 * name is `409`; an unknown or expired item `404`. An attachment's item goes back through
 * `restoreAttachmentItem` (`to` then follows the attachment path rules).
 */
export async function restoreTrashItem(
  ctx: MdStoreContext,
  input: {
    principal: Principal;
    projectId: string;
    trashId: string;
    /** `{"to"?: "…"}`, absent, or (HTTP) a deferred body: read once the item is known to exist. */
    body?: BodyOf<TrashRestoreInput>;
  },
): Promise<TrashRestored> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const seen = await ctx.records.findTrashItem({ projectId: project.id, trashId: input.trashId });
  if (!isLive(seen, ctx)) throw new TrashItemNotFoundError();
  const body = deferred<unknown>(input.body);
  body.check();
  if (isAttachmentItem(seen)) {
    const { to } = parseTrashRestoreBody(await body.read(), checkAttachmentPath);
    const attachment = await restoreAttachmentItem(ctx, { ...input, project, to });
    return { attachment };
  }
  const { to } = parseTrashRestoreBody(await body.read());
  // The text to index the file with again, read before the transaction (no blob I/O inside it): the
  // item's content key never changes what it holds, and the transaction claims the very same item.
  const search = await contentSearchFields(ctx, project, seen.file);
  const links = await storedContentLinks(ctx, project, seen.file, to ?? seen.file.filename);
  const { file, doomed } = await ctx.records.withTransaction(async (tx) => {
    const locked = await lockActiveProject(tx, input.principal, project.id);
    const at = ctx.clock.now();
    const found = await tx.findTrashItem({ projectId: locked.id, trashId: input.trashId });
    if (!found || !isLive(found, ctx, at)) throw new TrashItemNotFoundError();
    const filename = to ?? found.file.filename;
    if (await tx.findFile({ projectId: locked.id, filename })) throw new FilenameTakenError(filename);
    const item = await tx.deleteTrashItem({ projectId: locked.id, trashId: found.id });
    if (!item) throw new TrashItemNotFoundError();
    const before = await tx.listRevisionContents({ fileId: item.file.id });
    const file: FileRecord = {
      ...item.file,
      filename,
      revision: item.file.revision + 1,
      updatedAt: notBefore(at, item.file.updatedAt),
    };
    // The name was free under the project lock; a unique-rule conflict still reads as the 409 it is.
    await tx.insertFile({ file }).catch((error: unknown) => {
      if (isRecordConflict(error, 'filename')) throw new FilenameTakenError(filename);
      throw error;
    });
    // Deleting the file removed its search index; it is searchable again under its (new) name.
    await indexFileWrite(ctx, tx, {
      file,
      contentText: search?.contentKey === file.contentKey ? search.searchText : '',
      links: search?.contentKey === file.contentKey ? links : { links: [], slugs: [], headings: [] },
    });
    const recorded = await recordRevision(ctx, tx, {
      project: locked,
      file,
      change: 'restore',
      before,
      author: input.principal.keyId,
      event: { type: 'file.restored' },
    });
    const change = {
      files: 1,
      bytes: file.sizeBytes,
      historyBytes: historyBytes(before, file.contentKey) + recorded.historyDelta,
      trashBytes: -heldBytes(item.file, before),
    };
    await tx.updateProject({ project: withCounterChange(ctx, locked, change, at) });
    return { file, doomed: recorded.doomed };
  });
  for (const intent of doomed) await removeDoomed(ctx, intent);
  return toFileView(file, project, ctx.blobs.scheme);
}
