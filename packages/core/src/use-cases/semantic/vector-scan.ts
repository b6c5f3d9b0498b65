import type { ChunkPosition, RecordsReader } from '../../ports/records.js';
import { SEMANTIC_LIMITS } from '../../semantic/limits.js';
import { cosine, vectorOf } from '../../semantic/vectors.js';

/** A file's best chunk for a query vector. */
export interface VectorHit {
  readonly fileId: string;
  readonly projectId: string;
  /** Cosine similarity of the best chunk, in [-1, 1]. */
  readonly similarity: number;
  readonly ordinal: number;
  readonly heading: string | null;
  readonly hash: string;
}

export interface VectorScanInput {
  readonly projectIds: readonly string[];
  readonly model: string;
  readonly query: Float32Array;
  /** Whether a file may be a hit (the filter, applied before ranking); others are skipped. */
  readonly accepts: (fileId: string) => boolean;
  readonly budget?: { readonly rows: number; readonly bytes: number };
}

export interface VectorScanReport {
  /** Each accepted file's best chunk. */
  readonly hits: Map<string, VectorHit>;
  readonly rows: number;
  readonly bytes: number;
  readonly truncated: boolean;
}

/**
 * The exact scan of search by meaning (extensions §15): the stored chunks of `model` in the projects,
 * read in store order page by page, each compared with the query vector (cosine, in the core, so every
 * store gives the same numbers); a file's best chunk is its hit. Within `budget` (chunk rows and vector
 * bytes, `vectorScanMaxRows`/`vectorScanMaxBytes` by default); past it the scan stops, `truncated`.
 */
export async function scanVectors(records: RecordsReader, input: VectorScanInput): Promise<VectorScanReport> {
  const budget = input.budget ?? {
    rows: SEMANTIC_LIMITS.vectorScanMaxRows,
    bytes: SEMANTIC_LIMITS.vectorScanMaxBytes,
  };
  const hits = new Map<string, VectorHit>();
  let rows = 0;
  let bytes = 0;
  let after: ChunkPosition | undefined;
  for (;;) {
    const left = budget.rows - rows;
    const limit = Math.min(SEMANTIC_LIMITS.vectorScanBatch, left + 1);
    const page = await records.listChunkVectors({
      projectIds: input.projectIds,
      model: input.model,
      limit,
      ...(after && { after }),
    });
    for (const [index, chunk] of page.entries()) {
      if (index >= left || bytes + chunk.vector.byteLength > budget.bytes) {
        return { hits, rows, bytes, truncated: true };
      }
      rows += 1;
      bytes += chunk.vector.byteLength;
      if (!input.accepts(chunk.fileId)) continue;
      const similarity = cosine(input.query, vectorOf(chunk.vector));
      const best = hits.get(chunk.fileId);
      if (best === undefined || similarity > best.similarity) {
        hits.set(chunk.fileId, {
          fileId: chunk.fileId,
          projectId: chunk.projectId,
          similarity,
          ordinal: chunk.ordinal,
          heading: chunk.heading,
          hash: chunk.hash,
        });
      }
    }
    const last = page.at(-1);
    if (page.length < limit || last === undefined) return { hits, rows, bytes, truncated: false };
    after = { projectId: last.projectId, fileId: last.fileId, ordinal: last.ordinal };
  }
}
