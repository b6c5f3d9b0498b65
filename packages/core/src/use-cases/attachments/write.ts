import { checkContentType, typeCheckedContent } from '../../attachments/content-types.js';
import type { AttachmentRecord, BlobIntentRecord } from '../../model/records.js';
import type { ByteStream } from '../../ports/blobs.js';
import { checkAttachmentPath } from '../../validation/schemas.js';
import type { Principal } from '../authentication.js';
import { doomResource, removeDoomed, withStagedResource } from '../blob-intents.js';
import { type MdStoreContext, notBefore } from '../context.js';
import { type DeferredBody, deferred } from '../deferred-body.js';
import { conditionsOf, type RequestConditions } from '../files/conditions.js';
import { putBlob } from '../files/content.js';
import { lockActiveProject, withCounterChange } from '../files/shared.js';
import {
  type AttachmentView,
  checkAttachmentWrite,
  emitAttachmentEvent,
  loadAttachmentProject,
  newAttachmentKey,
  toAttachmentView,
} from './shared.js';

export const PATH_LOC = ['path', 'path'] as const;
const CONTENT_TYPE_LOC = ['header', 'content-type'] as const;

export interface WriteAttachmentInput {
  readonly principal: Principal;
  readonly projectId: string;
  readonly path: string;
  /** The `Content-Type` as sent: kept as is, checked against the bytes for rendered types. */
  readonly contentType: string | undefined;
  /** The bytes, or (HTTP) the request body they come in. */
  readonly content: ByteStream | DeferredBody<ByteStream>;
  readonly conditions?: RequestConditions;
  readonly signal?: AbortSignal;
}

export interface WrittenAttachment {
  readonly attachment: AttachmentView;
  /** true: the path was free (201); false: an attachment was replaced (200). */
  readonly created: boolean;
}

/**
 * Write (create or replace) an attachment (extensions §12). The path, type and preconditions are judged
 * before the body is read; the bytes then stream to the blob store under a new key through the staged
 * path (note, write, commit: blob-intents.ts), counted against `maxAttachmentBytes` and hashed by the
 * store, their head checked against the type. The commit, under the project lock, checks the
 * preconditions again (so of concurrent first writes of a path one creates and the next replaces) and, when another attachment of the project already has these bytes, points the
 * record at that blob and dooms the one just written: identical bytes are held once. A blob no record
 * points to any more (the replaced bytes) is doomed in the same transaction and removed after it.
 */
export async function writeAttachment(
  ctx: MdStoreContext,
  input: WriteAttachmentInput,
): Promise<WrittenAttachment> {
  const project = await loadAttachmentProject(ctx.records, input);
  checkAttachmentPath(input.path, PATH_LOC);
  const contentType = checkContentType(input.contentType, CONTENT_TYPE_LOC);
  const conditions = conditionsOf(input.conditions);
  // What the headers alone decide (a declared length past the limit: 413) comes before the
  // preconditions, as for files (extensions §2, order of checks).
  const body = deferred(input.content);
  body.check();
  checkAttachmentWrite(
    project,
    await ctx.records.findAttachment({ projectId: project.id, path: input.path }),
    conditions,
  );
  const key = newAttachmentKey(ctx);
  const maxBytes = ctx.settings.maxAttachmentBytes;
  const bucket = project.bucketName;
  let doomed: BlobIntentRecord[] = [];
  const written = await withStagedResource(
    ctx,
    { bucket, key },
    async (deadline) => {
      return putBlob(
        ctx,
        project,
        key,
        typeCheckedContent(body.read(), contentType),
        [deadline, input.signal],
        maxBytes,
      );
    },
    async (tx, blob) => {
      doomed = [];
      const locked = await lockActiveProject(tx, input.principal, project.id);
      const current = await tx.findAttachment({ projectId: locked.id, path: input.path });
      checkAttachmentWrite(locked, current, conditions);
      // Identical bytes already held by the project: point at them, drop ours.
      const twin =
        current?.sha256 === blob.sha256
          ? current
          : await tx.findAttachmentBySha256({ projectId: locked.id, sha256: blob.sha256 });
      const blobKey = twin?.sizeBytes === blob.sizeBytes ? twin.blobKey : key;
      if (blobKey !== key) doomed.push(await doomResource(ctx, tx, { bucket, key }));
      const at = notBefore(ctx.clock.now(), current?.updatedAt ?? locked.updatedAt);
      const attachment: AttachmentRecord = {
        id: current?.id ?? ctx.ids.uuid(),
        projectId: locked.id,
        path: input.path,
        sizeBytes: blob.sizeBytes,
        contentType,
        sha256: blob.sha256,
        blobKey,
        revision: (current?.revision ?? 0) + 1,
        createdAt: current?.createdAt ?? at,
        updatedAt: at,
      };
      if (current) await tx.updateAttachment({ attachment });
      else await tx.insertAttachment({ attachment });
      if (
        current &&
        current.blobKey !== blobKey &&
        !(await tx.isBlobReferenced({ bucket, key: current.blobKey }))
      ) {
        doomed.push(await doomResource(ctx, tx, { bucket, key: current.blobKey }));
      }
      const change = {
        attachments: current ? 0 : 1,
        attachmentBytes: blob.sizeBytes - (current?.sizeBytes ?? 0),
      };
      await tx.updateProject({ project: withCounterChange(ctx, locked, change, at) });
      await emitAttachmentEvent(ctx, tx, {
        project: locked,
        type: current ? 'attachment.updated' : 'attachment.created',
        path: input.path,
        attachment,
      });
      return { attachment: toAttachmentView(attachment), created: current === null };
    },
  );
  for (const intent of doomed) await removeDoomed(ctx, intent);
  return written;
}
