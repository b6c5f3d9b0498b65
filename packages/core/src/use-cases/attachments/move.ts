import { AttachmentNotFoundError, AttachmentPathTakenError, isRecordConflict } from '../../errors.js';
import type { AttachmentRecord, ProjectRecord } from '../../model/records.js';
import type { RecordsReader, RecordsTransaction } from '../../ports/records.js';
import type { MoveRequestInput } from '../../validation/bodies.js';
import { parseMoveBody } from '../../validation/history.js';
import { checkAttachmentPath } from '../../validation/schemas.js';
import { assertPathInScope, inPathScope } from '../access.js';
import type { Principal } from '../authentication.js';
import { commitChangeset } from '../changesets/commit.js';
import { StalePlan } from '../changesets/plan.js';
import { type MdStoreContext, notBefore } from '../context.js';
import { type BodyOf, deferred } from '../deferred-body.js';
import { conditionsOf, type RequestConditions } from '../files/conditions.js';
import { lockActiveProject, withCounterChange } from '../files/shared.js';
import {
  moveChangesetPlan,
  planMoveRewrites,
  rewriteMessage,
  rewrittenOf,
  withReplanning,
} from '../links/move-rewrite.js';
import {
  type AttachmentView,
  checkAttachmentWrite,
  emitAttachmentEvent,
  findAttachmentOr404,
  loadAttachmentProject,
  toAttachmentView,
} from './shared.js';

export interface MoveAttachmentInput {
  readonly principal: Principal;
  readonly projectId: string;
  readonly path: string;
  /** `{"to": "img/b.png", "rewrite_links"?, "dry_run"?}`, or (HTTP) the deferred request body. */
  readonly body: BodyOf<MoveRequestInput>;
  readonly conditions?: RequestConditions;
}

/** The move's answer: the attachment at its new path; with `rewrite_links`, the files rewritten. */
export type MovedAttachmentView = AttachmentView & {
  readonly rewritten?: ReadonlyArray<{ filename: string; links: number }>;
};

type Conditions = ReturnType<typeof conditionsOf>;

/**
 * Move an attachment (extensions §12), as a file moves (§5, §9): the same record (same id, same blob:
 * nothing is copied) under the new path, with a new revision (so a new ETag) and the `attachment.moved`
 * event naming the old path in `from`. `to` follows the attachment path rules (a `.md`/`.mdx` path is
 * 409, as for writes); a taken path is 409; a key confined to folders must reach both paths (else 404,
 * as for any path outside them). One transaction under the project lock: the record changes in one
 * statement, so after a crash the attachment is at one path or the other, never both or neither.
 *
 * With `rewrite_links` every link and embed in the project's files that resolves to the attachment is
 * rewritten, and the move and the rewrites are ONE changeset (the file move's planning, `move-rewrite`).
 */
export async function moveAttachment(
  ctx: MdStoreContext,
  input: MoveAttachmentInput,
): Promise<MovedAttachmentView> {
  const project = await loadAttachmentProject(ctx.records, input);
  const conditions = conditionsOf(input.conditions);
  const body = deferred<unknown>(input.body);
  body.check();
  const existing = await findAttachmentOr404(ctx.records, project.id, input.path);
  checkAttachmentWrite(project, existing, conditions);
  const { to, rewriteLinks, dryRun } = parseMoveBody(await body.read(), checkAttachmentPath);
  assertPathInScope(input.principal, to, (path) => new AttachmentNotFoundError(path));
  const o = { project, conditions, to };
  // A dry run never writes, with `rewrite_links` or without: the checks, then the answer.
  if (!rewriteLinks && dryRun) {
    const current = await checkedSource(ctx.records, { ...o, path: input.path });
    return toAttachmentView({ ...current, path: to });
  }
  if (!rewriteLinks) return commitMove(ctx, input, o);
  return moveRewritingLinks(ctx, input, { ...o, dryRun });
}

/** The source as it is now, its conditions holding, and the target free (else 404, 412/428, 409). */
async function checkedSource(
  records: Pick<RecordsReader, 'findAttachment'>,
  o: { project: ProjectRecord; path: string; to: string; conditions: Conditions },
): Promise<AttachmentRecord> {
  const current = await findAttachmentOr404(records, o.project.id, o.path);
  checkAttachmentWrite(o.project, current, o.conditions);
  // A move to its own path finds the path taken too, as a file's does.
  if (await records.findAttachment({ projectId: o.project.id, path: o.to }))
    throw new AttachmentPathTakenError(o.to);
  return current;
}

