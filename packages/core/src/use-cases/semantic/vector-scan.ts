import type { ChunkLists, ChunkPosition, RecordsReader } from '../../ports/records.js';
import { SEMANTIC_LIMITS } from '../../semantic/limits.js';
import { listsByNearness } from '../../semantic/lists.js';
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
  /** The account's vector lists of the model, when it has them: the scan reads the nearest first. */
  readonly lists?: { readonly generation: number; readonly centroids: readonly Float32Array[] } | null;
  /** `listsProbeRows`, `listsProbeBatch` and `listsExactBelow` (tests change them). */
  readonly probe?: { readonly rows: number; readonly batch: number; readonly exactBelow: number };
}

export interface VectorScanReport {
  /** Each accepted file's best chunk. */
  readonly hits: Map<string, VectorHit>;
  readonly rows: number;
  readonly bytes: number;
  readonly truncated: boolean;
  /** Lists read (0 without lists). */
  readonly listsRead: number;
}

/**
 * The scan of search by meaning (extensions §15): stored chunks of `model` in the projects, read page
 * by page, each compared with the query vector (cosine, in the core, so every store gives the same
 * numbers); a file's best chunk is its hit. Within `budget` (chunk rows and vector bytes,
 * `vectorScanMaxRows`/`vectorScanMaxBytes` by default); past it the scan stops, `truncated`.
 *
 * Without lists, or when the projects hold fewer than `probe.exactBelow` chunks (one bounded count),
 * every chunk is read (exact). Otherwise the account's lists (`semantic/lists.ts`) are read nearest the
 * query first, `probe.batch` at a time, until at least `probe.rows` chunks the filter accepts were
 * compared or every list was read; then the chunks filed in no list yet. A narrow filter thus still
 * reads every list (exact, within the bounds); a large search reads the nearest part of the index
 * (approximate, as any inverted-file index).
 */
export async function scanVectors(records: RecordsReader, input: VectorScanInput): Promise<VectorScanReport> {
  const budget = input.budget ?? {
    rows: SEMANTIC_LIMITS.vectorScanMaxRows,
    bytes: SEMANTIC_LIMITS.vectorScanMaxBytes,
  };
  const probe = input.probe ?? {
    rows: SEMANTIC_LIMITS.listsProbeRows,
    batch: SEMANTIC_LIMITS.listsProbeBatch,
    exactBelow: SEMANTIC_LIMITS.listsExactBelow,
  };
  const hits = new Map<string, VectorHit>();
  const seen = { rows: 0, bytes: 0, accepted: 0, lists: 0 };
  const report = (truncated: boolean): VectorScanReport => ({
    hits,
    rows: seen.rows,
    bytes: seen.bytes,
    truncated,
    listsRead: seen.lists,
  });

  /** Reads one range (every chunk, some lists, or the unfiled ones) to its end; false past the budget. */
  const readRange = async (lists: ChunkLists | null | undefined): Promise<boolean> => {
    let after: ChunkPosition | undefined;
    for (;;) {
      const left = budget.rows - seen.rows;
      const limit = Math.min(SEMANTIC_LIMITS.vectorScanBatch, left + 1);
      const page = await records.listChunkVectors({
        projectIds: input.projectIds,
        model: input.model,
        limit,
        ...(after && { after }),
        ...(lists !== undefined && { lists }),
      });
      for (const [index, chunk] of page.entries()) {
        if (index >= left || seen.bytes + chunk.vector.byteLength > budget.bytes) return false;
        seen.rows += 1;
        seen.bytes += chunk.vector.byteLength;
        if (!input.accepts(chunk.fileId)) continue;
        seen.accepted += 1;
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
      if (page.length < limit || last === undefined) return true;
      after = { projectId: last.projectId, fileId: last.fileId, ordinal: last.ordinal };
      if (lists) after = { ...after, listNo: last.listNo ?? -1 };
    }
  };

  const lists = input.lists;
  if (!lists || lists.centroids.length === 0) return report(!(await readRange(undefined)));
  const held = await records.countChunkVectors({
    projectIds: input.projectIds,
    model: input.model,
    limit: probe.exactBelow,
  });
  if (held < probe.exactBelow) return report(!(await readRange(undefined)));
  const order = listsByNearness(lists.centroids, input.query);
  for (let start = 0; start < order.length && seen.accepted < probe.rows; start += probe.batch) {
    const listNos = order.slice(start, start + probe.batch);
    if (!(await readRange({ generation: lists.generation, listNos }))) return report(true);
    seen.lists += listNos.length;
  }
  return report(!(await readRange(null)));
}
