import { StoreUnavailableError } from '../../errors.js';
import type { FileRecord } from '../../model/records.js';
import type { Embedder } from '../../ports/embedder.js';
import type { RecordsReader } from '../../ports/records.js';
import type { Filter } from '../../search/filter/ast.js';
import type { JsonNarrowing, PushdownCondition } from '../../search/filter/pushdown.js';
import type { SearchQuery } from '../../search/query.js';
import { scoreStats } from '../../search/rank.js';
import { SEMANTIC_LIMITS } from '../../semantic/limits.js';
import { centroidsOf } from '../../semantic/lists.js';
import { normalized } from '../../semantic/vectors.js';
import { compareCodePoints } from '../../validation/text.js';
import { scanVectors, type VectorHit } from '../semantic/vector-scan.js';
import type { SearchDocumentCache } from './document-cache.js';
import type { SearchRequest } from './request.js';
import { type Match, scanMatches } from './scan.js';

/** What a hit of semantic or hybrid search carries besides its file (extensions §15). */
export interface MeaningOfHit {
  /** 1-based place in the full-text ranking (among the files that pass the filter), or null. */
  readonly textRank: number | null;
  /** 1-based place in the vector ranking (among the files that pass the filter), or null. */
  readonly vectorRank: number | null;
  /** The best chunk's heading and hash (its text is the snippet), when the file has a vector hit. */
  readonly heading: string | null;
  readonly chunkHash: string | null;
}

export interface MeaningHit {
  readonly file: FileRecord;
  readonly score: number;
  readonly meaning: MeaningOfHit;
}

export interface MeaningRanking {
  /** Every hit, best first (score, then filename, then project). */
  readonly hits: readonly MeaningHit[];
  readonly truncated: boolean;
}

export interface MeaningInput {
  readonly records: RecordsReader;
  readonly embedder: Embedder;
  readonly cache: SearchDocumentCache;
  /** The account whose projects are searched (its vector lists), null when none is. */
  readonly accountId: string | null;
  readonly projectIds: readonly string[];
  readonly request: SearchRequest;
  readonly pushdown: readonly PushdownCondition[];
  readonly narrowing: readonly JsonNarrowing[];
  readonly residual: Filter | null;
  /** The files the key reaches (extensions §14): the others pass no filter. */
  readonly reaches: (filename: string) => boolean;
}

const byScore = (a: { score: number; file: FileRecord }, b: { score: number; file: FileRecord }) =>
  b.score - a.score ||
  compareCodePoints(a.file.filename, b.file.filename) ||
  compareCodePoints(a.file.projectId, b.file.projectId);

/**
 * Semantic and hybrid ranking (extensions §15). The filter is applied first: the files that pass it
 * (the full-text scan without a query, within its bounds) are the only ones either ranking may hold, so
 * ranks are places among them. The vector ranking is each such file's best chunk (cosine with the
 * query's vector, `scanVectors`); the text ranking is §3's BM25F over the files holding any of the
 * query's words (`anyOfTheWords`). `semantic`
 * answers the vector ranking (score = the cosine); `hybrid` fuses both by reciprocal rank, score =
 * Σ 1/(k + rank) with k = 60 over the rankings the file is in. Ties: filename, then project.
 */
