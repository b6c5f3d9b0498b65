import type { AttachmentRecord } from '../../model/records.js';
import type { StagedAttachmentOperation } from '../attachments/staged.js';
import type { MdStoreContext } from '../context.js';
import type { ImportSpool, SpooledAttachment } from './spool.js';

/**
 * What an import does to one attachment (extensions §10, §12): write it (created, or replacing the
 * stored one the plan compared against) or delete it (`replace` mode). `current` pins the record the
 * plan saw (null: the path was free); the commit fails with 412 when it is no longer that one.
 */
export type AttachmentOperation =
  | {
      readonly op: 'attach';
      readonly attachment: SpooledAttachment;
      readonly current: AttachmentRecord | null;
    }
  | { readonly op: 'detach'; readonly path: string; readonly current: AttachmentRecord };

/** Every attachment of the project, page by page (records only, no content). */
export async function storedAttachments(
  ctx: MdStoreContext,
  projectId: string,
): Promise<Map<string, AttachmentRecord>> {
  const stored = new Map<string, AttachmentRecord>();
  let after: string | undefined;
  for (;;) {
    const rows = await ctx.records.listAttachmentPage({
      projectId,
      prefix: '',
      limit: 500,
      ...(after !== undefined && { after }),
    });
    for (const row of rows) stored.set(row.path, row);
    const last = rows.at(-1);
    if (last === undefined || rows.length < 500) return stored;
    after = last.path;
  }
}

/** Same bytes and type as stored: nothing to write. */
export const sameAttachment = (stored: AttachmentRecord, attachment: SpooledAttachment): boolean =>
  stored.sha256 === attachment.sha256 &&
  stored.sizeBytes === attachment.ref.size &&
  stored.contentType === attachment.contentType;

/** An import's operation as the batch writer takes it: the bytes read from the spool when written. */
export function stagedOperation(
  spool: ImportSpool,
  operation: AttachmentOperation,
): StagedAttachmentOperation {
  if (operation.op === 'detach') return operation;
  const { path, ref, sha256, contentType } = operation.attachment;
  return {
    op: 'attach',
    attachment: { path, sizeBytes: ref.size, sha256, contentType, load: () => spool.get(ref) },
    current: operation.current,
  };
}
