/** The bounds of the link endpoints (extensions §9), defined once. */
export const LINK_LIMITS = {
  /** `limit` of the broken-links and orphans pages. */
  pageDefault: 100,
  pageMax: 1000,
  /**
   * Links (broken links) or files (orphans) one page reads at most: a page may come back shorter than
   * `limit`, with a `next_cursor`, so that a project with few broken links is never scanned whole by
   * one request.
   */
  scanPerPage: 5000,
  /** Links resolved per store round trip. */
  batch: 500,
  /**
   * The links a broken-links page reads per round trip: the first window that holds `limit`, then the
   * next ones (few distinct sizes: a store may write them into its statements).
   */
  pageWindows: [125, 500, 2000] as readonly number[],
} as const;
