/** Bounds of the history endpoints (extensions §5), each written once. */
export const HISTORY_LIMITS = {
  /** Revisions in one page of `GET …/revisions` when `limit` is not given. */
  revisionsPageDefault: 100,
  /** The largest `limit` of that list (as many as `keep_revisions` can keep). */
  revisionsPageMax: 1000,
} as const;
