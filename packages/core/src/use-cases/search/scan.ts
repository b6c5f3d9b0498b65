import { SEARCH_COST_LIMITS } from '../../defaults/search.js';
import { giveTurn } from '../../markdown/work-budget.js';
import type { FileRecord } from '../../model/records.js';
import type { RecordsReader, SearchPosition } from '../../ports/records.js';
import { fileSearchDocument } from '../../search/file-document.js';
import type { Filter, FilterableFile } from '../../search/filter/ast.js';
import { evaluateFilter } from '../../search/filter/evaluate.js';
import type { JsonNarrowing, PushdownCondition } from '../../search/filter/pushdown.js';
import type { IndexedDocument } from '../../search/index-document.js';
import { SEARCH_LIMITS } from '../../search/limits.js';
import { matchesQuery } from '../../search/match.js';
import type { QueryTerm, SearchQuery } from '../../search/query.js';
import { type RankStats, rankStats } from '../../search/rank.js';
import type { SearchDocumentCache } from './document-cache.js';

/** A file that matched, with what ranking needs of it (relevance only). */
export interface Match {
  readonly file: FileRecord;
  readonly stats: RankStats | null;
}

/** What one scan may spend: store rows examined, content text bytes read. */
export interface ScanBudget {
  readonly rows: number;
  readonly textBytes: number;
}

export interface ScanInput {
  readonly cache: SearchDocumentCache;
  readonly projectIds: readonly string[];
  readonly query: SearchQuery | null;
  readonly pushdown: readonly PushdownCondition[];
  readonly narrowing: readonly JsonNarrowing[];
  readonly residual: Filter | null;
  /** Whether each match comes with its rank statistics (relevance). */
  readonly rank: boolean;
  /** Takes each match, in `(projectId, filename)` order; answering false stops the scan. */
  readonly onMatch: (match: Match) => boolean;
  readonly budget?: ScanBudget;
}

/** What a scan spent, and whether a bound stopped it before the candidates ran out. */
export interface ScanReport {
  readonly rows: number;
  readonly textBytes: number;
  readonly truncated: boolean;
}

const parsed = (json: string | null) =>
  json === null ? null : (JSON.parse(json) as Record<string, unknown>);

export const filterable = (file: FileRecord): FilterableFile => ({
  filename: file.filename,
  sizeBytes: file.sizeBytes,
  createdAt: file.createdAt,
  updatedAt: file.updatedAt,
  revision: file.revision,
  metadata: parsed(file.metadataJson),
  frontmatter: parsed(file.frontmatterJson),
});

/** What reading a file's indexed text may cost, known from its row before it is read. */
export const textCost = (file: FileRecord): number => Math.min(file.sizeBytes, SEARCH_LIMITS.contentMaxBytes);

/**
 * The files of the projects that match, in `(projectId, filename)` order, given one at a time to
 * `onMatch`: the store gives the candidates (its index narrows them for a query, the pushed-down
 * conditions are exact), the core decides (the residual filter by `evaluateFilter`, the query by
 * `matchesQuery`), so every store answers alike. With a query, the candidates' content text is read in
 * small batches whose documents are dropped once matched (ranking keeps `rankStats`, a few numbers): what
 * a scan holds is one store batch of rows and one text batch of documents. Within `budget` (rows examined,
 * text bytes read, each paid for before it is read; one row past the rows budget is read to know whether
 * it cut anything); past it, `truncated`.
 */
export async function scanMatches(records: RecordsReader, input: ScanInput): Promise<ScanReport> {
  const budget = input.budget ?? {
    rows: SEARCH_COST_LIMITS.scanMaxRows,
    textBytes: SEARCH_COST_LIMITS.matchTextMaxBytes,
  };
  const spent = { rows: 0, textBytes: 0 };
  const expanded = input.query === null ? null : await expandPrefixes(records, input.query);
  const report = (truncated: boolean): ScanReport => ({
    ...spent,
    truncated: truncated || expanded?.truncated === true,
  });
  // A prefix that no indexed word has: the query matches nothing.
  if (expanded?.query === 'none') return report(false);
  const storeQuery = expanded?.query ?? null;
  let after: SearchPosition | undefined;
  for (;;) {
    const left = budget.rows - spent.rows;
    // One row past the budget tells whether the bound cut anything; it is read, never examined.
    const limit = Math.min(SEARCH_LIMITS.searchBatch, left + 1);
    const read = await records.findSearchCandidates({
      projectIds: input.projectIds,
      query: storeQuery,
      conditions: input.pushdown,
      narrowing: input.narrowing,
      withText: false,
      limit,
      ...(after && { after }),
    });
    const over = read.length > left;
    const batch = over ? read.slice(0, left) : read;
    spent.rows += batch.length;
    const kept = batch
      .map((candidate) => candidate.file)
      .filter((file) => input.residual === null || evaluateFilter(input.residual, filterable(file)));
    const outcome =
      input.query !== null
        ? await matchWithText(records, input, kept, budget, spent)
        : kept.every((file) => input.onMatch({ file, stats: null }))
          ? 'more'
          : 'stopped';
    if (outcome !== 'more') return report(outcome === 'over');
    if (over) return report(true);
    const last = batch.at(-1);
    if (read.length < limit || last === undefined) return report(false);
    after = { projectId: last.file.projectId, filename: last.file.filename };
  }
}

