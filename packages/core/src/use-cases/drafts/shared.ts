import * as v from 'valibot';
import { InvalidInputError, mdStoreError } from '../../errors.js';
import type { ChangeEventType } from '../../model/changes.js';
import type { DraftFileRecord, DraftRecord, DraftReviewRecord, ProjectRecord } from '../../model/records.js';
import type { RecordsReader, RecordsTransaction } from '../../ports/records.js';
import { issueAt } from '../../validation/issues.js';
import { UuidSchema } from '../../validation/schemas.js';
import type { MdStoreContext } from '../context.js';

/** Drafts (extensions §13): what every draft use case shares. */

/** A draft's file as answered: never its content (read it with `GET …/files/{filename}`). */
export interface DraftFileView {
  readonly filename: string;
  readonly op: DraftFileRecord['op'];
  readonly baseEtag: string | null;
  readonly to: string | null;
}

export interface DraftReviewView {
  readonly id: string;
  readonly verdict: DraftReviewRecord['verdict'];
  readonly comment: string;
  readonly keyId: string | null;
  readonly createdAt: number;
}

export interface DraftSummaryView {
  readonly id: string;
  readonly projectId: string;
  readonly title: string;
  readonly description: string | null;
  readonly state: DraftRecord['state'];
  readonly authorKeyId: string | null;
  readonly changesetId: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export interface DraftView extends DraftSummaryView {
  readonly files: readonly DraftFileView[];
  readonly reviews: readonly DraftReviewView[];
}

export const toDraftSummary = (draft: DraftRecord): DraftSummaryView => ({
  id: draft.id,
  projectId: draft.projectId,
  title: draft.title,
  description: draft.description,
  state: draft.state,
  authorKeyId: draft.authorKeyId,
  changesetId: draft.changesetId,
  createdAt: draft.createdAt,
  updatedAt: draft.updatedAt,
});

export const toDraftFileView = (file: DraftFileRecord): DraftFileView => ({
  filename: file.filename,
  op: file.op,
  baseEtag: file.baseEtag,
  to: file.to,
});

export const toDraftReviewView = (review: DraftReviewRecord): DraftReviewView => ({
  id: review.id,
  verdict: review.verdict,
  comment: review.comment,
  keyId: review.keyId,
  createdAt: review.createdAt,
});

/** The draft `rawId` of `project` (422 for a malformed id; 404 for none, or another project's). */
export async function loadDraft(
  records: RecordsReader,
  project: ProjectRecord,
  rawId: string,
): Promise<DraftRecord> {
  const parsed = v.safeParse(UuidSchema, rawId);
  if (!parsed.success) throw new InvalidInputError([issueAt(['path', 'draft_id'], 'uuid')]);
  const draft = await records.findDraft({ draftId: parsed.output });
  if (!draft || draft.projectId !== project.id)
    throw mdStoreError('DRAFT_NOT_FOUND', { draftId: parsed.output });
  return draft;
}

export function assertOpen(draft: DraftRecord): void {
  if (draft.state !== 'open') throw mdStoreError('DRAFT_NOT_OPEN', { state: draft.state });
}

/**
 * Inside a draft's write transaction, once the project is locked: the draft as stored, which must be the
 * one the request read (same `updatedAt`, which every write moves forward), else the request starts over
 * (`StaleDraft`); and open.
 */
export async function lockedDraft(tx: RecordsTransaction, read: DraftRecord): Promise<DraftRecord> {
  await tx.lockProject({ projectId: read.projectId });
  const now = await tx.findDraft({ draftId: read.id });
  if (!now || now.updatedAt !== read.updatedAt) throw new StaleDraft();
  assertOpen(now);
  return now;
}

/** The draft changed between the request's read and its transaction: read again. */
export class StaleDraft extends Error {
  constructor() {
    super('The draft changed while the request was working on it');
  }
}

/** Attempts of a draft write whose draft keeps changing under it. */
export const DRAFT_WRITE_ATTEMPTS = 5;

/** Runs `work` again while it finds the draft changed under it (`StaleDraft`), at most a few times. */
export async function retryStale<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof StaleDraft) || attempt >= DRAFT_WRITE_ATTEMPTS) throw error;
    }
  }
}

/** A draft's next `updatedAt`: now, but always after the last one (it is the draft's version). */
export const nextUpdate = (ctx: MdStoreContext, draft: DraftRecord): number =>
  Math.max(ctx.clock.now(), draft.updatedAt + 1);

/** A draft event (extensions §13): no file; `changeset_id` the publish's for `draft.published`. */
export async function emitDraftEvent(
  ctx: MdStoreContext,
  tx: RecordsTransaction,
  o: { draft: DraftRecord; type: Extract<ChangeEventType, `draft.${string}`>; changesetId?: string },
): Promise<void> {
  await tx.appendChangeEvents({
    events: [
      {
        accountId: o.draft.accountId,
        type: o.type,
        projectId: o.draft.projectId,
        filename: null,
        from: null,
        revision: null,
        etag: null,
        sizeBytes: null,
        sha256: null,
        changesetId: o.changesetId ?? null,
        at: ctx.clock.now(),
      },
    ],
  });
}
