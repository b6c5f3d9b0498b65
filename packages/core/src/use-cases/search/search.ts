import { SEARCH_COST_LIMITS } from '../../defaults/search.js';
import type { FileRecord, ProjectRecord } from '../../model/records.js';
import { canonicalJson, decodeCursor, encodeCursor } from '../../search/cursor.js';
import { planFilter } from '../../search/filter/pushdown.js';
import { invalidAt } from '../../search/issues.js';
import { SEARCH_LIMITS } from '../../search/limits.js';
import { scoreStats } from '../../search/rank.js';
import { type Snippet, snippets } from '../../search/snippets.js';
import { chunkMarkdown } from '../../semantic/chunks.js';
import { SEMANTIC_LIMITS } from '../../semantic/limits.js';
import type { SearchAllRequestInput, SearchRequestInput } from '../../validation/bodies.js';
import { compareCodePoints } from '../../validation/text.js';
import { inKeyScope, inPathScope, loadOwnedProject } from '../access.js';
import type { Principal } from '../authentication.js';
import type { MdStoreContext } from '../context.js';
import { type BodyOf, deferred } from '../deferred-body.js';
import { type FileView, toFileView } from '../views.js';
import { type MeaningOfHit, rankByMeaning } from './meaning.js';
import { parseSearchRequest, type SearchRequest } from './request.js';
import { type Match, scanMatches, textCost } from './scan.js';
import { FirstInOrder } from './top.js';

export interface SearchResult {
  readonly file: FileView;
  readonly score: number | null;
  readonly snippets: readonly Snippet[];
  /**
   * Extensions §15, semantic and hybrid modes only (absent in text mode, whose answers are §3's): the
   * file's 1-based places in the full-text and vector rankings (null when not in one), and its best
   * chunk's heading and text (cut to `snippetMaxCodePoints`; null without a vector hit).
   */
  readonly textRank?: number | null;
  readonly vectorRank?: number | null;
  readonly heading?: string | null;
  readonly snippet?: string | null;
}

export interface SearchAnswer {
  readonly results: readonly SearchResult[];
  readonly totalCount: number;
  readonly nextCursor: string | null;
  /**
   * A cost bound (`SEARCH_COST_LIMITS`: rows examined, content text read) stopped the scan: results,
   * order and `totalCount` are those of the files examined (the first in project and filename order).
   * Present (true) only then: an answer within the bounds is the interface's, unchanged.
   */
  readonly truncated?: true;
  /**
   * Some results of the page have no snippets: their text was past the page's snippet budget. Present
   * (true) only then.
   */
  readonly snippetsTruncated?: true;
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
  /** Semantic and hybrid hits: their ranks and best chunk. */
  readonly meaning?: MeaningOfHit;
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
  const request = parseSearchRequest(await body.read(), {
    acrossProjects,
    meaningOn: ctx.embedder !== undefined,
  });
  const projects = single ? [single] : await accountProjects(ctx, input.principal, request.projectIds);
  const projectIds = projects.map((project) => project.id).sort(compareCodePoints);
  const binding = cursorBinding(input.principal, projectIds, request);
  const after =
    request.cursor === null
      ? null
      : positionOf(await decodeCursor(request.cursor, binding, ctx.cursorKey, CURSOR_LOC));
  const plan = planFilter(request.filter);
  // Extensions §14: to a key confined to folders, the files outside them match nothing (skipped as the
  // scan meets them, within the scan's bounds).
  const reaches = (filename: string) => inPathScope(input.principal, filename);
  if (request.mode !== 'text')
    return searchByMeaning(ctx, request, projects, projectIds, plan, binding, after, reaches);
  const relevance = request.sort === 'relevance';
  // Relevance ranks every match (a few numbers each, at most `searchMaxCount`); the other sorts keep only
  // the page after the cursor, plus one entry to know whether there is more.
  const ranked: Match[] = [];
  const first = new FirstInOrder<Ranked>(request.limit + 1, (a, b) =>
    compare(request, a, positionOfEntry(b)),
  );
  let count = 0;
  const scan = plan.matchesNothing
    ? { rows: 0, textBytes: 0, truncated: false }
    : await scanMatches(ctx.records, {
        cache: ctx.searchDocuments,
        projectIds,
        query: request.query,
        pushdown: plan.pushdown,
        narrowing: plan.narrowing,
        residual: plan.residual,
        rank: relevance,
        onMatch: (match) => {
          if (!reaches(match.file.filename)) return true;
          count += 1;
          if (relevance) {
            ranked.push(match);
            return ranked.length < SEARCH_LIMITS.searchMaxCount;
          }
          const entry = { match, key: sortKey(request.sort, match.file) };
          if (after === null || compare(request, entry, after) > 0) first.offer(entry);
          return true;
        },
      });
  const candidates = relevance ? afterPosition(request, rankedOrder(request, ranked), after) : first.items;
  return answerPage(ctx, request, candidates, { projects, binding, count, truncated: scan.truncated });
}

/** One page of ordered candidates (the first `limit`), its cursor, results and snippets, and the answer. */
async function answerPage(
  ctx: MdStoreContext,
  request: SearchRequest,
  candidates: readonly Ranked[],
  o: {
    projects: readonly ProjectRecord[];
    binding: ReturnType<typeof cursorBinding>;
    count: number;
    truncated: boolean;
  },
): Promise<SearchAnswer> {
  const page = candidates.slice(0, request.limit);
  const last = page.at(-1);
  const nextCursor =
    candidates.length > request.limit && last
      ? await encodeCursor(positionOfEntry(last) satisfies Position, o.binding, ctx.cursorKey)
      : null;
  const byId = new Map(o.projects.map((project) => [project.id, project]));
  const { results, snippetsTruncated } = await resultsOf(ctx, request, page, byId);
  return {
    results,
    totalCount: Math.min(o.count, SEARCH_LIMITS.searchMaxCount),
    nextCursor,
    ...(o.truncated && { truncated: true }),
    ...(snippetsTruncated && { snippetsTruncated: true }),
  };
}

