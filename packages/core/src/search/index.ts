/** The finding domain (extensions §3): pure, shared by every store so that a query finds the same files. */
export { ContentTextCollector, truncateUtf8 } from './content-text.js';
export { type CursorBinding, type CursorKey, canonicalJson, decodeCursor, encodeCursor } from './cursor.js';
export { fileSearchDocument } from './file-document.js';
export * from './filter/ast.js';
export { parseInstant } from './filter/dates.js';
export { evaluateFilter } from './filter/evaluate.js';
export { jsonCompare, jsonEqual } from './filter/json.js';
export { parseFilter } from './filter/parse.js';
export {
  type FilterPlan,
  holdsNarrowing,
  holdsPushdown,
  type JsonNarrowing,
  type NumericField,
  type PushdownColumns,
  type PushdownCondition,
  planFilter,
} from './filter/pushdown.js';
export { type FrontmatterObject, parseFrontmatter } from './frontmatter.js';
export {
  type IndexDocumentInput,
  type IndexedDocument,
  type IndexedToken,
  indexDocument,
  indexedContentText,
  META_VALUE_GAP,
  SEARCH_FIELDS,
  type SearchField,
  searchableContentText,
} from './index-document.js';
export { SEARCH_ISSUE } from './issues.js';
export { SEARCH_LIMITS } from './limits.js';
export { matchesQuery } from './match.js';
export { normalizeText } from './normalize.js';
export { parseQuery, type QueryTerm, type SearchQuery } from './query.js';
export { FIELD_WEIGHTS, type RankStats, rankStats, scoreDocuments, scoreStats } from './rank.js';
export { type Snippet, type SnippetOptions, snippets } from './snippets.js';
export {
  FTS_FILLER,
  fts5ColumnText,
  fts5MatchExpression,
  tsqueryLiteral,
  tsvectorLiteral,
} from './sql-index.js';
export { ftsTerm, type Token, type TokenizeOptions, tokenize, wordOfFtsTerm } from './tokenize.js';
