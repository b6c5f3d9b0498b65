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

/**
 * The bounds of `GET …/files/{filename}/links` and the MCP tool `links` (extensions §9): one page holds
 * at most `limit` links, its outgoing links first (seq order), then its incoming ones (source then line
 * order), with a `next_cursor` while there are more. The default holds every link of an ordinary file,
 * so a client that reads only the first page sees what it saw before the lists were paged.
 */
export const FILE_LINK_LIMITS = {
  pageDefault: 1000,
  pageMax: 5000,
  /**
   * Candidate incoming links read per page at most (links naming the file that may resolve to another
   * one: a wiki link's bare name shared by several files): past it the page ends early, with a cursor.
   */
  scanPerPage: 5000,
  /**
   * Delete File's `if_unreferenced` (extensions §9): the 409 names at most this many referring files,
   * the first in filename order; links are read in windows of `referrerWindow`, at most
   * `referrerScanMax` link rows in all (issue 34): past them the referrers found so far are the answer,
   * or, when none was found yet, the delete is refused (409 `work_budget`) rather than judged blind.
   */
  referrersMax: 100,
  referrerWindow: 512,
  referrerScanMax: 16_384,
} as const;