/**
 * The record's move, in the caller's transaction under the project lock: its path, a new revision and
 * `updated_date`, and the event. The counters do not change (the same bytes at another path).
 */
async function moveRecord(
  ctx: MdStoreContext,
  tx: RecordsTransaction,
  o: { project: ProjectRecord; current: AttachmentRecord; to: string; changesetId?: string },
): Promise<AttachmentRecord> {
  const { current, to } = o;
  const at = notBefore(ctx.clock.now(), notBefore(current.updatedAt, o.project.updatedAt));
  const moved: AttachmentRecord = { ...current, path: to, revision: current.revision + 1, updatedAt: at };
  await tx.renameAttachment({ attachmentId: current.id, path: to });
  await tx.updateAttachment({ attachment: moved });
  await emitAttachmentEvent(ctx, tx, {
    project: o.project,
    type: 'attachment.moved',
    path: to,
    from: current.path,
    attachment: moved,
    changesetId: o.changesetId,
  });
  return moved;
}

async function commitMove(
  ctx: MdStoreContext,
  input: MoveAttachmentInput,
  o: { project: ProjectRecord; conditions: Conditions; to: string },
): Promise<MovedAttachmentView> {
  try {
    return await ctx.records.withTransaction(async (tx) => {
      const locked = await lockActiveProject(tx, input.principal, o.project.id);
      const current = await checkedSource(tx, { ...o, project: locked, path: input.path });
      const moved = await moveRecord(ctx, tx, { project: locked, current, to: o.to });
      // The project's `updated_date` is refreshed; its counters stay.
      await tx.updateProject({ project: withCounterChange(ctx, locked, {}, moved.updatedAt) });
      return toAttachmentView(moved);
    });
  } catch (error) {
    if (isRecordConflict(error, 'attachment_path')) throw new AttachmentPathTakenError(o.to);
    throw error;
  }
}

/**
 * Move with `rewrite_links` (extensions §9, §12): the linking files' rewrites are planned as for a file's
 * move and committed as ONE changeset, the attachment's record moved in the changeset's own transaction
 * (after checking, under the lock, that it is still the one the plan read and that the path is still
 * free; else the plan is stale). Planned again on a concurrent change, at most `REWRITE_ATTEMPTS`
 * times, then 409; `dry_run` answers the plan and writes nothing.
 */
async function moveRewritingLinks(
  ctx: MdStoreContext,
  input: MoveAttachmentInput,
  o: { project: ProjectRecord; conditions: Conditions; to: string; dryRun: boolean },
): Promise<MovedAttachmentView> {
  const { to } = o;
  return withReplanning(async (attempt) => {
    const project = attempt === 1 ? o.project : await loadAttachmentProject(ctx.records, input);
    const current = await checkedSource(ctx.records, { ...o, project, path: input.path });
    const subject = { kind: 'attachment', path: current.path } as const;
    const plan = await planMoveRewrites(ctx, project, subject, to, (name) =>
      inPathScope(input.principal, name),
    );
    const rewritten = rewrittenOf(plan);
    if (o.dryRun) return { ...toAttachmentView({ ...current, path: to }), rewritten };
    const { changeset } = moveChangesetPlan(project, subject, to, plan);
    const changesetId = ctx.ids.uuid();
    let moved: AttachmentRecord | undefined;
    try {
      await commitChangeset(ctx, {
        principal: input.principal,
        plan: changeset,
        changeset: { id: changesetId, message: rewriteMessage(current.path, to) },
        alsoInTransaction: async (tx) => {
          const now = await tx.findAttachment({ projectId: project.id, path: current.path });
          if (now?.id !== current.id || now.revision !== current.revision) throw new StalePlan();
          if (await tx.findAttachment({ projectId: project.id, path: to })) throw new StalePlan();
          moved = await moveRecord(ctx, tx, { project, current: now, to, changesetId });
        },
      });
    } catch (error) {
      if (isRecordConflict(error, 'attachment_path')) throw new StalePlan();
      throw error;
    }
    return { ...toAttachmentView(moved!), rewritten };
  });
}
