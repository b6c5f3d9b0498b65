import { FilenameTakenError, isRecordConflict } from '../../errors.js';
import type { FileRecord } from '../../model/records.js';
import type { MoveRequestInput } from '../../validation/bodies.js';
import { parseMoveBody } from '../../validation/history.js';
import { loadOwnedProject } from '../access.js';
import type { Principal } from '../authentication.js';
import { removeDoomed } from '../blob-intents.js';
import { type MdStoreContext, notBefore } from '../context.js';
import { type BodyOf, deferred } from '../deferred-body.js';
import { type FileView, toFileView } from '../views.js';
import { checkWriteConditions, conditionsOf, type RequestConditions } from './conditions.js';
import { recordRevision } from './revisions.js';
import { findFileOr404, lockActiveProject, withCounterChange } from './shared.js';

export interface MoveFileInput {
  readonly principal: Principal;
  readonly projectId: string;
  readonly filename: string;
  /** `{"to": "new.md"}`, or (HTTP) the deferred request body. */
  readonly body: BodyOf<MoveRequestInput>;
  readonly conditions?: RequestConditions;
}

/**
 * Move (extensions §5): the same file record under a new name, with a new revision (`change: "move"`)
 * that shares the current content version: nothing is copied, the history stays with the file (same
 * id). One transaction under the project lock: of concurrent moves of one file, or of two files to one
 * name, exactly one commits (the others find the source gone, or the name taken: the store's unique
 * rule stops any that got past the look-up). Counters are unchanged (but for history a pruning frees);
 * the project's `updated_date` is refreshed.
 */
export async function moveFile(ctx: MdStoreContext, input: MoveFileInput): Promise<FileView> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const existing = await findFileOr404(ctx.records, project.id, input.filename);
  const conditions = conditionsOf(input.conditions);
  const body = deferred<unknown>(input.body);
  body.check();
  checkWriteConditions(project, existing, conditions);
  const { to } = parseMoveBody(await body.read());
  try {
    const { view, doomed } = await ctx.records.withTransaction(async (tx) => {
      const locked = await lockActiveProject(tx, input.principal, project.id);
      const current = await findFileOr404(tx, locked.id, input.filename);
      checkWriteConditions(locked, current, conditions);
      if (await tx.findFile({ projectId: locked.id, filename: to })) throw new FilenameTakenError(to);
      const before = await tx.listRevisionContents({ fileId: current.id });
      const at = notBefore(ctx.clock.now(), notBefore(current.updatedAt, locked.updatedAt));
      const moved: FileRecord = { ...current, filename: to, revision: current.revision + 1, updatedAt: at };
      await tx.updateFile({ file: moved });
      // Same content: the index keeps its text and takes the new filename.
      await tx.indexFile({ file: moved, contentText: null });
      const recorded = await recordRevision(ctx, tx, {
        project: locked,
        file: moved,
        change: 'move',
        before,
        event: { from: current.filename },
      });
      await tx.updateProject({
        project: withCounterChange(ctx, locked, { historyBytes: recorded.historyDelta }, at),
      });
      return { view: toFileView(moved, locked, ctx.blobs.scheme), doomed: recorded.doomed };
    });
    for (const intent of doomed) await removeDoomed(ctx, intent);
    return view;
  } catch (error) {
    if (isRecordConflict(error, 'filename')) {
      throw new FilenameTakenError(to);
    }
    throw error;
  }
}