export async function rankByMeaning(input: MeaningInput): Promise<MeaningRanking> {
  const { request } = input;
  const allowed = new Map<string, FileRecord>();
  const filtered = await scanMatches(input.records, {
    cache: input.cache,
    projectIds: input.projectIds,
    query: null,
    pushdown: input.pushdown,
    narrowing: input.narrowing,
    residual: input.residual,
    rank: false,
    onMatch: (match) => {
      if (input.reaches(match.file.filename)) allowed.set(match.file.id, match.file);
      return true;
    },
  });
  const queryVector = await embedQuery(input.embedder, request.queryText!);
  const lists =
    input.accountId === null
      ? null
      : await input.records.findVectorLists({ accountId: input.accountId, model: input.embedder.model });
  const vectors = await scanVectors(input.records, {
    projectIds: input.projectIds,
    model: input.embedder.model,
    query: queryVector,
    accepts: (fileId) => allowed.has(fileId),
    lists: lists && {
      generation: lists.generation,
      centroids: centroidsOf(lists.centroids, lists.dimensions),
    },
  });
  const vectorRanking = [...vectors.hits.values()]
    .map((hit) => ({ hit, file: allowed.get(hit.fileId)!, score: hit.similarity }))
    .sort(byScore);
  let truncated = filtered.truncated || vectors.truncated;
  if (request.mode === 'semantic') {
    return {
      hits: vectorRanking.map(({ hit, file, score }, index) => ({
        file,
        score,
        meaning: meaningOf(null, index + 1, hit),
      })),
      truncated,
    };
  }
  const textMatches: Match[] = [];
  const textQuery = anyOfTheWords(request.query!);
  const text = await scanMatches(input.records, {
    cache: input.cache,
    projectIds: input.projectIds,
    query: textQuery,
    pushdown: input.pushdown,
    narrowing: input.narrowing,
    residual: input.residual,
    rank: true,
    onMatch: (match) => {
      if (input.reaches(match.file.filename)) textMatches.push(match);
      return true;
    },
  });
  truncated ||= text.truncated;
  const scores = scoreStats(
    textQuery,
    textMatches.map((match) => match.stats!),
  );
  const textRanking = textMatches
    .map((match, index) => ({ file: match.file, score: scores[index]! }))
    .sort(byScore);
  const fused = new Map<
    string,
    { file: FileRecord; score: number; text: number | null; hit: VectorHit | null; vector: number | null }
  >();
  const k = SEMANTIC_LIMITS.rrfK;
  for (const [index, { file }] of textRanking.entries()) {
    fused.set(file.id, { file, score: 1 / (k + index + 1), text: index + 1, hit: null, vector: null });
  }
  for (const [index, { file, hit }] of vectorRanking.entries()) {
    const entry = fused.get(file.id) ?? { file, score: 0, text: null, hit: null, vector: null };
    fused.set(file.id, { ...entry, score: entry.score + 1 / (k + index + 1), hit, vector: index + 1 });
  }
  const hits = [...fused.values()].sort(byScore).map(({ file, score, text: textRank, hit, vector }) => ({
    file,
    score,
    meaning: meaningOf(textRank, vector, hit),
  }));
  return { hits, truncated };
}

/**
 * The full-text side of `hybrid`: the query's terms as alternatives (its groups joined by `OR`), its
 * exclusions kept. A question in words (`how do we ship a new version?`) rarely has all its words in
 * one file, which §3's `text` mode requires, and then adds nothing to the fusion; ranked by BM25F, any
 * of them is what a keyword engine does with a question. Measured on the evaluation set (150 questions
 * over 408 READMEs, docs/performance.md): the all-words rule finds an answer for 15 questions, any of
 * the words for 147.
 */
const anyOfTheWords = (query: SearchQuery): SearchQuery =>
  query.include.length <= 1 ? query : { include: [query.include.flat()], exclude: query.exclude };

const meaningOf = (
  textRank: number | null,
  vectorRank: number | null,
  hit: VectorHit | null,
): MeaningOfHit => ({
  textRank,
  vectorRank,
  heading: hit?.heading ?? null,
  chunkHash: hit?.hash ?? null,
});

/** The query's vector; an embedder that fails answers 503 (the full-text mode does not need it). */
async function embedQuery(embedder: Embedder, text: string): Promise<Float32Array> {
  let vectors: Float32Array[];
  try {
    vectors = await embedder.embed({ texts: [text], purpose: 'query' });
  } catch (error) {
    throw StoreUnavailableError('Search by meaning is unavailable: the embedding service failed', {
      cause: error,
    });
  }
  const vector = vectors[0];
  if (vector === undefined || vector.length !== embedder.dimensions)
    throw StoreUnavailableError('Search by meaning is unavailable: the embedding service answered no vector');
  return normalized(vector);
}
