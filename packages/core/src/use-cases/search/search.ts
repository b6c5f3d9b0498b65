import type { FileRecord, ProjectRecord } from '../../model/records.js';
import { canonicalJson, decodeCursor, encodeCursor } from '../../search/cursor.js';
import { planFilter } from '../../search/filter/pushdown.js';
import { invalidAt } from '../../search/issues.js';
import { SEARCH_LIMITS } from '../../search/limits.js';
import { scoreDocuments } from '../../search/rank.js';
import { type Snippet, snippets } from '../../search/snippets.js';
import type { SearchAllRequestInput, SearchRequestInput } from '../../validation/bodies.js';
import { compareCodePoints } from '../../validation/text.js';
import { inKeyScope, loadOwnedProject } from '../access.js';
import type { Principal } from '../authentication.js';
import type { MdStoreContext } from '../context.js';
import { type BodyOf, deferred } from '../deferred-body.js';
import { type FileView, toFileView } from '../views.js';
import { parseSearchRequest, type SearchRequest } from './request.js';
import { type Match, scanMatches } from './scan.js';

export interface SearchResult {
  readonly file: FileView;
  readonly score: number | null;
  readonly snippets: readonly Snippet[];
}

export interface SearchAnswer {
  readonly results: readonly SearchResult[];
  readonly totalCount: number;
  readonly nextCursor: string | null;
}

export interface SearchInput {
  readonly principal: Principal;
  /** The project of `/api/projects/{id}/search`; absent for `/api/search`. */
  readonly projectId?: string;
  /** The JSON body, or (HTTP) a deferred one, read once the projects have been checked. */
  readonly body: BodyOf<SearchRequestInput | SearchAllRequestInput>;
}

/** A match in answer order, with its sort key (the score for relevance). */
interface Ranked {
  readonly match: Match;
  readonly key: number | string;
}

/** Where a page starts: after the entry with this key, filename and project. */
interface Position {
  readonly k: number | string;
  readonly f: string;
  readonly p: string;
}

const CURSOR_LOC = ['body', 'cursor'] as const;

/**
 * Search (extensions §3): the projects are checked first (404/403 like every project operation), then
 * the body (422). The matches are found by `scanMatches`, put in answer order (relevance: best first,
 * then filename and project; other sorts: the field in `order`, ties by filename then project in the
 * same direction), and a page is cut after the cursor's position (keyset).
 */
export async function searchFiles(ctx: MdStoreContext, input: SearchInput): Promise<SearchAnswer> {
  const acrossProjects = input.projectId === undefined;
  const single =
    input.projectId === undefined
      ? undefined
      : await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const body = deferred<unknown>(input.body);
  body.check();
  const request = parseSearchRequest(await body.read(), { acrossProjects });
  const projects = single ? [single] : await accountProjects(ctx, input.principal, request.projectIds);
  const projectIds = projects.map((project) => project.id).sort(compareCodePoints);
  const binding = cursorBinding(input.principal, projectIds, request);
  const after =
    request.cursor === null
      ? null
      : positionOf(await decodeCursor(request.cursor, binding, ctx.cursorKey, CURSOR_LOC));
  const plan = planFilter(request.filter);
  const relevance = request.sort === 'relevance';
  const matches = plan.matchesNothing
    ? []
    : await scanMatches(ctx.records, {
        cache: ctx.searchDocuments,
        projectIds,
        query: request.query,
        pushdown: plan.pushdown,
        narrowing: plan.narrowing,
        residual: plan.residual,
        keepDocuments: relevance,
        maxMatches: relevance ? SEARCH_LIMITS.searchMaxCount : Number.POSITIVE_INFINITY,
      });
  const ordered = inAnswerOrder(request, matches);
  const start = after === null ? 0 : ordered.findIndex((entry) => compare(request, entry, after) > 0);
  const page = start < 0 ? [] : ordered.slice(start, start + request.limit);
  const hasMore = start >= 0 && start + request.limit < ordered.length;
  const last = page.at(-1);
  const nextCursor =
    hasMore && last
      ? await encodeCursor(
          { k: last.key, f: last.match.file.filename, p: last.match.file.projectId } satisfies Position,
          binding,
          ctx.cursorKey,
        )
      : null;
  const byId = new Map(projects.map((project) => [project.id, project]));
  return {
    results: await resultsOf(ctx, request, page, byId),
    totalCount: Math.min(matches.length, SEARCH_LIMITS.searchMaxCount),
    nextCursor,
  };
}

