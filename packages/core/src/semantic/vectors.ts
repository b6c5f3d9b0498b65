/** Vectors as stored (extensions §15): float32, little-endian, unit length, so cosine = dot product. */

/** Scales `vector` to unit length (a zero vector stays zero). */
export function normalized(vector: ArrayLike<number>): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i += 1) sum += vector[i]! * vector[i]!;
  const out = new Float32Array(vector.length);
  if (sum === 0) return out;
  const scale = 1 / Math.sqrt(sum);
  for (let i = 0; i < vector.length; i += 1) out[i] = vector[i]! * scale;
  return out;
}

/** The bytes of a vector: each number as float32, little-endian, whatever the host's byte order. */
export function vectorBytes(vector: Float32Array): Uint8Array {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < vector.length; i += 1) view.setFloat32(i * 4, vector[i]!, true);
  return bytes;
}

/** The vector of `vectorBytes` (a length that is not a multiple of 4 drops the tail). */
export function vectorOf(bytes: Uint8Array): Float32Array {
  const length = Math.floor(bytes.byteLength / 4);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(length);
  for (let i = 0; i < length; i += 1) out[i] = view.getFloat32(i * 4, true);
  return out;
}

/**
 * Cosine similarity of two vectors (0 when either is zero or their lengths differ). Computed in float64
 * over the float32 values, so every store, handing back the same bytes, gives the same number.
 */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i += 1) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
