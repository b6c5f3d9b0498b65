/**
 * The cost bounds of one search request (extensions §3; issue 34), defined once. Every bound is checked
 * by the search use case as it goes, before the work it pays for (a store read, a content text read);
 * past it the answer keeps what was found and says so (`truncated`, `snippetsTruncated`), so one
 * request costs at most these whatever the size of the projects searched. See docs/reliability.md,
 * "Cost bounds".
 */
export const SEARCH_COST_LIMITS = {
  /**
   * Index candidates (store rows) one search examines at most. Past it the scan stops and the answer
   * ranks, sorts and counts what was examined, with `truncated: true`. Twice the 10 000 that
   * `total_count` counts up to, so a project of 10 000 files is always searched whole.
   */
  scanMaxRows: 20_000,
  /**
   * Bytes of content text (as indexed: at most 1 MiB per file) one search reads at most to decide and
   * rank its matches. A file's text is paid for before it is read (its size, capped at 1 MiB, from its
   * row); one that would go past it stops the scan (`truncated: true`). Only searches with a query
   * read text (the store's index narrows, the core decides and ranks from the text).
   */
  matchTextMaxBytes: 8 * 1024 * 1024,
  /**
   * Bytes of content text one store round trip of the scan reads at most (a single larger file is read
   * alone): the serving thread tokenizes at most this much between two awaits on its store, so other
   * requests are served in between.
   */
  matchTextBatchBytes: 256 * 1024,
  /**
   * Bytes of content text one page reads at most for its snippets, paid for in answer order; the
   * results past it keep their place with `snippets: []`, and the answer has `snippetsTruncated: true`.
   */
  snippetTextMaxBytes: 2 * 1024 * 1024,
  /**
   * Indexed words a query's `word*` prefixes expand to at most, all its prefixes together (shared
   * evenly), on a store whose index expands prefixes over its vocabulary (SQLite's FTS5, Postgres's
   * `tsvector` index with its word list `search_words`): the search
   * asks the store for the words first, at most this many, and hands the engine those words instead of
   * the prefix. A prefix with more words than its share keeps the first ones (in UTF-8 order) and the
   * answer says `truncated: true`.
   */
  prefixMaxTerms: 512,
} as const;
