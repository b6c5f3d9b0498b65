/** Bounds of the history endpoints (extensions §5), each written once. */
export const HISTORY_LIMITS = {
  /** Revisions in one page of `GET …/revisions` when `limit` is not given. */
  revisionsPageDefault: 100,
  /** The largest `limit` of that list (as many as `keep_revisions` can keep). */
  revisionsPageMax: 1000,
  /**
   * The largest revision number: what every store's revision column holds (Postgres `INTEGER`). A
   * larger one in a body, a path or a query is 422, never a value a store cannot compare.
   */
  revisionMax: 2_147_483_647,
} as const;
