import { ContentTooLargeError, isMdStoreError, PreconditionFailedError } from '../../errors.js';
import type { AttachmentRecord, BlobIntentRecord, ProjectRecord } from '../../model/records.js';
import type { ByteStream } from '../../ports/blobs.js';
import type { RecordsTransaction } from '../../ports/records.js';
import { attachmentEtag, emitAttachmentEvent, newAttachmentKey } from '../attachments/shared.js';
import type { Principal } from '../authentication.js';
import { doomResource, removeDoomed, stageResources } from '../blob-intents.js';
import { type MdStoreContext, notBefore } from '../context.js';
import { lockActiveProject, withCounterChange } from '../files/shared.js';
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

/** The attachments of an import, staged and written, to be committed in the changeset's transaction. */
export interface StagedAttachments {
  /** Inside the commit transaction, after the files: the records, counters, events; drops the notes. */
  commit(tx: RecordsTransaction): Promise<void>;
  /** After the commit: removes the blobs it doomed (replaced, deleted, or twins of held bytes). */
  cleanUp(): Promise<void>;
  /** After a failure: removes every blob written. */
  discard(): Promise<void>;
}

async function* oneChunk(bytes: Uint8Array): ByteStream {
  yield bytes;
}

/**
 * The write path of attachments (blob-intents.ts) with the changeset's transaction as its commit, so
 * that an import stays whole or nothing: each new content is noted as staged (one transaction), then
 * written to the blob store under a new key, one at a time from the spool (its digest checked against
 * the one planned). `commit` then runs inside the changeset's commit transaction, under the project
 * lock: it checks that each attachment is still the one the plan saw (else 412), deletes, then writes
 * the records (a content the project already holds, or that an earlier entry of the import wrote, is
 * pointed at and the new blob doomed, as a single write does), moves the counters (the storage bound
 * counts attachments: past it the whole import fails), writes the events and drops the notes. A crash
 * before that commit leaves only staged notes, which reconciliation removes with their blobs.
 */
export async function stageAttachments(
  ctx: MdStoreContext,
  o: {
    principal: Principal;
    project: ProjectRecord;
    operations: readonly AttachmentOperation[];
    spool: ImportSpool;
    signal?: AbortSignal;
  },
): Promise<StagedAttachments> {
  const bucket = o.project.bucketName;
  const keys = new Map<AttachmentOperation, string>();
  for (const operation of o.operations) {
    if (operation.op === 'attach') keys.set(operation, newAttachmentKey(ctx));
  }
  const staged = await stageResources(
    ctx,
    [...keys.values()].map((key) => ({ bucket, key })),
  );
  try {
    const deadline = AbortSignal.timeout(ctx.settings.writeDeadlineMs);
    for (const [operation, key] of keys) {
      if (operation.op !== 'attach') continue;
      const { ref, sha256 } = operation.attachment;
      let written: { sizeBytes: number; sha256: string };
      try {
        written = await ctx.blobs.put({
          bucket,
          key,
          content: oneChunk(await o.spool.get(ref)),
          maxBytes: ctx.settings.maxAttachmentBytes,
          signal: AbortSignal.any([deadline, ...(o.signal ? [o.signal] : [])]),
        });
      } catch (error) {
        if (isMdStoreError(error, 'BLOB_TOO_LARGE'))
          throw new ContentTooLargeError(ctx.settings.maxAttachmentBytes);
        throw error;
      }
      if (written.sha256 !== sha256)
        throw new Error(`The content of ${operation.attachment.path} changed in its spool`);
    }
  } catch (error) {
    await staged.discard();
    throw error;
  }
  let doomed: BlobIntentRecord[] = [];
  return {
    async commit(tx) {
      // A changeset commit planned again runs this again: only the last run's doomed blobs count.
      doomed = [];
      const locked = await lockActiveProject(tx, o.principal, o.project.id);
      const found = await tx.findAttachments({
        projectId: locked.id,
        paths: o.operations.map((operation) =>
          operation.op === 'attach' ? operation.attachment.path : operation.path,
        ),
      });
      const byPath = new Map(found.map((record) => [record.path, record]));
      const at = notBefore(ctx.clock.now(), locked.updatedAt);
      const change = { attachments: 0, attachmentBytes: 0 };
      const dropBlob = async (key: string) => {
        if (!(await tx.isBlobReferenced({ bucket, key })))
          doomed.push(await doomResource(ctx, tx, { bucket, key }));
      };
      for (const operation of o.operations) {
        const path = operation.op === 'attach' ? operation.attachment.path : operation.path;
        const now = byPath.get(path) ?? null;
        const seen = operation.current;
        if (
          (now === null) !== (seen === null) ||
          (now && seen && (now.id !== seen.id || now.revision !== seen.revision))
        ) {
          throw new PreconditionFailedError(now === null ? undefined : attachmentEtag(now));
        }
      }
      // Deletes first: what they free may be written again below.
      for (const operation of o.operations) {
        if (operation.op !== 'detach') continue;
        await tx.deleteAttachment({ attachmentId: operation.current.id });
        await dropBlob(operation.current.blobKey);
        change.attachments -= 1;
        change.attachmentBytes -= operation.current.sizeBytes;
        await emitAttachmentEvent(ctx, tx, {
          project: locked,
          type: 'attachment.deleted',
          path: operation.path,
          attachment: null,
        });
      }
      for (const operation of o.operations) {
        if (operation.op !== 'attach') continue;
        const key = keys.get(operation)!;
        const { path, sha256, ref, contentType } = operation.attachment;
        const current = operation.current;
        const twin =
          current?.sha256 === sha256
            ? current
            : await tx.findAttachmentBySha256({ projectId: locked.id, sha256 });
        const blobKey = twin?.sizeBytes === ref.size ? twin.blobKey : key;
        if (blobKey !== key) doomed.push(await doomResource(ctx, tx, { bucket, key }));
        const record: AttachmentRecord = {
          id: current?.id ?? ctx.ids.uuid(),
          projectId: locked.id,
          path,
          sizeBytes: ref.size,
          contentType,
          sha256,
          blobKey,
          revision: (current?.revision ?? 0) + 1,
          createdAt: current?.createdAt ?? at,
          updatedAt: at,
        };
        if (current) await tx.updateAttachment({ attachment: record });
        else await tx.insertAttachment({ attachment: record });
        if (current && current.blobKey !== blobKey) await dropBlob(current.blobKey);
        change.attachments += current ? 0 : 1;
        change.attachmentBytes += ref.size - (current?.sizeBytes ?? 0);
        await emitAttachmentEvent(ctx, tx, {
          project: locked,
          type: current ? 'attachment.updated' : 'attachment.created',
          path,
          attachment: record,
        });
      }
      await tx.updateProject({ project: withCounterChange(ctx, locked, change, at) });
      await staged.drop(tx);
    },
    async cleanUp() {
      for (const intent of doomed) await removeDoomed(ctx, intent);
    },
    discard: () => staged.discard(),
  };
}
