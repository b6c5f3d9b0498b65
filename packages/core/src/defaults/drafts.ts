import { CHANGESET_LIMITS } from '../validation/changesets.js';

/**
 * The bounds of drafts (extensions §13; issue 34's rule: every list paged, every count bounded). A
 * draft publishes as one changeset, so it holds no more files than a changeset has operations, and the
 * publish's content bound is the changeset's (`maxFileBytes` × 4).
 */
export const DRAFT_LIMITS = {
  /** Files of one draft (one row per filename): the changeset's operations. */
  maxFiles: CHANGESET_LIMITS.maxOperations,
  /** Operations in one request (create or add): the same bound. */
  maxOperationsPerRequest: CHANGESET_LIMITS.maxOperations,
  /** Open drafts of one project: past it, opening one is 409 `COUNT_LIMIT_REACHED`. */
  maxOpenPerProject: 100,
  /** Drafts per page of `GET …/drafts`. */
  pageDefault: 20,
  pageMax: 100,
  /** Files per page of `GET …/drafts/{id}/diff` (each diff bounded by `unifiedDiff`'s work bound). */
  diffPageDefault: 20,
  diffPageMax: 50,
  /** Reviews of one draft: past it, a review is 409 `COUNT_LIMIT_REACHED` (the draft answers them all). */
  maxReviews: 100,
  /** Characters of a title, a description and a review's comment. */
  titleMaxLength: 200,
  descriptionMaxLength: 10_000,
  commentMaxLength: 10_000,
  /** Publishes tried again when a file changes between the merge and the commit (its `if_match` fails). */
  publishAttempts: 3,
} as const;
