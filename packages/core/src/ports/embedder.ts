/**
 * Turns texts into vectors (extensions §15). One embedder has one `model` id and one `dimensions`:
 * every vector it returns has that length, so vectors of one model compare with each other (stored
 * vectors carry the model id; a change of model re-embeds everything). Implementations: the core's
 * deterministic `hashedEmbedder` (tests, and a dependency-free fallback), the server's OpenAI-compatible
 * client and its builtin model (`apps/server/src/embeddings/`).
 */
export interface Embedder {
  /** Stored with every vector: vectors of another model are never compared with this one's. */
  readonly model: string;
  readonly dimensions: number;
  /**
   * One vector per text, in order, each of `dimensions` numbers. May throw (an unreachable endpoint, a
   * timeout): the indexer retries later; no write ever waits for it.
   */
  embed(o: {
    texts: readonly string[];
    purpose?: EmbeddingPurpose;
    signal?: AbortSignal;
  }): Promise<Float32Array[]>;
}

/**
 * What the texts are: a search's query, which someone waits for, or chunks of files, which the indexer
 * embeds after the write (the default). An embedder may serve queries first; the vectors are the same.
 */
export type EmbeddingPurpose = 'query' | 'document';