/** `/api/search`: the account's active projects, or those of `project_ids` (each must be one, else 404/403). */
async function accountProjects(
  ctx: MdStoreContext,
  principal: Principal,
  ids: readonly string[] | null,
): Promise<ProjectRecord[]> {
  if (ids === null) {
    const all = await ctx.records.listProjects({ accountId: principal.accountId });
    return all.filter((project) => project.status === 'active' && inKeyScope(principal, project.id));
  }
  const unique = [...new Set(ids)];
  return Promise.all(unique.map((id) => loadOwnedProject(ctx.records, principal, id)));
}

/** A cursor is valid only for the same account, projects, query, filter, sort and order. */
const cursorBinding = (principal: Principal, projectIds: readonly string[], request: SearchRequest) => ({
  kind: 'search',
  account: principal.accountId,
  projects: projectIds,
  query: request.queryText,
  filter: canonicalJson(request.rawFilter),
  sort: request.sort,
  order: request.order,
});

function positionOf(payload: unknown): Position {
  const position = payload as Partial<Position> | null;
  const key = position?.k;
  if (
    typeof position !== 'object' ||
    position === null ||
    (typeof key !== 'number' && typeof key !== 'string') ||
    typeof position.f !== 'string' ||
    typeof position.p !== 'string'
  ) {
    throw invalidAt(CURSOR_LOC, 'cursor');
  }
  return position as Position;
}

function sortKey(sort: SearchRequest['sort'], file: FileRecord): number | string {
  switch (sort) {
    case 'filename':
      return file.filename;
    case 'created_date':
      return file.createdAt;
    case 'updated_date':
      return file.updatedAt;
    default:
      return file.sizeBytes;
  }
}

function inAnswerOrder(request: SearchRequest, matches: readonly Match[]): Ranked[] {
  let ranked: Ranked[];
  if (request.sort === 'relevance') {
    const scores = scoreDocuments(
      request.query!,
      matches.map((match) => match.document!),
    );
    ranked = matches.map((match, index) => ({ match, key: scores[index]! }));
  } else {
    ranked = matches.map((match) => ({ match, key: sortKey(request.sort, match.file) }));
  }
  return ranked.sort((a, b) =>
    compare(request, a, { k: b.key, f: b.match.file.filename, p: b.match.file.projectId }),
  );
}

const compareKeys = (a: number | string, b: number | string): number =>
  typeof a === 'number' && typeof b === 'number' ? a - b : compareCodePoints(String(a), String(b));

/** Negative when `entry` comes before `position` in answer order. */
function compare(request: SearchRequest, entry: Ranked, position: Position): number {
  const { file } = entry.match;
  if (request.sort === 'relevance') {
    return (
      compareKeys(position.k, entry.key) ||
      compareCodePoints(file.filename, position.f) ||
      compareCodePoints(file.projectId, position.p)
    );
  }
  const ascending =
    compareKeys(entry.key, position.k) ||
    compareCodePoints(file.filename, position.f) ||
    compareCodePoints(file.projectId, position.p);
  return request.order === 'desc' ? -ascending : ascending;
}

/** The page's File objects, scores (relevance only) and snippets (with a query, from the content). */
async function resultsOf(
  ctx: MdStoreContext,
  request: SearchRequest,
  page: readonly Ranked[],
  projects: ReadonlyMap<string, ProjectRecord>,
): Promise<SearchResult[]> {
  const texts = new Map<string, string>();
  if (request.query !== null && page.length > 0) {
    const candidates = await ctx.records.findSearchCandidates({
      projectIds: [...new Set(page.map((entry) => entry.match.file.projectId))],
      query: null,
      conditions: [],
      fileIds: page.map((entry) => entry.match.file.id),
      withText: true,
      limit: page.length,
    });
    for (const { file, contentText } of candidates) texts.set(file.id, contentText ?? '');
  }
  return page.map(({ match, key }) => ({
    file: toFileView(match.file, projects.get(match.file.projectId)!, ctx.blobs.scheme),
    score: request.sort === 'relevance' ? (key as number) : null,
    snippets: request.query === null ? [] : snippets(texts.get(match.file.id) ?? '', request.query),
  }));
}
