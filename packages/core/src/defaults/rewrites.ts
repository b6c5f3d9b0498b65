/**
 * The bounds of a move with `rewrite_links` (extensions §9; issue 34), dry run or not, defined once.
 * Both are known from the link index and the file records before any content is read: past either the
 * move is refused (409 `work_budget`), nothing read or written.
 */
export const REWRITE_LIMITS = {
  /**
   * Links the move may have to look at: the links naming the file's old or new name (read with this
   * `LIMIT` + 1 from the index, each name's query apart) and the moved file's own links.
   */
  maxLinks: 10_000,
  /**
   * Bytes of the files to rewrite (their recorded sizes, read and rewritten one at a time), as a
   * multiple of `maxFileBytes`: the changeset's own bound on content (`CHANGESET_LIMITS.contentFactor`).
   */
  bytesFactor: 4,
  /** Links planned between two turns of the event loop (about ten milliseconds of work). */
  linksPerTurn: 500,
} as const;