/**
 * The query the store is asked (issue 34): each `word*` replaced by the indexed words it stands for, at
 * most `SEARCH_COST_LIMITS.prefixMaxTerms` in all (shared evenly by the prefixes), read from the store's
 * vocabulary with that `LIMIT`, so that its engine never expands a prefix over its whole vocabulary.
 * The words only narrow the candidates (`matchesQuery` still decides with the prefix); a prefix with
 * more words than its share keeps the first ones and the scan says `truncated`. Unchanged on a store
 * without a vocabulary (null); `'none'` when a group of the query is left without a term (no match).
 */
async function expandPrefixes(
  records: RecordsReader,
  query: SearchQuery,
): Promise<{ query: SearchQuery | 'none'; truncated: boolean }> {
  const prefixes = query.include.flat().filter((term) => term.prefix).length;
  if (prefixes === 0) return { query, truncated: false };
  const share = Math.max(1, Math.floor(SEARCH_COST_LIMITS.prefixMaxTerms / prefixes));
  let truncated = false;
  const include: QueryTerm[][] = [];
  for (const group of query.include) {
    const terms: QueryTerm[] = [];
    for (const term of group) {
      if (!term.prefix) {
        terms.push(term);
        continue;
      }
      const last = term.words.at(-1)!;
      const words = await records.expandSearchPrefix({ word: last, limit: share + 1 });
      if (words === null) return { query, truncated: false };
      if (words.length > share) truncated = true;
      for (const word of words.slice(0, share))
        terms.push({ words: [...term.words.slice(0, -1), word], prefix: false });
    }
    if (terms.length === 0) return { query: 'none', truncated };
    include.push(terms);
  }
  return { query: { include, exclude: query.exclude }, truncated };
}

/**
 * Matches `files` (in order) against the query from their documents, one text batch at a time (at
 * most `searchTextBatch` files and `matchTextBatchBytes`, or one larger file), each batch paid for before
 * it is read: `'over'` when the next file's text would go past the budget.
 */
async function matchWithText(
  records: RecordsReader,
  input: ScanInput,
  files: readonly FileRecord[],
  budget: ScanBudget,
  spent: { textBytes: number },
): Promise<'more' | 'stopped' | 'over'> {
  const query = input.query!;
  for (let next = 0; next < files.length; ) {
    const chunk: FileRecord[] = [];
    let cost = 0;
    while (next < files.length && chunk.length < SEARCH_LIMITS.searchTextBatch) {
      const file = files[next]!;
      const price = input.cache.get(file) ? 0 : textCost(file);
      if (spent.textBytes + cost + price > budget.textBytes) break;
      if (chunk.length > 0 && cost + price > SEARCH_COST_LIMITS.matchTextBatchBytes) break;
      chunk.push(file);
      cost += price;
      next += 1;
    }
    if (chunk.length === 0) return 'over';
    spent.textBytes += cost;
    const documents = await documentsOf(records, input.cache, chunk);
    for (const file of chunk) {
      const document = documents.get(file.id)!;
      if (!matchesQuery(query, document)) continue;
      if (!input.onMatch({ file, stats: input.rank ? rankStats(query, document) : null })) return 'stopped';
    }
    // A store read may resolve without a turn of the event loop (memory, SQLite): each batch of text
    // (at most `matchTextBatchBytes` to tokenise and match, some tens of ms) gives one, so that a
    // search as long as its budget allows never holds the thread that serves every request.
    await giveTurn();
  }
  return 'more';
}

/** The documents of `files`: from the cache, else from their indexed text (read in one store call). */
async function documentsOf(
  records: RecordsReader,
  cache: SearchDocumentCache,
  files: readonly FileRecord[],
): Promise<Map<string, IndexedDocument>> {
  const documents = new Map<string, IndexedDocument>();
  const missing: FileRecord[] = [];
  for (const file of files) {
    const cached = cache.get(file);
    if (cached) documents.set(file.id, cached);
    else missing.push(file);
  }
  if (missing.length === 0) return documents;
  const texts = await records.findSearchCandidates({
    projectIds: [...new Set(missing.map((file) => file.projectId))],
    query: null,
    conditions: [],
    fileIds: missing.map((file) => file.id),
    withText: true,
    limit: missing.length,
  });
  const byId = new Map(texts.map((candidate) => [candidate.file.id, candidate]));
  for (const file of missing) {
    const read = byId.get(file.id);
    const document = fileSearchDocument(file, read?.contentText ?? '');
    // Cached only when the text is the one of this very revision (no write came in between).
    if (read?.file.revision === file.revision) cache.set(file, document);
    documents.set(file.id, document);
  }
  return documents;
}
