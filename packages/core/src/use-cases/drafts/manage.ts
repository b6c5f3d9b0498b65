import { DRAFT_LIMITS } from '../../defaults/drafts.js';
import { mdStoreError, OperationNotAllowedError } from '../../errors.js';
import type { DraftFileRecord, DraftRecord, DraftReviewRecord, DraftState } from '../../model/records.js';
import { decodeCursor, encodeCursor } from '../../search/cursor.js';
import { invalidAt } from '../../search/issues.js';
import {
  parseAddDraftOperationsBody,
  parseCreateDraftBody,
  parseDraftReviewBody,
  parseDraftStateQuery,
} from '../../validation/drafts.js';
import { parsePageLimit } from '../../validation/history.js';
import { loadOwnedProject, roleCovers } from '../access.js';
import type { Principal } from '../authentication.js';
import type { MdStoreContext } from '../context.js';
import { type BodyOf, deferred } from '../deferred-body.js';
import {
  assertOpen,
  type DraftSummaryView,
  type DraftView,
  emitDraftEvent,
  loadDraft,
  lockedDraft,
  nextUpdate,
  retryStale,
  toDraftFileView,
  toDraftReviewView,
  toDraftSummary,
} from './shared.js';
import { stageOperations } from './stage.js';

/**
 * Drafts (extensions §13): opened by `propose`, `write` or `admin` keys, with operations staged as
 * `stage.ts` says; listed, read, reviewed (`write`), closed (by their author, or a `write` key). Every
 * write locks the project, checks the draft is the one it read and still open, and commits its event
 * (`draft.opened`, `draft.updated`, `draft.closed`) with it.
 */

export interface DraftRequest {
  readonly principal: Principal;
  readonly projectId: string;
  readonly draftId: string;
  readonly signal?: AbortSignal;
}

/** The whole draft as answered: its files (never their content) and reviews. */
export async function draftView(ctx: MdStoreContext, draft: DraftRecord): Promise<DraftView> {
  const [files, reviews] = await Promise.all([
    ctx.records.listDraftFiles({ draftId: draft.id, limit: DRAFT_LIMITS.maxFiles }),
    ctx.records.listDraftReviews({ draftId: draft.id, limit: DRAFT_LIMITS.maxReviews }),
  ]);
  return draftViewOf(draft, files, reviews);
}

/** The view of a draft whose files and reviews are known (a publish reads them before its commit). */
export const draftViewOf = (
  draft: DraftRecord,
  files: readonly DraftFileRecord[],
  reviews: readonly DraftReviewRecord[],
): DraftView => ({
  ...toDraftSummary(draft),
  files: files.map(toDraftFileView),
  reviews: reviews.map(toDraftReviewView),
});

/** `POST …/drafts`: a new open draft, with its operations staged (none is fine). */
export async function createDraft(
  ctx: MdStoreContext,
  input: { principal: Principal; projectId: string; body: BodyOf<unknown>; signal?: AbortSignal },
): Promise<DraftView> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const body = deferred<unknown>(input.body);
  body.check();
  const fields = parseCreateDraftBody(await body.read());
  const max = DRAFT_LIMITS.maxOpenPerProject;
  const full = async (count: Promise<number>) => {
    if ((await count) >= max) throw mdStoreError('COUNT_LIMIT_REACHED', { what: 'open drafts', max });
  };
  // Refused early (before any content is worked on), and again under the project lock.
  await full(ctx.records.countDrafts({ projectId: project.id, state: 'open' }));
  const at = ctx.clock.now();
  const draft: DraftRecord = {
    id: ctx.ids.uuid(),
    accountId: project.accountId,
    projectId: project.id,
    title: fields.title,
    description: fields.description,
    state: 'open',
    authorKeyId: input.principal.keyId,
    changesetId: null,
    createdAt: at,
    updatedAt: at,
  };
  const staged = await stageOperations(ctx, {
    project,
    draftId: draft.id,
    existing: [],
    operations: fields.operations,
    signal: input.signal,
  });
  await ctx.records.withTransaction(async (tx) => {
    await tx.lockProject({ projectId: project.id });
    await full(tx.countDrafts({ projectId: project.id, state: 'open' }));
    await tx.insertDraft({ draft });
    for (const file of staged.rows) await tx.putDraftFile({ file });
    await emitDraftEvent(ctx, tx, { draft, type: 'draft.opened' });
  });
  return { ...toDraftSummary(draft), files: staged.rows.map(toDraftFileView), reviews: [] };
}

/** `POST …/drafts/{id}/operations`: more operations, staged on the draft's files as they are. */
export async function addDraftOperations(
  ctx: MdStoreContext,
  input: DraftRequest & { body: BodyOf<unknown> },
): Promise<DraftView> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const body = deferred<unknown>(input.body);
  body.check();
  const first = await loadDraft(ctx.records, project, input.draftId);
  assertOpen(first);
  const operations = parseAddDraftOperationsBody(await body.read());
  const updated = await retryStale(async () => {
    const draft = (await ctx.records.findDraft({ draftId: first.id }))!;
    assertOpen(draft);
    const existing = await ctx.records.listDraftFiles({ draftId: draft.id, limit: DRAFT_LIMITS.maxFiles });
    const staged = await stageOperations(ctx, {
      project,
      draftId: draft.id,
      existing,
      operations,
      signal: input.signal,
    });
    return ctx.records.withTransaction(async (tx) => {
      const locked = await lockedDraft(tx, draft);
      const next = { ...locked, updatedAt: nextUpdate(ctx, locked) };
      for (const file of staged.rows) await tx.putDraftFile({ file });
      await tx.updateDraft({ draft: next });
      await emitDraftEvent(ctx, tx, { draft: next, type: 'draft.updated' });
      return next;
    });
  });
  return draftView(ctx, updated);
}

