import { bytesMatchType, essenceOf } from '../../attachments/content-types.js';
import { ATTACHMENT_LIMITS } from '../../defaults/attachments.js';
import { AttachmentNotFoundError, ContentTooLargeError, ContentTypeMismatchError } from '../../errors.js';
import type { AttachmentRecord, ProjectRecord } from '../../model/records.js';
import type { AttachmentOperation } from '../../validation/changesets.js';
import { LIMITS } from '../../validation/schemas.js';
import { type AttachmentView, toAttachmentView } from '../attachments/shared.js';
import type { StagedAttachmentOperation } from '../attachments/staged.js';
import type { MdStoreContext } from '../context.js';

/** The bytes an `attach` leaves at its path: decoded, hashed, their type judged. */
export interface AttachmentBytes {
  readonly bytes: Uint8Array;
  readonly sha256: string;
  readonly contentType: string;
}

/** One attachment path as the changeset leaves it (extensions §12): `attach` and `detach` in order. */
export interface PlannedAttachment {
  readonly path: string;
  /** The stored attachment the plan read (null: the path was free): the commit checks it is still it. */
  readonly origin: AttachmentRecord | null;
  /** What it ends as: new bytes, null (no attachment there), undefined (the origin, untouched). */
  content: AttachmentBytes | null | undefined;
}

/** Whether an attachment is at the path at this point of the changeset. */
export const attachmentExists = (planned: PlannedAttachment): boolean =>
  planned.content === undefined ? planned.origin !== null : planned.content !== null;

/**
 * The rules of an `attach`'s bytes, as the PUT route's: at most `maxAttachmentBytes` (413), their head
 * what the type says for the types a browser renders (415). Then hashed once.
 */
export function attachmentBytes(
  ctx: MdStoreContext,
  op: Extract<AttachmentOperation, { op: 'attach' }>,
): AttachmentBytes {
  const { maxAttachmentBytes } = ctx.settings;
  if (op.bytes.byteLength > maxAttachmentBytes) throw new ContentTooLargeError(maxAttachmentBytes);
  if (!bytesMatchType(op.contentType, op.bytes.subarray(0, ATTACHMENT_LIMITS.sniffBytes))) {
    throw new ContentTypeMismatchError(essenceOf(op.contentType)!);
  }
  const hash = ctx.hashing.sha256();
  hash.update(op.bytes);
  return { bytes: op.bytes, sha256: hash.digestHex(), contentType: op.contentType };
}

/** Detaching a path with no attachment: 404 "Attachment not found", as a single delete. */
export const missingAttachment = (path: string) => new AttachmentNotFoundError(path);

/** The attachments the operations name, read at once (paths longer than any path can be left out). */
export async function prefetchAttachments(
  ctx: MdStoreContext,
  projectId: string,
  operations: readonly unknown[],
): Promise<Map<string, AttachmentRecord | null>> {
  const paths = new Set<string>();
  for (const raw of operations) {
    const op = raw as { op?: unknown; path?: unknown };
    if ((op?.op === 'attach' || op?.op === 'detach') && typeof op.path === 'string')
      if (op.path.length <= LIMITS.filenameMaxBytes) paths.add(op.path);
  }
  const stored = new Map<string, AttachmentRecord | null>();
  if (paths.size === 0) return stored;
  const found = await ctx.records.findAttachments({ projectId, paths: [...paths] });
  const byPath = new Map(found.map((record) => [record.path, record]));
  for (const path of paths) stored.set(path, byPath.get(path) ?? null);
  return stored;
}

/** What the commit writes for a planned attachment (undefined: nothing, it ends as it was). */
export function stagedOperationOf(planned: PlannedAttachment): StagedAttachmentOperation | undefined {
  const { path, origin, content } = planned;
  if (content === undefined) return undefined;
  if (content === null) return origin ? { op: 'detach', path, current: origin } : undefined;
  const { bytes, sha256, contentType } = content;
  return {
    op: 'attach',
    attachment: { path, sizeBytes: bytes.byteLength, sha256, contentType, load: async () => bytes },
    current: origin,
  };
}

/** A dry run's view of an attachment as it would be (its ETag the stored one's, or a new one's). */
export function dryRunAttachmentView(
  ctx: MdStoreContext,
  project: ProjectRecord,
  planned: PlannedAttachment,
): AttachmentView | undefined {
  const { origin, content } = planned;
  if (!attachmentExists(planned)) return undefined;
  if (!content) return toAttachmentView(origin!);
  const now = ctx.clock.now();
  return toAttachmentView({
    id: origin?.id ?? ctx.ids.uuid(),
    projectId: project.id,
    path: planned.path,
    sizeBytes: content.bytes.byteLength,
    contentType: content.contentType,
    sha256: content.sha256,
    blobKey: origin?.blobKey ?? '',
    revision: origin?.revision ?? 1,
    createdAt: origin?.createdAt ?? now,
    updatedAt: origin?.updatedAt ?? now,
  });
}
