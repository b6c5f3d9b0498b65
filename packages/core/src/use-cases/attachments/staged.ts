import { PreconditionFailedError } from '../../errors.js';
import type { AttachmentRecord, BlobIntentRecord, ProjectRecord } from '../../model/records.js';
import type { ByteStream } from '../../ports/blobs.js';
import type { RecordsTransaction } from '../../ports/records.js';
import type { Principal } from '../authentication.js';
import { doomResource, removeDoomed, stageResources } from '../blob-intents.js';
import { type MdStoreContext, notBefore } from '../context.js';
import { putBlob } from '../files/content.js';
import { lockActiveProject, withCounterChange } from '../files/shared.js';
import { removeAttachmentStep } from './remove.js';
import { attachmentEtag, emitAttachmentEvent, newAttachmentKey } from './shared.js';

/** The bytes of one attachment a batch writes: known size, digest and type, read when written. */
export interface AttachmentContent {
  readonly path: string;
  readonly sizeBytes: number;
  /** Lower-case hex SHA-256 of the bytes: the blob store's digest of what it wrote must be this. */
  readonly sha256: string;
  /** Its type, already judged against the bytes. */
  readonly contentType: string;
  load(): Promise<Uint8Array>;
}

/**
 * What a batch (an import's, extensions §10; a changeset's, §9) does to one attachment: write it
 * (created, or replacing the stored one the plan saw) or delete it. `current` pins the record the plan
 * saw (null: the path was free); the commit fails when it is no longer that one.
 */
export type StagedAttachmentOperation =
  | {
      readonly op: 'attach';
      readonly attachment: AttachmentContent;
      readonly current: AttachmentRecord | null;
    }
  | { readonly op: 'detach'; readonly path: string; readonly current: AttachmentRecord };

/** The attachments of a batch, staged and written, to be committed in the batch's transaction. */
export interface StagedAttachments {
  /**
   * Inside the commit transaction, after the files: the records, counters, events (carrying the
   * changeset's id when given); drops the notes. Resolves with the record of each path written.
   */
  commit(tx: RecordsTransaction, changesetId?: string): Promise<ReadonlyMap<string, AttachmentRecord>>;
  /** After the commit: removes the blobs it doomed (replaced, deleted, or twins of held bytes). */
  cleanUp(): Promise<void>;
  /** After a failure: removes every blob written. */
  discard(): Promise<void>;
}

async function* oneChunk(bytes: Uint8Array): ByteStream {
  yield bytes;
}

const pathOf = (operation: StagedAttachmentOperation) =>
  operation.op === 'attach' ? operation.attachment.path : operation.path;

/**
 * The write path of attachments (blob-intents.ts) with another use case's transaction as its commit, so
 * that a batch stays whole or nothing: each new content is noted as staged (one transaction), then
 * written to the blob store under a new key, one at a time (its digest checked against the one
 * planned). `commit` then runs inside the batch's commit transaction, under the project lock: it checks
 * that each attachment is still the one the plan saw (else `changed`: 412 by default), deletes, then
 * writes the records (a content the project already holds, or that an earlier entry of the batch wrote,
 * is pointed at and the new blob doomed, as a single write does), moves the counters (the storage bound
 * counts attachments: past it the whole batch fails), writes the events and drops the notes. A crash
 * before that commit leaves only staged notes, which reconciliation removes with their blobs.
 */
export async function stageAttachments(
  ctx: MdStoreContext,
  o: {
    principal: Principal;
    project: ProjectRecord;
    operations: readonly StagedAttachmentOperation[];
    signal?: AbortSignal;
    /** The error when an attachment is no longer the one the plan saw (a changeset plans again). */
    changed?: (now: AttachmentRecord | null) => Error;
  },
): Promise<StagedAttachments> {
  const bucket = o.project.bucketName;
  const changed =
    o.changed ?? ((now) => new PreconditionFailedError(now === null ? undefined : attachmentEtag(now)));
  const keys = new Map<StagedAttachmentOperation, string>();
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
      const { path, sha256 } = operation.attachment;
      const written = await putBlob(
        ctx,
        o.project,
        key,
        oneChunk(await operation.attachment.load()),
        [deadline, o.signal],
        ctx.settings.maxAttachmentBytes,
      );
      if (written.sha256 !== sha256) throw new Error(`The content of ${path} changed before it was written`);
    }
  } catch (error) {
    await staged.discard();
    throw error;
  }
  let doomed: BlobIntentRecord[] = [];
  return {
    async commit(tx, changesetId) {
      // A commit planned again runs this again: only the last run's doomed blobs count.
      doomed = [];
      const records = new Map<string, AttachmentRecord>();
      const locked = await lockActiveProject(tx, o.principal, o.project.id);
      const found = await tx.findAttachments({ projectId: locked.id, paths: o.operations.map(pathOf) });
      const byPath = new Map(found.map((record) => [record.path, record]));
      const at = notBefore(ctx.clock.now(), locked.updatedAt);
      const change = { attachments: 0, attachmentBytes: 0, trashBytes: 0 };
      const event = { project: locked, ...(changesetId !== undefined && { changesetId }) };
      const dropBlob = async (key: string) => {
        if (!(await tx.isBlobReferenced({ bucket, key })))
          doomed.push(await doomResource(ctx, tx, { bucket, key }));
      };
      for (const operation of o.operations) {
        const now = byPath.get(pathOf(operation)) ?? null;
        const seen = operation.current;
        if (
          (now === null) !== (seen === null) ||
          (now && seen && (now.id !== seen.id || now.revision !== seen.revision))
        ) {
          throw changed(now);
        }
      }
      // Deletes first: what they free may be written again below.
      for (const operation of o.operations) {
        if (operation.op !== 'detach') continue;
        // To the trash when the project keeps one, as a changeset's file delete.
        const removed = await removeAttachmentStep(ctx, tx, {
          project: locked,
          attachment: operation.current,
          at,
        });
        doomed.push(...removed.doomed);
        change.attachments += removed.change.attachments ?? 0;
        change.attachmentBytes += removed.change.attachmentBytes ?? 0;
        change.trashBytes += removed.change.trashBytes ?? 0;
        await emitAttachmentEvent(ctx, tx, {
          ...event,
          type: 'attachment.deleted',
          path: operation.path,
          attachment: null,
        });
      }
      for (const operation of o.operations) {
        if (operation.op !== 'attach') continue;
        const key = keys.get(operation)!;
        const { path, sha256, sizeBytes, contentType } = operation.attachment;
        const current = operation.current;
        const twin =
          current?.sha256 === sha256
            ? current
            : await tx.findAttachmentBySha256({ projectId: locked.id, sha256 });
        const blobKey = twin?.sizeBytes === sizeBytes ? twin.blobKey : key;
        if (blobKey !== key) doomed.push(await doomResource(ctx, tx, { bucket, key }));
        const record: AttachmentRecord = {
          id: current?.id ?? ctx.ids.uuid(),
          projectId: locked.id,
          path,
          sizeBytes,
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
        change.attachmentBytes += sizeBytes - (current?.sizeBytes ?? 0);
        records.set(path, record);
        await emitAttachmentEvent(ctx, tx, {
          ...event,
          type: current ? 'attachment.updated' : 'attachment.created',
          path,
          attachment: record,
        });
      }
      await tx.updateProject({ project: withCounterChange(ctx, locked, change, at) });
      await staged.drop(tx);
      return records;
    },
    async cleanUp() {
      for (const intent of doomed) await removeDoomed(ctx, intent);
    },
    discard: () => staged.discard(),
  };
}