export interface DraftPage {
  readonly drafts: readonly DraftSummaryView[];
  readonly nextCursor: string | null;
}

const CURSOR_LOC = ['query', 'cursor'] as const;

/** `GET …/drafts` (`state`, `limit`, `cursor`): newest first, by keyset. */
export async function listDrafts(
  ctx: MdStoreContext,
  input: { principal: Principal; projectId: string; state?: string; limit?: string; cursor?: string },
): Promise<DraftPage> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const state: DraftState | undefined = parseDraftStateQuery(input.state);
  const limit = parsePageLimit(input.limit, {
    fallback: DRAFT_LIMITS.pageDefault,
    max: DRAFT_LIMITS.pageMax,
  });
  const binding = {
    list: 'drafts',
    account: input.principal.accountId,
    project: project.id,
    state: state ?? null,
  };
  let after: { createdAt: number; id: string } | undefined;
  if (input.cursor !== undefined) {
    const payload = (await decodeCursor(input.cursor, binding, ctx.cursorKey, CURSOR_LOC)) as {
      c?: unknown;
      i?: unknown;
    } | null;
    if (typeof payload?.c !== 'number' || typeof payload.i !== 'string')
      throw invalidAt(CURSOR_LOC, 'cursor');
    after = { createdAt: payload.c, id: payload.i };
  }
  const rows = await ctx.records.listDrafts({ projectId: project.id, state, after, limit: limit + 1 });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const nextCursor =
    rows.length > limit && last
      ? await encodeCursor({ c: last.createdAt, i: last.id }, binding, ctx.cursorKey)
      : null;
  return { drafts: page.map(toDraftSummary), nextCursor };
}

/** `GET …/drafts/{id}`. */
export async function getDraft(ctx: MdStoreContext, input: DraftRequest): Promise<DraftView> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  return draftView(ctx, await loadDraft(ctx.records, project, input.draftId));
}

/** `GET …/drafts/{id}/files/{filename}`: the draft's text of a file it puts or edits (404 otherwise). */
export async function readDraftFile(
  ctx: MdStoreContext,
  input: DraftRequest & { filename: string },
): Promise<{ file: DraftFileRecord; text: string }> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const draft = await loadDraft(ctx.records, project, input.draftId);
  const file = await ctx.records.findDraftFile({ draftId: draft.id, filename: input.filename });
  if (!file || file.content === null) throw mdStoreError('FILE_NOT_FOUND', { filename: input.filename });
  return { file, text: file.content };
}

/** `POST …/drafts/{id}/reviews` (`write`): a verdict and a comment on an open draft. */
export async function reviewDraft(
  ctx: MdStoreContext,
  input: DraftRequest & { body: BodyOf<unknown> },
): Promise<DraftView> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const body = deferred<unknown>(input.body);
  body.check();
  const first = await loadDraft(ctx.records, project, input.draftId);
  assertOpen(first);
  const fields = parseDraftReviewBody(await body.read());
  const updated = await retryStale(async () => {
    const draft = (await ctx.records.findDraft({ draftId: first.id }))!;
    return ctx.records.withTransaction(async (tx) => {
      const locked = await lockedDraft(tx, draft);
      const max = DRAFT_LIMITS.maxReviews;
      if ((await tx.listDraftReviews({ draftId: draft.id, limit: max })).length >= max) {
        throw mdStoreError('COUNT_LIMIT_REACHED', { what: 'reviews', max });
      }
      const next = { ...locked, updatedAt: nextUpdate(ctx, locked) };
      const review: DraftReviewRecord = {
        id: ctx.ids.uuid(),
        draftId: draft.id,
        verdict: fields.verdict,
        comment: fields.comment,
        keyId: input.principal.keyId,
        createdAt: next.updatedAt,
      };
      await tx.insertDraftReview({ review });
      await tx.updateDraft({ draft: next });
      await emitDraftEvent(ctx, tx, { draft: next, type: 'draft.updated' });
      return next;
    });
  });
  return draftView(ctx, updated);
}

/** `POST …/drafts/{id}/close`: by its author (any role that may propose) or a `write` key; nothing is published. */
export async function closeDraft(ctx: MdStoreContext, input: DraftRequest): Promise<DraftView> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const first = await loadDraft(ctx.records, project, input.draftId);
  if (first.authorKeyId !== input.principal.keyId && !roleCovers(input.principal.role, 'write')) {
    throw new OperationNotAllowedError();
  }
  assertOpen(first);
  const closed = await retryStale(async () => {
    const draft = (await ctx.records.findDraft({ draftId: first.id }))!;
    return ctx.records.withTransaction(async (tx) => {
      const locked = await lockedDraft(tx, draft);
      const next: DraftRecord = { ...locked, state: 'closed', updatedAt: nextUpdate(ctx, locked) };
      await tx.updateDraft({ draft: next });
      await emitDraftEvent(ctx, tx, { draft: next, type: 'draft.closed' });
      return next;
    });
  });
  return draftView(ctx, closed);
}
