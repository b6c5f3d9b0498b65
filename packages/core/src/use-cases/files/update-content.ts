import type { BlobIntentRecord, FileRecord, ProjectRecord } from '../../model/records.js';
import type { ByteStream } from '../../ports/blobs.js';
import type { RecordsTransaction } from '../../ports/records.js';
import { loadOwnedProject } from '../access.js';
import type { Principal } from '../authentication.js';
import { type MdStoreContext, notBefore } from '../context.js';
import { type DeferredBody, deferred } from '../deferred-body.js';
import { type FileView, toFileView } from '../views.js';
import { checkWriteConditions, conditionsOf, type RequestConditions } from './conditions.js';
import { type ExpectedDigest, type StoredContent, storeContent } from './content.js';
import { parseMergeBase } from './merge-base.js';
import { findFileOr404, lockActiveProject, withCounterChange } from './shared.js';
import { reviseFileStep } from './steps.js';
import { type MergedFileView, updateContentMerging } from './update-merging.js';

export interface UpdateFileContentInput {
  readonly principal: Principal;
  readonly projectId: string;
  readonly filename: string;
  /** The new content, or (HTTP) the request body it comes in. */
  readonly content: ByteStream | DeferredBody<ByteStream>;
  readonly conditions?: RequestConditions;
  /** SHA-256 digests the client declared for the body (`Content-Digest`/`Repr-Digest`). */
  readonly expectedSha256?: readonly ExpectedDigest[];
  /**
   * `?merge_base=` (extensions §13): the ETag of the revision the content was written from, as sent;
   * the content is then merged into the current one (merge-base.ts) instead of replacing it.
   */
  readonly mergeBase?: string;
  readonly signal?: AbortSignal;
}

/**
 * Replaces the content, keeping the metadata, as a new revision. The new version gets a new key (inline
 * or in the blob store); the record is switched to it in one transaction that checks the preconditions
 * again under the project lock; versions no kept revision needs any more are removed after it.
 */
export async function updateFileContent(
  ctx: MdStoreContext,
  input: UpdateFileContentInput,
): Promise<MergedFileView> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId, input.filename);
  const existing = await findFileOr404(ctx.records, project.id, input.filename);
  const conditions = conditionsOf(input.conditions);
  const body = deferred(input.content);
  body.check();
  const base = parseMergeBase(input.mergeBase, conditions);
  checkWriteConditions(project, existing, conditions, base ? { requireIfMatch: false } : {});
  if (base) {
    const merging = { ...input, conditions, base };
    return updateContentMerging(ctx, project, existing, merging, body.read());
  }
  return storeContent(
    ctx,
    { project, fileId: existing.id },
    {
      content: body.read(),
      loc: ['body'],
      expectedSha256: input.expectedSha256,
      filename: input.filename,
      signal: input.signal,
    },
    async () => undefined,
    async (tx, stored) => {
      const locked = await lockActiveProject(tx, input.principal, project.id);
      const current = await findFileOr404(tx, locked.id, input.filename);
      checkWriteConditions(locked, current, conditions);
      return commitContentVersion(ctx, tx, {
        project: locked,
        current,
        stored,
        change: 'content',
        author: input.principal.keyId,
      });
    },
  );
}

/**
 * Inside a commit transaction, under the project lock: `stored` becomes the file's next revision (record,
 * search index, revision with pruning, project counters). Shared by content updates and edits.
 */
export async function commitContentVersion(
  ctx: MdStoreContext,
  tx: RecordsTransaction,
  o: {
    project: ProjectRecord;
    current: FileRecord;
    stored: StoredContent;
    change: 'content' | 'edit';
    author: string | null;
  },
): Promise<{ result: FileView; doomed: readonly BlobIntentRecord[] }> {
  const { project, current, stored } = o;
  const at = notBefore(ctx.clock.now(), notBefore(current.updatedAt, project.updatedAt));
  const step = await reviseFileStep(ctx, tx, {
    project,
    current,
    change: { stored },
    kind: o.change,
    at,
    author: o.author,
  });
  await tx.updateProject({ project: withCounterChange(ctx, project, step.counters, at) });
  return { result: toFileView(step.file!, project, ctx.blobs.scheme), doomed: step.doomed };
}
