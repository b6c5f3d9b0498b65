import { type Embedder, hashedEmbedder } from '@mdstore/core';
import type { EmbeddingsConfig } from '../config/index.js';
import { builtinEmbedder } from './builtin.js';
import { openAiEmbedder } from './openai.js';

export { BUILTIN_DIMENSIONS, BUILTIN_LIMITS, BUILTIN_MODEL, builtinEmbedder } from './builtin.js';
export { EMBEDDINGS_TIMEOUT_MS, openAiEmbedder } from './openai.js';

/**
 * The embedder `MDSTORE_EMBEDDINGS` names (extensions §15), or undefined when off. One that holds
 * something (the builtin model's thread) gives `closers` what stops it.
 */
export function embedderOf(
  config: EmbeddingsConfig,
  closers: Array<() => Promise<void>> = [],
): Embedder | undefined {
  switch (config.kind) {
    case 'openai':
      return openAiEmbedder({ url: config.url, model: config.model, key: config.key });
    case 'hashed':
      return hashedEmbedder();
    case 'builtin': {
      const embedder = builtinEmbedder();
      closers.push(() => embedder.close());
      return embedder;
    }
    default:
      return undefined;
  }
}
