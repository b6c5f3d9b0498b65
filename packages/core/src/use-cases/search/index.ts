export { backfillSearchIndex, type SearchBackfillReport } from './backfill.js';
export { SEARCH_SORTS, type SearchOrder, type SearchSort } from './request.js';
export { type SearchAnswer, type SearchInput, type SearchResult, searchFiles } from './search.js';
