/**
 * The bounds of search by meaning (extensions §15). Documented in docs/api.md ("Search by meaning") and
 * docs/architecture.md ("The semantic indexer").
 */
export const SEMANTIC_LIMITS = {
  /** A chunk holds at most this many code points of text (its heading line included). */
  chunkMaxCodePoints: 2_000,
  /** At most this many chunks per file are embedded (the first ones); the rest of the file is not. */
  chunkMaxPerFile: 256,
  /** Texts per call of the embedder. */
  embedBatch: 64,
  /** Change events read per account and indexer step. */
  feedBatch: 100,
  /**
   * Chunk rows one transaction deletes at most when a project that is no longer active loses its chunks
   * (`deleteProjectChunks`), like `PROJECT_DELETION_LIMITS.batchRows` for its records.
   */
  chunkDeleteBatchRows: 500,
  /**
   * Full such batches one indexer step deletes at most for an account's deleted projects (plus one
   * last, smaller batch per project, which finds it empty); past them the step keeps the account's
   * position (the deletion events are handled again) and the next step deletes on.
   */
  chunkDeleteStepBatches: 4,
  /** How long an indexer holds an account's lease without renewing it. */
  leaseMs: 60_000,
  /**
   * Stored chunk vectors one search examines at most (an exact scan: no vector index). Past it the
   * answer says `truncated`, like the full-text scan's bounds.
   */
  vectorScanMaxRows: 20_000,
  /** Bytes of stored vectors one search reads at most (a 1536-dimension vector is 6 KiB). */
  vectorScanMaxBytes: 64 * 1024 * 1024,
  /** Chunk rows read per store call of the scan. */
  vectorScanBatch: 500,
  /**
   * Vector lists (an inverted-file index, `semantic/lists.ts`): an account's chunks of a model are
   * filed in lists once it has this many; below, every search reads them all (exact).
   */
  listsTrainAt: 16_384,
  /** Lists (centroids) trained. */
  listsCount: 256,
  /** Chunks sampled (by their hash, so every store picks the same ones) to train the lists. */
  listsSample: 4_096,
  /** Rounds of k-means. */
  listsIterations: 8,
  /**
   * A search reads the lists nearest its query, `listsProbeBatch` at a time (one: a list is one range of
   * the index, read in its order by SQLite and Postgres alike, where several lists would need a sort),
   * until it has compared at least `listsProbeRows` chunks its filter accepts (then the rest are farther
   * away; approximate) or every list was read (exact), within the scan's row and byte bounds.
   */
  listsProbeRows: 4_096,
  listsProbeBatch: 1,
  /** Searched projects holding fewer chunks than this are read whole (exact), lists or not. */
  listsExactBelow: 8_192,
  /** Chunks filed per transaction when the lists are new. */
  listsAssignBatch: 500,
  /** The k of reciprocal rank fusion (extensions §15). */
  rrfK: 60,
  /** Pending events the status counts at most (`pending` is at most this). */
  statusMaxPending: 1_000,
  /** Code points of a hit's `snippet` (the best chunk's text). */
  snippetMaxCodePoints: 240,
} as const;
