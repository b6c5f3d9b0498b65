import { DRAFT_LIMITS, FileOperationSchema } from '@mdstore/core';
import * as v from 'valibot';

/** The shapes of drafts (extensions §13). */

const described = <S extends v.GenericSchema>(schema: S, description: string) =>
  v.pipe(schema, v.description(description));

const Operations = (min: number) =>
  described(
    v.pipe(v.array(FileOperationSchema), v.minLength(min), v.maxLength(DRAFT_LIMITS.maxOperationsPerRequest)),
    'Operations as in a changeset (§9), staged on the draft in order; each sees the earlier ones.',
  );

export const DraftCreate = v.object({
  title: v.pipe(v.string(), v.minLength(1), v.maxLength(DRAFT_LIMITS.titleMaxLength)),
  description: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(DRAFT_LIMITS.descriptionMaxLength)))),
  operations: v.optional(Operations(0)),
});

export const DraftOperations = v.object({ operations: Operations(1) });

export const DraftReviewCreate = v.object({
  verdict: v.picklist(['approve', 'request_changes']),
  comment: v.optional(v.pipe(v.string(), v.maxLength(DRAFT_LIMITS.commentMaxLength))),
});

const State = v.picklist(['open', 'published', 'closed']);

export const DraftFile = v.object({
  filename: v.string(),
  op: v.picklist(['put', 'edit', 'delete', 'move']),
  base_etag: described(
    v.nullable(v.string()),
    'The ETag the file had when the draft first touched it; null: it did not exist.',
  ),
  to: described(v.nullable(v.string()), 'The new name of a move.'),
});

export const DraftReview = v.object({
  id: v.string(),
  verdict: v.picklist(['approve', 'request_changes']),
  comment: v.string(),
  key_id: v.nullable(v.string()),
  created_date: v.string(),
});

const summaryEntries = {
  id: v.string(),
  project_id: v.string(),
  title: v.string(),
  description: v.nullable(v.string()),
  state: State,
  author_key_id: v.nullable(v.string()),
  changeset_id: described(v.nullable(v.string()), 'The changeset of its publish; null until published.'),
  created_date: v.string(),
  updated_date: v.string(),
};

export const DraftSummary = v.object(summaryEntries);

export const Draft = v.object({
  ...summaryEntries,
  files: v.array(DraftFile),
  reviews: v.array(DraftReview),
});

export const DraftList = v.object({
  drafts: v.array(DraftSummary),
  next_cursor: described(v.nullable(v.string()), 'The next page, or null on the last.'),
});

export const DraftFileDiff = v.object({
  filename: v.string(),
  op: v.picklist(['put', 'edit', 'delete', 'move']),
  to: v.nullable(v.string()),
  base_etag: v.nullable(v.string()),
  current_etag: described(v.nullable(v.string()), 'The file’s ETag now; null: it does not exist.'),
  stale: described(v.boolean(), 'The file changed since the draft’s base: publishing merges it.'),
  diff: described(
    v.nullable(v.string()),
    'Unified diff from the base to the draft’s text; null when too large.',
  ),
  diff_too_large: v.boolean(),
  base_missing: described(
    v.boolean(),
    'The base revision is no longer kept: the diff is from an empty text.',
  ),
});

export const DraftDiff = v.object({
  files: v.array(DraftFileDiff),
  next_cursor: v.nullable(v.string()),
});

export const DRAFT_COMPONENTS = {
  DraftCreate,
  DraftOperations,
  DraftReviewCreate,
  DraftFile,
  DraftReview,
  DraftSummary,
  Draft,
  DraftList,
  DraftFileDiff,
  DraftDiff,
} as const;
