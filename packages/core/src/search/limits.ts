/**
 * The bounds of the finding domain (extensions §3), each written once. Adapters read them from here so
 * that every store indexes and answers within the same limits.
 */
export const SEARCH_LIMITS = {
  /**
   * A word longer than this is indexed and queried by its first 64 code points (after normalisation):
   * 256 bytes of UTF-8 at most, 512 characters once hex-encoded by `ftsTerm`, well under Postgres's
   * 2 KiB lexeme limit.
   */
  maxTokenCodePoints: 64,
  /** Of each file's content, the first 1 MiB of UTF-8 and the first 16 000 words are indexed. */
  contentMaxBytes: 1024 * 1024,
  contentMaxWords: 16_000,
  /**
   * The `meta` field (string values of metadata and front matter) holds positions 0..15 999, like the
   * content, so that every position fits Postgres's tsvector positions (at most 16 383).
   */
  metaMaxPositions: 16_000,
  /** Objects and arrays deeper than this are not walked for `meta` (metadata is at most 32 deep). */
  metaMaxDepth: 32,
  /** Nodes (values, keys excluded) walked for `meta` at most: a bound for callers outside validation. */
  metaMaxNodes: 100_000,
  queryMaxCodePoints: 1000,
  queryMaxWords: 32,
  /** `word*` needs this many code points of the normalised word before the `*`. */
  prefixMinCodePoints: 2,
  filterMaxConditions: 50,
  filterMaxLevels: 8,
  /** Bytes of UTF-8 of any string in a filter (values, object keys inside values, field paths). */
  filterMaxStringBytes: 1024,
  filterMaxInValues: 100,
  /** Keys in a metadata/front matter path; deeper paths cannot exist in 32-level objects. */
  filterMaxPathKeys: 32,
  /** Nesting of objects and arrays inside a condition's value. */
  filterMaxValueDepth: 32,
  frontmatterMaxBytes: 64 * 1024,
  frontmatterMaxAliases: 100,
  frontmatterMaxDepth: 32,
  /**
   * Values (scalars and collections) a front matter block may expand to. A 64 KiB block without
   * aliases cannot hold more than about 32 000, so only alias expansion reaches this.
   */
  frontmatterMaxNodes: 65_536,
  cursorMaxLength: 2048,
  /** `limit` of a search: 1–100, 20 when not given. */
  searchDefaultLimit: 20,
  searchMaxLimit: 100,
  /** `total_count` counts matches up to this; relevance ranks the first this many matches. */
  searchMaxCount: 10_000,
  searchMaxProjectIds: 100,
  /** Candidates a search reads from its store at a time (fewer when they carry their text). */
  searchBatch: 500,
  searchTextBatch: 50,
  /**
   * Words (of all fields) the documents kept between searches may hold in all, about 150 bytes each
   * with their lookups: some 75 MB at most per process.
   */
  documentCacheMaxTokens: 500_000,
  snippetMax: 3,
  snippetMaxCodePoints: 240,
} as const;
