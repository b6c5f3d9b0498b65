import type { Embedder } from '@mdstore/core';

/** How long one call may take before it is abandoned (the indexer retries the batch later). */
export const EMBEDDINGS_TIMEOUT_MS = 30_000;
/** The most of an error answer's body quoted in the error (never the request). */
const ERROR_TEXT_MAX = 200;

export interface OpenAiEmbedderOptions {
  /** The endpoint: a base URL (`…/v1`, `/embeddings` is added) or the full `…/embeddings` URL. */
  readonly url: string;
  readonly model: string;
  /** Sent as `Authorization: Bearer …` when given. */
  readonly key: string | null;
  readonly timeoutMs?: number;
  /** Tests pass their own; the global `fetch` by default. */
  readonly fetch?: typeof fetch;
}

interface EmbeddingsAnswer {
  readonly data?: ReadonlyArray<{ readonly embedding?: unknown; readonly index?: unknown }>;
}

const endpointOf = (url: string) =>
  /\/embeddings\/?$/.test(url) ? url : `${url.replace(/\/+$/, '')}/embeddings`;

/**
 * An embedder on any OpenAI-compatible `POST /v1/embeddings` endpoint (OpenAI, Azure-style proxies,
 * Ollama, llama.cpp, vLLM, LiteLLM…), extensions §15. The dimension is learnt from the first answer and
 * every later answer must keep it. Every failure (network, timeout, a non-2xx answer, a malformed body)
 * is thrown to the caller: the indexer retries later, a semantic search answers 503; no write waits on it.
 */
export function openAiEmbedder(o: OpenAiEmbedderOptions): Embedder {
  const endpoint = endpointOf(o.url);
  const call = o.fetch ?? fetch;
  const timeoutMs = o.timeoutMs ?? EMBEDDINGS_TIMEOUT_MS;
  let dimensions = 0;
  return {
    model: o.model,
    get dimensions() {
      return dimensions;
    },
    async embed({ texts, signal }) {
      if (texts.length === 0) return [];
      const deadline = AbortSignal.timeout(timeoutMs);
      const response = await call(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...(o.key !== null && { authorization: `Bearer ${o.key}` }),
        },
        body: JSON.stringify({ model: o.model, input: texts, encoding_format: 'float' }),
        signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
        redirect: 'error',
      });
      if (!response.ok) {
        const text = (await response.text().catch(() => '')).slice(0, ERROR_TEXT_MAX);
        throw new Error(`The embeddings endpoint answered ${response.status}${text ? `: ${text}` : ''}`);
      }
      const answer = (await response.json()) as EmbeddingsAnswer;
      const rows = Array.isArray(answer?.data) ? answer.data : [];
      if (rows.length !== texts.length)
        throw new Error(`The embeddings endpoint answered ${rows.length} vectors for ${texts.length} texts`);
      const vectors: Float32Array[] = new Array(texts.length);
      for (const [position, row] of rows.entries()) {
        const index = typeof row.index === 'number' ? row.index : position;
        const embedding = row.embedding;
        if (
          !Number.isInteger(index) ||
          index < 0 ||
          index >= texts.length ||
          vectors[index] !== undefined ||
          !Array.isArray(embedding) ||
          embedding.length === 0 ||
          !embedding.every((x) => typeof x === 'number' && Number.isFinite(x))
        ) {
          throw new Error('The embeddings endpoint answered a malformed vector');
        }
        if (dimensions === 0) dimensions = embedding.length;
        if (embedding.length !== dimensions)
          throw new Error(
            `The embeddings endpoint answered ${embedding.length} dimensions, not ${dimensions}`,
          );
        vectors[index] = Float32Array.from(embedding as number[]);
      }
      return vectors;
    },
  };
}
