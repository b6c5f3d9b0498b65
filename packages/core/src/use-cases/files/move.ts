import { FilenameTakenError, isRecordConflict } from '../../errors.js';
import type { ProjectRecord } from '../../model/records.js';
import type { MoveRequestInput } from '../../validation/bodies.js';
import { parseMoveBody } from '../../validation/history.js';
import { assertPathInScope, inPathScope, loadOwnedProject } from '../access.js';
import type { Principal } from '../authentication.js';
import { removeDoomed } from '../blob-intents.js';
import { commitChangeset } from '../changesets/commit.js';
import { type MdStoreContext, notBefore } from '../context.js';
import { type BodyOf, deferred } from '../deferred-body.js';
import {
  moveChangesetPlan,
  planMoveRewrites,
  rewriteMessage,
  rewrittenOf,
  withReplanning,
} from '../links/move-rewrite.js';
import { type FileView, toFileView } from '../views.js';
import { checkWriteConditions, conditionsOf, type RequestConditions } from './conditions.js';
import { findFileOr404, lockActiveProject, withCounterChange } from './shared.js';
import { reviseFileStep } from './steps.js';

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
export async function moveFile(ctx: MdStoreContext, input: MoveFileInput): Promise<MovedFileView> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId, input.filename);
  const conditions = conditionsOf(input.conditions);
  const body = deferred<unknown>(input.body);
  body.check();
  const existing = await findFileOr404(ctx.records, project.id, input.filename);
  checkWriteConditions(project, existing, conditions);
  const { to, rewriteLinks, dryRun } = parseMoveBody(await body.read());
  assertPathInScope(input.principal, to);
  // A dry run never writes, with `rewrite_links` or without: the checks, then the answer.
  if (!rewriteLinks && dryRun) {
    if (await ctx.records.findFile({ projectId: project.id, filename: to })) throw new FilenameTakenError(to);
    return toFileView({ ...existing, filename: to }, project, ctx.blobs.scheme);
  }
  if (!rewriteLinks) return commitMove(ctx, input, { project, conditions, to });
  return moveRewritingLinks(ctx, input, { project, conditions, to, dryRun });
}

/**
 * Move with `rewrite_links` (extensions §9): the move and every rewrite are ONE changeset (one revision
 * per touched file, all carrying its id; the moved file's one revision has its new name and content).
 * Planned again when a file changed before the commit, at most `REWRITE_ATTEMPTS` times, then 409.
 */
async function moveRewritingLinks(
  ctx: MdStoreContext,
  input: MoveFileInput,
  o: { project: ProjectRecord; conditions: Conditions; to: string; dryRun: boolean },
): Promise<MovedFileView> {
  const { conditions, to } = o;
  return withReplanning(async (attempt) => {
    const project =
      attempt === 1
        ? o.project
        : await loadOwnedProject(ctx.records, input.principal, input.projectId, input.filename);
    const current = await findFileOr404(ctx.records, project.id, input.filename);
    checkWriteConditions(project, current, conditions);
    if (await ctx.records.findFile({ projectId: project.id, filename: to })) throw new FilenameTakenError(to);
    const subject = { kind: 'file', file: current } as const;
    const plan = await planMoveRewrites(ctx, project, subject, to, (name) =>
      inPathScope(input.principal, name),
    );
    const rewritten = rewrittenOf(plan);
    if (o.dryRun)
      return { ...toFileView({ ...current, filename: to }, project, ctx.blobs.scheme), rewritten };
    const { changeset, moved } = moveChangesetPlan(project, subject, to, plan);
    const committed = await commitChangeset(ctx, {
      principal: input.principal,
      plan: changeset,
      changeset: { id: ctx.ids.uuid(), message: rewriteMessage(input.filename, to) },
    });
    const file = committed.records.get(moved)!;
    return { ...toFileView(file, committed.project, ctx.blobs.scheme), rewritten };
  });
}

/** The move's answer: the file under its new name; with `rewrite_links`, the files rewritten. */
export type MovedFileView = FileView & {
  readonly rewritten?: ReadonlyArray<{ filename: string; links: number }>;
};

type Conditions = ReturnType<typeof conditionsOf>;

async function commitMove(
  ctx: MdStoreContext,
  input: MoveFileInput,
  o: { project: ProjectRecord; conditions: Conditions; to: string },
): Promise<FileView> {
  const { project, conditions, to } = o;
  try {
    const { view, doomed } = await ctx.records.withTransaction(async (tx) => {
      const locked = await lockActiveProject(tx, input.principal, project.id);
      const current = await findFileOr404(tx, locked.id, input.filename);
      checkWriteConditions(locked, current, conditions);
      if (await tx.findFile({ projectId: locked.id, filename: to })) throw new FilenameTakenError(to);
      const at = notBefore(ctx.clock.now(), notBefore(current.updatedAt, locked.updatedAt));
      const step = await reviseFileStep(ctx, tx, {
        project: locked,
        current,
        change: { filename: to },
        kind: 'move',
        at,
        author: input.principal.keyId,
      });
      // Counters unchanged but for the history a pruning frees.
      await tx.updateProject({ project: withCounterChange(ctx, locked, step.counters, at) });
      return { view: toFileView(step.file!, locked, ctx.blobs.scheme), doomed: step.doomed };
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
