import { type Embedder, hashedEmbedder } from '@mdstore/core';
import type { EmbeddingsConfig } from '../config/index.js';
import { openAiEmbedder } from './openai.js';

export { EMBEDDINGS_TIMEOUT_MS, openAiEmbedder } from './openai.js';

/** The embedder `MDSTORE_EMBEDDINGS` names (extensions §15), or undefined when off. */
export function embedderOf(config: EmbeddingsConfig): Embedder | undefined {
  switch (config.kind) {
    case 'openai':
      return openAiEmbedder({ url: config.url, model: config.model, key: config.key });
    case 'hashed':
      return hashedEmbedder();
    default:
      return undefined;
  }
}
