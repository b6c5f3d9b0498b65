/**
 * Vector lists (extensions §15): an inverted-file index over an account's chunk vectors, so a search
 * reads the chunks near its query instead of every chunk. Spherical k-means (vectors and centroids of
 * unit length, similarity the dot product) trained on a sample; a chunk is filed in the list of its
 * nearest centroid. Pure computation, deterministic for the same input: every store and instance
 * trains the same lists from the same sample.
 */
import { vectorBytes, vectorOf } from './vectors.js';

/** Dot product of two vectors of the same length (cosine for unit vectors). */
export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += a[i]! * b[i]!;
  return sum;
}

/** The index of the centroid nearest `vector` (the first of equals). */
export function nearestList(centroids: readonly Float32Array[], vector: Float32Array): number {
  let best = 0;
  let bestScore = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < centroids.length; i += 1) {
    const score = dot(centroids[i]!, vector);
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
  }
  return best;
}

/** Every list's number, nearest `query` first (ties by number). */
export function listsByNearness(centroids: readonly Float32Array[], query: Float32Array): number[] {
  const scores = centroids.map((centroid) => dot(centroid, query));
  return centroids.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b);
}

/** Centroids as stored: each vector's float32 bytes one after another. */
export function centroidBytes(centroids: readonly Float32Array[]): Uint8Array {
  const dimensions = centroids[0]?.length ?? 0;
  const out = new Uint8Array(centroids.length * dimensions * 4);
  for (const [i, centroid] of centroids.entries()) out.set(vectorBytes(centroid), i * dimensions * 4);
  return out;
}

/** The centroids of `centroidBytes`. */
export function centroidsOf(bytes: Uint8Array, dimensions: number): Float32Array[] {
  const size = dimensions * 4;
  const out: Float32Array[] = [];
  for (let offset = 0; offset + size <= bytes.byteLength; offset += size)
    out.push(vectorOf(bytes.subarray(offset, offset + size)));
  return out;
}

function unit(sum: Float64Array, fallback: Float32Array): Float32Array {
  let norm = 0;
  for (let i = 0; i < sum.length; i += 1) norm += sum[i]! * sum[i]!;
  if (norm === 0) return fallback;
  const scale = 1 / Math.sqrt(norm);
  const out = new Float32Array(sum.length);
  for (let i = 0; i < sum.length; i += 1) out[i] = sum[i]! * scale;
  return out;
}

export interface TrainOptions {
  /** Lists wanted (fewer when the sample is smaller). */
  readonly count: number;
  readonly iterations: number;
  /** Awaited every `turnEvery` vectors compared with every centroid, so a caller can yield. */
  readonly turn?: () => Promise<void>;
  readonly turnEvery?: number;
}

/**
 * Spherical k-means over `sample` (unit vectors, in a deterministic order): the first centroids are
 * sample vectors spread evenly over it; each round files every vector with its nearest centroid and
 * moves each centroid to the normalised sum of its vectors (a list left empty keeps its centroid).
 */
export async function trainLists(sample: readonly Float32Array[], o: TrainOptions): Promise<Float32Array[]> {
  const count = Math.max(1, Math.min(o.count, sample.length));
  if (sample.length === 0) return [];
  const dimensions = sample[0]!.length;
  let centroids = Array.from({ length: count }, (_, i) => sample[Math.floor((i * sample.length) / count)]!);
  const turnEvery = o.turnEvery ?? 64;
  let compared = 0;
  for (let round = 0; round < o.iterations; round += 1) {
    const sums = Array.from({ length: count }, () => new Float64Array(dimensions));
    for (const vector of sample) {
      const sum = sums[nearestList(centroids, vector)]!;
      for (let i = 0; i < dimensions; i += 1) sum[i]! += vector[i]!;
      compared += 1;
      if (o.turn && compared % turnEvery === 0) await o.turn();
    }
    centroids = sums.map((sum, i) => unit(sum, centroids[i]!));
  }
  return centroids;
}

/**
 * Whether a chunk belongs to the training sample: its hash (hex SHA-256), read as a fraction of 2³²
 * from its first 8 digits, is below `share`. The same chunks are picked on every store, in any order.
 */
export const sampled = (hash: string, share: number): boolean =>
  Number.parseInt(hash.slice(0, 8), 16) / 0x1_0000_0000 < share;
