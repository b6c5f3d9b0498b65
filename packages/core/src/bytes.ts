/**
 * The chunks as one byte array, in order (`size`: their total length, when the caller counted it). A
 * single chunk is returned as it is, not copied.
 */
export function concatBytes(chunks: readonly Uint8Array[], size?: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(size ?? chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0));
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
