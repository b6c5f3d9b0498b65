import type { Filter } from '../../search/filter/ast.js';
import { parseFilter } from '../../search/filter/parse.js';
import { invalidAt, type Loc } from '../../search/issues.js';
import { SEARCH_LIMITS } from '../../search/limits.js';
import { parseQuery, type SearchQuery } from '../../search/query.js';

export const SEARCH_SORTS = ['relevance', 'filename', 'created_date', 'updated_date', 'size_bytes'] as const;
export type SearchSort = (typeof SEARCH_SORTS)[number];
export type SearchOrder = 'asc' | 'desc';
export const SEARCH_MODES = ['text', 'semantic', 'hybrid'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

/** A search body (extensions §3) once checked. */
export interface SearchRequest {
  /** The query as sent (part of what a cursor is bound to), and parsed. */
  readonly queryText: string | null;
  readonly query: SearchQuery | null;
  /** The filter as sent (part of what a cursor is bound to), and parsed. */
  readonly rawFilter: unknown;
  readonly filter: Filter | null;
  readonly sort: SearchSort;
  readonly order: SearchOrder;
  readonly limit: number;
  readonly cursor: string | null;
  /** Extensions §15: text (§3), semantic or hybrid. */
  readonly mode: SearchMode;
  /** Only on `/api/search`: the projects to search, as sent (lower case), or null for every one. */
  readonly projectIds: readonly string[] | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const body = (name: string): Loc => ['body', name];
/** A field that is absent or JSON null counts as not given. */
const given = (object: Record<string, unknown>, name: string) =>
  Object.hasOwn(object, name) && object[name] !== null;

/**
 * Checks a search body: every field optional, unknown fields ignored (like the other bodies of the
 * interface), `project_ids` refused where it does not apply. The first problem is a 422 at its `loc`.
 */
export function parseSearchRequest(
  raw: unknown,
  o: { acrossProjects: boolean; meaningOn?: boolean },
): SearchRequest {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalidAt(['body'], 'objectType');
  const input = raw as Record<string, unknown>;
  // Extensions §15: the mode first, so that a server without embeddings says so before anything else.
  const mode = given(input, 'mode') ? oneOf(input.mode, SEARCH_MODES, 'mode', 'modeUnknown') : 'text';
  if (mode !== 'text' && o.meaningOn !== true) throw invalidAt(body('mode'), 'modeOff');
  let queryText: string | null = null;
  let query: SearchQuery | null = null;
  if (given(input, 'query')) {
    query = parseQuery(input.query);
    queryText = input.query as string;
  }
  const filter = given(input, 'filter') ? parseFilter(input.filter) : null;
  const sort = given(input, 'sort') ? oneOf(input.sort, SEARCH_SORTS, 'sort', 'sortUnknown') : null;
  if (mode !== 'text' && query === null) throw invalidAt(body('query'), 'meaningNeedsQuery');
  if (mode !== 'text' && sort !== null && sort !== 'relevance')
    throw invalidAt(body('sort'), 'meaningSortsByRelevance');
  if (sort === 'relevance' && query === null) throw invalidAt(body('sort'), 'relevanceNeedsQuery');
  const order = given(input, 'order')
    ? oneOf(input.order, ['asc', 'desc'] as const, 'order', 'orderUnknown')
    : 'asc';
  const limit = given(input, 'limit') ? parseLimit(input.limit) : SEARCH_LIMITS.searchDefaultLimit;
  let cursor: string | null = null;
  if (given(input, 'cursor')) {
    if (typeof input.cursor !== 'string') throw invalidAt(body('cursor'), 'stringType');
    cursor = input.cursor;
  }
  let projectIds: string[] | null = null;
  if (given(input, 'project_ids')) {
    if (!o.acrossProjects) throw invalidAt(body('project_ids'), 'extraForbidden');
    projectIds = parseProjectIds(input.project_ids);
  }
  return {
    queryText,
    query,
    rawFilter: filter === null ? null : input.filter,
    filter,
    sort: sort ?? (query === null ? 'filename' : 'relevance'),
    order,
    limit,
    cursor,
    mode,
    projectIds,
  };
}

function oneOf<T extends string>(
  value: unknown,
  allowed: readonly T[],
  name: string,
  issue: 'sortUnknown' | 'orderUnknown' | 'modeUnknown',
): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value))
    throw invalidAt(body(name), issue);
  return value as T;
}

function parseLimit(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw invalidAt(body('limit'), 'intType');
  if (value < 1) throw invalidAt(body('limit'), 'limitTooSmall');
  if (value > SEARCH_LIMITS.searchMaxLimit) throw invalidAt(body('limit'), 'limitTooLarge');
  return value;
}

function parseProjectIds(value: unknown): string[] {
  if (!Array.isArray(value)) throw invalidAt(body('project_ids'), 'listType');
  if (value.length > SEARCH_LIMITS.searchMaxProjectIds)
    throw invalidAt(body('project_ids'), 'projectIdsTooLong');
  return value.map((id, index) => {
    if (typeof id !== 'string' || !UUID.test(id)) throw invalidAt(['body', 'project_ids', index], 'uuid');
    return id.toLowerCase();
  });
}
