export { type Chunk, chunkHash, chunkMarkdown } from './chunks.js';
export { hashedEmbedder } from './hashed-embedder.js';
export { SEMANTIC_LIMITS } from './limits.js';
export { centroidBytes, centroidsOf, listsByNearness, nearestList, sampled, trainLists } from './lists.js';
export { cosine, normalized, vectorBytes, vectorOf } from './vectors.js';
