import type { FileRecord } from '../../model/records.js';
import type { RecordsReader, SearchPosition } from '../../ports/records.js';
import { fileSearchDocument } from '../../search/file-document.js';
import type { Filter, FilterableFile } from '../../search/filter/ast.js';
import { evaluateFilter } from '../../search/filter/evaluate.js';
import type { JsonNarrowing, PushdownCondition } from '../../search/filter/pushdown.js';
import type { IndexedDocument } from '../../search/index-document.js';
import { SEARCH_LIMITS } from '../../search/limits.js';
import { matchesQuery } from '../../search/match.js';
import type { SearchQuery } from '../../search/query.js';
import type { SearchDocumentCache } from './document-cache.js';

/** A file that matched, with what search made of it when there was a query. */
export interface Match {
  readonly file: FileRecord;
  readonly document: IndexedDocument | null;
}

export interface ScanInput {
  readonly cache: SearchDocumentCache;
  readonly projectIds: readonly string[];
  readonly query: SearchQuery | null;
  readonly pushdown: readonly PushdownCondition[];
  readonly narrowing: readonly JsonNarrowing[];
  readonly residual: Filter | null;
  /** Whether each match keeps its document (to rank it). */
  readonly keepDocuments: boolean;
  /** Stop once this many files matched. */
  readonly maxMatches: number;
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

/**
 * Every file of the projects that matches, in `(projectId, filename)` order: the store gives the
 * candidates (its index narrows them for a query, the pushed-down conditions are exact), the core
 * decides (the residual filter by `evaluateFilter`, the query by `matchesQuery`), so every store
 * answers alike. Reads the candidates in batches, the text of their content only with a query.
 */
export async function scanMatches(records: RecordsReader, input: ScanInput): Promise<Match[]> {
  const matches: Match[] = [];
  const limit = SEARCH_LIMITS.searchBatch;
  let after: SearchPosition | undefined;
  for (;;) {
    const batch = await records.findSearchCandidates({
      projectIds: input.projectIds,
      query: input.query,
      conditions: input.pushdown,
      narrowing: input.narrowing,
      withText: false,
      limit,
      ...(after && { after }),
    });
    const kept = batch
      .map((candidate) => candidate.file)
      .filter((file) => input.residual === null || evaluateFilter(input.residual, filterable(file)));
    const documents = input.query === null ? undefined : await documentsOf(records, input, kept);
    for (const file of kept) {
      const document = documents?.get(file.id) ?? null;
      if (input.query !== null && !matchesQuery(input.query, document!)) continue;
      matches.push({ file, document: input.keepDocuments ? document : null });
      if (matches.length >= input.maxMatches) return matches;
    }
    const last = batch.at(-1);
    if (batch.length < limit || last === undefined) return matches;
    after = { projectId: last.file.projectId, filename: last.file.filename };
  }
}

/** The documents of `files`: from the cache, else from their indexed text (read in small batches). */
async function documentsOf(
  records: RecordsReader,
  input: ScanInput,
  files: readonly FileRecord[],
): Promise<Map<string, IndexedDocument>> {
  const documents = new Map<string, IndexedDocument>();
  const missing: FileRecord[] = [];
  for (const file of files) {
    const cached = input.cache.get(file);
    if (cached) documents.set(file.id, cached);
    else missing.push(file);
  }
  for (let start = 0; start < missing.length; start += SEARCH_LIMITS.searchTextBatch) {
    const chunk = missing.slice(start, start + SEARCH_LIMITS.searchTextBatch);
    const texts = await records.findSearchCandidates({
      projectIds: [...new Set(chunk.map((file) => file.projectId))],
      query: null,
      conditions: [],
      fileIds: chunk.map((file) => file.id),
      withText: true,
      limit: chunk.length,
    });
    const byId = new Map(texts.map((candidate) => [candidate.file.id, candidate]));
    for (const file of chunk) {
      const read = byId.get(file.id);
      const document = fileSearchDocument(file, read?.contentText ?? '');
      // Cached only when the text is the one of this very revision (no write came in between).
      if (read?.file.revision === file.revision) input.cache.set(file, document);
      documents.set(file.id, document);
    }
  }
  return documents;
}
