export { type Chunk, chunkHash, chunkMarkdown } from './chunks.js';
export { hashedEmbedder } from './hashed-embedder.js';
export { SEMANTIC_LIMITS } from './limits.js';
export { cosine, normalized, vectorBytes, vectorOf } from './vectors.js';