/** Semantic and hybrid search (extensions §15): the ranking of `rankByMeaning`, paged like relevance. */
async function searchByMeaning(
  ctx: MdStoreContext,
  request: SearchRequest,
  projects: readonly ProjectRecord[],
  projectIds: readonly string[],
  plan: ReturnType<typeof planFilter>,
  binding: ReturnType<typeof cursorBinding>,
  after: Position | null,
  reaches: (filename: string) => boolean,
): Promise<SearchAnswer> {
  const ranking = plan.matchesNothing
    ? { hits: [], truncated: false }
    : await rankByMeaning({
        records: ctx.records,
        embedder: ctx.embedder!,
        cache: ctx.searchDocuments,
        accountId: projects[0]?.accountId ?? null,
        projectIds,
        request,
        pushdown: plan.pushdown,
        narrowing: plan.narrowing,
        residual: plan.residual,
        reaches,
      });
  const ordered: Ranked[] = ranking.hits.map((hit) => ({
    match: { file: hit.file, stats: null },
    key: hit.score,
    meaning: hit.meaning,
  }));
  return answerPage(ctx, request, afterPosition(request, ordered, after), {
    projects,
    binding,
    count: ranking.hits.length,
    truncated: ranking.truncated,
  });
}

const positionOfEntry = (entry: Ranked): Position => ({
  k: entry.key,
  f: entry.match.file.filename,
  p: entry.match.file.projectId,
});

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
  // Only semantic and hybrid cursors name their mode: text cursors stay those of §3.
  ...(request.mode !== 'text' && { mode: request.mode }),
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

/** The matches ranked best first (ties by filename, then project). */
function rankedOrder(request: SearchRequest, matches: readonly Match[]): Ranked[] {
  const scores = scoreStats(
    request.query!,
    matches.map((match) => match.stats!),
  );
  return matches
    .map((match, index) => ({ match, key: scores[index]! }))
    .sort((a, b) => compare(request, a, positionOfEntry(b)));
}

/** The entries after the cursor's position (all of them without one). */
function afterPosition(request: SearchRequest, ordered: readonly Ranked[], after: Position | null): Ranked[] {
  if (after === null) return [...ordered];
  const start = ordered.findIndex((entry) => compare(request, entry, after) > 0);
  return start < 0 ? [] : ordered.slice(start);
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

/**
 * The page's File objects, scores (relevance only) and snippets (with a query, from the content). The
 * content text read for snippets is paid for in answer order, within `snippetTextMaxBytes`: a result
 * whose text would go past it keeps its place with no snippets, and `snippetsTruncated` says so.
 */
async function resultsOf(
  ctx: MdStoreContext,
  request: SearchRequest,
  page: readonly Ranked[],
  projects: ReadonlyMap<string, ProjectRecord>,
): Promise<{ results: SearchResult[]; snippetsTruncated: boolean }> {
  const texts = new Map<string, string>();
  let snippetsTruncated = false;
  if (request.query !== null && page.length > 0) {
    const read: FileRecord[] = [];
    let spent = 0;
    for (const { match } of page) {
      const cost = textCost(match.file);
      if (spent + cost > SEARCH_COST_LIMITS.snippetTextMaxBytes) {
        snippetsTruncated = true;
        continue;
      }
      spent += cost;
      read.push(match.file);
    }
    const candidates =
      read.length === 0
        ? []
        : await ctx.records.findSearchCandidates({
            projectIds: [...new Set(read.map((file) => file.projectId))],
            query: null,
            conditions: [],
            fileIds: read.map((file) => file.id),
            withText: true,
            limit: read.length,
          });
    for (const { file, contentText } of candidates) texts.set(file.id, contentText ?? '');
  }
  const results = page.map(({ match, key, meaning }) => {
    const text = texts.get(match.file.id);
    const result: SearchResult = {
      file: toFileView(match.file, projects.get(match.file.projectId)!, ctx.blobs.scheme),
      score: request.sort === 'relevance' ? (key as number) : null,
      snippets: request.query === null ? [] : snippets(text ?? '', request.query),
    };
    if (meaning === undefined) return result;
    return {
      ...result,
      textRank: meaning.textRank,
      vectorRank: meaning.vectorRank,
      heading: meaning.heading,
      snippet: chunkSnippet(text, meaning.chunkHash),
    };
  });
  return { results, snippetsTruncated };
}

/**
 * The text of the chunk with this hash in the file's text as stored now, cut to `snippetMaxCodePoints`
 * (whole words where possible); null when there is none (no vector hit, the text was past the snippet
 * budget, or the file changed since it was embedded and the chunk is gone).
 */
function chunkSnippet(text: string | undefined, hash: string | null): string | null {
  if (text === undefined || hash === null) return null;
  const chunk = chunkMarkdown(text).find((candidate) => candidate.hash === hash);
  if (chunk === undefined) return null;
  const points = [...chunk.text];
  const max = SEMANTIC_LIMITS.snippetMaxCodePoints;
  if (points.length <= max) return chunk.text;
  const head = points.slice(0, max - 1).join('');
  const space = head.search(/\s\S*$/);
  return `${space > max / 2 ? head.slice(0, space) : head}…`;
}
