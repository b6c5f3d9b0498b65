import { ifRangeHolds, parseRange } from '../../conditional/index.js';
import { AttachmentNotFoundError, isMdStoreError, RangeNotSatisfiableError } from '../../errors.js';
import type { AttachmentRecord } from '../../model/records.js';
import type { ByteStream } from '../../ports/blobs.js';
import type { Principal } from '../authentication.js';
import type { MdStoreContext } from '../context.js';
import { conditionsOf, type RequestConditions } from '../files/conditions.js';
import type { ByteRange } from '../files/download.js';
import {
  type AttachmentView,
  attachmentEtag,
  checkAttachmentRead,
  findAttachmentOr404,
  loadAttachmentProject,
  toAttachmentView,
} from './shared.js';

export interface ReadAttachmentInput {
  readonly principal: Principal;
  readonly projectId: string;
  readonly path: string;
  readonly conditions?: RequestConditions;
  /** The `Range` and `If-Range` headers, as sent. */
  readonly range?: string;
  readonly ifRange?: string;
  /** false for `HEAD`: the headers only, nothing is opened. */
  readonly open?: boolean;
  readonly signal?: AbortSignal;
}

export type AttachmentDownload =
  | { readonly kind: 'not-modified'; readonly attachment: AttachmentView }
  | {
      readonly kind: 'content';
      readonly attachment: AttachmentView;
      /** null: the whole content. */
      readonly range: ByteRange | null;
      /** null when not opened (`open: false`). */
      readonly content: ByteStream | null;
    };

function requestedRange(a: AttachmentRecord, input: ReadAttachmentInput): ByteRange | null {
  if (input.range === undefined) return null;
  if (!ifRangeHolds(input.ifRange, { etag: attachmentEtag(a), lastModified: a.updatedAt })) return null;
  const parsed = parseRange(input.range, a.sizeBytes);
  if (parsed === 'unsatisfiable') throw new RangeNotSatisfiableError(a.sizeBytes);
  return parsed === 'none' ? null : parsed;
}

/**
 * Read an attachment (extensions §12): preconditions (304/412), one byte range (206/416), and the bytes
 * streamed from the blob store (only the range's). A concurrent replace or delete may remove the blob
 * between reading the record and opening it; the record is then read again, so a reader gets one whole
 * version or a 404.
 */
export async function readAttachment(
  ctx: MdStoreContext,
  input: ReadAttachmentInput,
): Promise<AttachmentDownload> {
  const project = await loadAttachmentProject(ctx.records, input);
  const conditions = conditionsOf(input.conditions);
  for (let attempt = 0; attempt < 3; attempt++) {
    const record = await findAttachmentOr404(ctx.records, project.id, input.path);
    const attachment = toAttachmentView(record);
    if (checkAttachmentRead(record, conditions) === 'not-modified')
      return { kind: 'not-modified', attachment };
    const range = requestedRange(record, input);
    if (input.open === false) return { kind: 'content', attachment, range, content: null };
    try {
      const opened = await ctx.blobs.get({
        bucket: project.bucketName,
        key: record.blobKey,
        range: range ?? undefined,
        signal: input.signal,
      });
      return { kind: 'content', attachment, range, content: opened.content };
    } catch (error) {
      if (!isMdStoreError(error, 'BLOB_NOT_FOUND')) throw error;
    }
  }
  throw new AttachmentNotFoundError(input.path);
}
