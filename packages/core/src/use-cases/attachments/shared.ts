import { evaluatePreconditions, hasIfMatch } from '../../conditional/index.js';
import { AttachmentNotFoundError, PreconditionFailedError, PreconditionRequiredError } from '../../errors.js';
import type { ChangeEventType } from '../../model/changes.js';
import { fileEtag } from '../../model/etags.js';
import type { AttachmentRecord, ProjectRecord } from '../../model/records.js';
import type { RecordsReader, RecordsTransaction } from '../../ports/records.js';
import { loadOwnedProject } from '../access.js';
import type { Principal } from '../authentication.js';
import type { MdStoreContext } from '../context.js';
import type { ParsedConditions } from '../files/conditions.js';

/** An attachment as the interface shows it (extensions §12). */
export interface AttachmentView {
  readonly path: string;
  readonly projectId: string;
  readonly sizeBytes: number;
  readonly contentType: string;
  readonly sha256: string;
  readonly etag: string;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** The entity tag: the attachment's id and revision, as for files (a path written again gets a new one). */
export const attachmentEtag = (attachment: AttachmentRecord): string => fileEtag(attachment);

export const toAttachmentView = (a: AttachmentRecord): AttachmentView => ({
  path: a.path,
  projectId: a.projectId,
  sizeBytes: a.sizeBytes,
  contentType: a.contentType,
  sha256: a.sha256,
  etag: attachmentEtag(a),
  createdAt: a.createdAt,
  updatedAt: a.updatedAt,
});

/** A new, never reused blob key of one attachment write, in the project's bucket. */
/**
 * The access rule of an attachment route: the project's (`loadOwnedProject`), then the path against the
 * key's folders (extensions §14): outside them, `404` "Attachment not found".
 */
export const loadAttachmentProject = (
  records: RecordsReader,
  input: { readonly principal: Principal; readonly projectId: string; readonly path: string },
): Promise<ProjectRecord> =>
  loadOwnedProject(
    records,
    input.principal,
    input.projectId,
    input.path,
    (path) => new AttachmentNotFoundError(path),
  );

export const newAttachmentKey = (ctx: MdStoreContext): string => `attachments/${ctx.ids.uuid()}`;

export async function findAttachmentOr404(
  records: Pick<RecordsReader, 'findAttachment'>,
  projectId: string,
  path: string,
): Promise<AttachmentRecord> {
  const attachment = await records.findAttachment({ projectId, path });
  if (!attachment) throw new AttachmentNotFoundError(path);
  return attachment;
}

const stateOf = (a: AttachmentRecord | null) =>
  a === null ? null : { etag: attachmentEtag(a), lastModified: a.updatedAt };

/**
 * A write (extensions §2, as for files): `428` when the project requires `If-Match` and an existing
 * attachment is written without one; then the preconditions against the current state (none when the
 * path is free: `If-Match` fails, `If-None-Match: *` holds). Checked before the body is read and again
 * under the project lock.
 */
export function checkAttachmentWrite(
  project: Pick<ProjectRecord, 'requireIfMatch'>,
  current: AttachmentRecord | null,
  conditions: ParsedConditions,
): void {
  if (current !== null && project.requireIfMatch && !hasIfMatch(conditions)) {
    throw new PreconditionRequiredError();
  }
  if (evaluatePreconditions(conditions, stateOf(current), 'write') !== 'proceed') {
    throw new PreconditionFailedError(current === null ? undefined : attachmentEtag(current));
  }
}

/** A read: `not-modified` for a 304, a `412` thrown for a failed `If-Match`/`If-Unmodified-Since`. */
export function checkAttachmentRead(
  current: AttachmentRecord,
  conditions: ParsedConditions,
): 'proceed' | 'not-modified' {
  const outcome = evaluatePreconditions(conditions, stateOf(current), 'read');
  if (outcome === 'failed') throw new PreconditionFailedError(attachmentEtag(current));
  return outcome;
}

/**
 * The change event of an attachment write (extensions §12), in the write's transaction; a move's names
 * the old path in `from` (and, with `rewrite_links`, the changeset it is part of).
 */
export async function emitAttachmentEvent(
  ctx: MdStoreContext,
  tx: RecordsTransaction,
  o: {
    project: ProjectRecord;
    type: ChangeEventType;
    path: string;
    attachment: AttachmentRecord | null;
    from?: string;
    /** The changeset that wrote it (extensions §9), if any. */
    changesetId?: string;
  },
): Promise<void> {
  const { attachment } = o;
  await tx.appendChangeEvents({
    events: [
      {
        accountId: o.project.accountId,
        type: o.type,
        projectId: o.project.id,
        filename: o.path,
        from: o.from ?? null,
        revision: attachment?.revision ?? null,
        etag: attachment ? attachmentEtag(attachment) : null,
        sizeBytes: attachment?.sizeBytes ?? null,
        sha256: attachment?.sha256 ?? null,
        changesetId: o.changesetId ?? null,
        at: ctx.clock.now(),
      },
    ],
  });
}
