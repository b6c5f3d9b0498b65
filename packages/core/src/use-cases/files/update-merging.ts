import { EditConflictError } from '../../errors.js';
import { turnAfterLargeStep } from '../../markdown/work-budget.js';
import type { FileRecord, ProjectRecord } from '../../model/records.js';
import type { ByteStream } from '../../ports/blobs.js';
import { digestMismatch } from '../../validation/schemas.js';
import { utf8Size } from '../../validation/text.js';
import type { Principal } from '../authentication.js';
import { withContentHold } from '../content-budget.js';
import type { MdStoreContext } from '../context.js';
import type { FileView } from '../views.js';
import { checkWriteConditions, type ParsedConditions } from './conditions.js';
import type { ExpectedDigest } from './content.js';
import { storeContent } from './content.js';
import { caughtUp, checkedResultSize, encodedPieces, MAX_EDIT_ATTEMPTS, StaleRevision } from './edit.js';
import {
  isCurrentBase,
  type MergeBase,
  mergeBaseText,
  mergedOrConflict,
  receivedText,
} from './merge-base.js';
import { currentText } from './parts.js';
import { findFileOr404, lockActiveProject } from './shared.js';
import { commitContentVersion } from './update-content.js';

/** A content update that may have merged: `merged` is true only when a three-way merge happened. */
export type MergedFileView = FileView & { readonly merged?: boolean };

export interface MergingUpdate {
  readonly principal: Principal;
  readonly filename: string;
  readonly conditions: ParsedConditions;
  readonly base: MergeBase;
  readonly expectedSha256?: readonly ExpectedDigest[];
  readonly signal?: AbortSignal;
}

const BODY_LOC = ['body'] as const;

/**
 * `PUT …/content?merge_base=ETAG` (merge-base.ts): the body, received whole (bounded by the file size
 * limit, its memory held from the content budget), is the proposed text; each attempt reads the
 * current text and the base revision's, merges, stores the result and commits it only if the file is
 * still at the revision read (`StaleRevision` otherwise: merged again into the newer one, as an edit
 * is applied again). The declared digests are of the body as sent.
 */
export async function updateContentMerging(
  ctx: MdStoreContext,
  project: ProjectRecord,
  existing: FileRecord,
  input: MergingUpdate,
  content: ByteStream,
): Promise<MergedFileView> {
  return withContentHold(ctx.contentBudget, input.signal, async (hold) => {
    const sent = await receivedText(ctx, content, BODY_LOC, hold);
    const wrong = input.expectedSha256?.find((expected) => expected.hex !== sent.sha256);
    if (wrong) throw digestMismatch(wrong.loc);
    let known: FileRecord | undefined = existing;
    for (let attempt = 1; attempt <= MAX_EDIT_ATTEMPTS; attempt++) {
      const read = await currentText(ctx, project, input.filename, {
        signal: input.signal,
        known,
        hold,
        proceed: (file) => {
          checkWriteConditions(project, file, input.conditions, { requireIfMatch: false });
          return true;
        },
      });
      known = undefined;
      const current = read.text!;
      const base = await mergeBaseText(ctx, project, read.file, input.base, current, {
        signal: input.signal,
        hold,
      });
      const result = isCurrentBase(read.file, input.base)
        ? { text: sent.text, merged: false }
        : mergedOrConflict(input.filename, base, current, sent.text);
      const sizeBytes = checkedResultSize(ctx, utf8Size(result.text), BODY_LOC);
      await turnAfterLargeStep(result.text);
      await hold.reserve(sizeBytes);
      try {
        const view = await commitMerged(ctx, project, read.file, input, result.text);
        return result.merged ? { ...view, merged: true } : view;
      } catch (error) {
        if (!(error instanceof StaleRevision)) throw error;
        await caughtUp(ctx, project, input.filename, error);
      }
    }
    throw new EditConflictError([
      {
        loc: BODY_LOC,
        msg: `The file changed ${MAX_EDIT_ATTEMPTS} times while the content was being merged; send it again`,
        type: 'concurrent_writes',
      },
    ]);
  });
}

function commitMerged(
  ctx: MdStoreContext,
  project: ProjectRecord,
  read: FileRecord,
  input: MergingUpdate,
  text: string,
): Promise<FileView> {
  return storeContent(
    ctx,
    { project, fileId: read.id },
    { content: encodedPieces(text), loc: BODY_LOC, filename: input.filename, signal: input.signal },
    async () => undefined,
    async (tx, stored) => {
      const locked = await lockActiveProject(tx, input.principal, project.id);
      const current = await findFileOr404(tx, locked.id, input.filename);
      checkWriteConditions(locked, current, input.conditions, { requireIfMatch: false });
      if (current.id !== read.id || current.revision !== read.revision) throw new StaleRevision(current);
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
