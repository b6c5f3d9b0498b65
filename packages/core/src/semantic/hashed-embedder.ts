import type { Embedder } from '../ports/embedder.js';
import { tokenize } from '../search/tokenize.js';
import { normalized } from './vectors.js';

/** FNV-1a (32 bits) of a string's UTF-16 code units. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/**
 * A deterministic embedder (extensions §15) with no model and no I/O: the feature hashing of a text's
 * words (normalised as search's words are: case, diacritics) and of their character trigrams, into
 * `dimensions` signed buckets, scaled to unit length. Texts that share words or word pieces are closer
 * (cosine) than texts that share none, and the same text always gives the same vector, on every host:
 * the provider of the tests, and `MDSTORE_EMBEDDINGS=hashed` for trying the feature without a model.
 * It knows no synonyms: "deploy" and "release" are unrelated to it.
 */
export function hashedEmbedder(o: { dimensions?: number } = {}): Embedder {
  const dimensions = o.dimensions ?? 256;
  const model = `hashed-${dimensions}`;
  const add = (vector: Float64Array, feature: string, weight: number) => {
    const hash = fnv1a(feature);
    vector[hash % dimensions]! += hash & 0x80000000 ? -weight : weight;
  };
  const embedOne = (text: string): Float32Array => {
    const vector = new Float64Array(dimensions);
    for (const { term } of tokenize(text, { maxTokens: 16_000 })) {
      add(vector, `w:${term}`, 1);
      const padded = `^${term}$`;
      const points = [...padded];
      for (let i = 0; i + 3 <= points.length; i += 1)
        add(vector, `g:${points.slice(i, i + 3).join('')}`, 0.5);
    }
    return normalized(vector);
  };
  return {
    model,
    dimensions,
    embed: async ({ texts }) => texts.map(embedOne),
  };
}
