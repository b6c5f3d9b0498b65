import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import {
  CONTENT_WORK_LIMITS,
  type ContentWork,
  ContentWorkBusyError,
  type ContentWorkTask,
  type DocumentHeading,
  type FoundLinks,
  type Outline,
  POOL_WORK_LIMITS,
  type RenderTask,
  WorkLimitExceededError,
} from '@mdstore/core';
import { Piscina } from 'piscina';
import { PoolAdmission } from './admission.js';
import type { ContentWorkConfig } from './defaults.js';
import { JSON_MAX_VALUES, type JsonParseAnswer } from './json.js';
import { currentAccount } from './owner.js';
import type { WorkAnswer, WorkRequest } from './worker.js';

/**
 * The server's `ContentWork`: a piscina pool of worker threads running the core's pure markdown
 * functions with the pool's limits (`POOL_WORK_LIMITS`: an outline of up to 3 MiB, MDX as MDX up to
 * 256 KiB), so that the thread serving requests never waits on a parse above one inline step's bound.
 *
 * - Deadline: every task gets `deadlineMs` from when it is handed to a free worker (time waiting for
 *   one does not count); past it the task is aborted, which terminates its worker
 *   (piscina starts another), and it is refused (`WORK_LIMIT_EXCEEDED`, which the use case answers
 *   as the step's documented refusal: 413 for an outline, 409 `work_budget` for a section).
 * - Memory: each worker's heap is limited (`memoryMb`, and a young generation of
 *   `WORKER_YOUNG_GENERATION_MB`); a worker past it dies, its task is refused the same way, the pool
 *   goes on with a new worker.
 * - Queue: at most `threads` tasks run and `queue` wait for a worker (here, not in piscina, so that
 *   the deadline starts with the work), and one account holds at most `perAccount` of those places
 *   (`PoolAdmission`); past any of them a task is refused at once (`CONTENT_WORK_BUSY`: 503 with
 *   `Retry-After`), never queued without bound. A waiting task leaves when its request goes away.
 * - The request's signal (the client went away) aborts its task too.
 */
export class PiscinaContentWork implements ContentWork {
  readonly limits = POOL_WORK_LIMITS;
  private readonly pool: Piscina<WorkRequest, WorkAnswer | JsonParseAnswer>;
  private readonly admission: PoolAdmission;

  /**
   * `onError`: a worker that failed outside any task (it could not start, or died idle); piscina
   * replaces it. Without a listener such an error would end the process.
   */
  constructor(
    private readonly config: ContentWorkConfig,
    onError: (error: unknown) => void,
    /** The account a task is for (the request's, `owner.ts`); none for maintenance work. */
    private readonly accountOf: () => string | undefined = currentAccount,
  ) {
    this.admission = new PoolAdmission({
      threads: config.threads,
      queue: config.queue,
      perAccount: config.perAccount ?? CONTENT_WORK_LIMITS.defaultTasksPerAccount,
    });
    this.pool = new Piscina<WorkRequest, WorkAnswer | JsonParseAnswer>({
      ...workerModule(),
      // No worker until a step needs one, and none kept past a minute without work: a worker thread
      // costs about 27 MB of RSS (its own V8 heap and the parsers), a large share of an idle
      // server's and of the 200 MB budget of a 10 000-file export or import (docs/performance.md).
      minThreads: 0,
      idleTimeout: 60_000,
      maxThreads: config.threads,
      // Tasks are handed over only when a worker is free (`slot`); a worker being replaced may
      // still make one wait in piscina for a moment.
      maxQueue: config.threads,
      resourceLimits: {
        maxOldGenerationSizeMb: config.memoryMb,
        maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB,
      },
    });
    this.pool.on('error', onError);
  }

  async outline(task: ContentWorkTask, signal?: AbortSignal): Promise<Outline> {
    return (await this.run({ op: 'outline', text: task.text, mdx: task.mdx }, signal)) as Outline;
  }

  async headings(task: ContentWorkTask, signal?: AbortSignal): Promise<DocumentHeading[]> {
    return (await this.run({ op: 'headings', text: task.text, mdx: task.mdx }, signal)) as DocumentHeading[];
  }

  async render(task: RenderTask, signal?: AbortSignal): Promise<string> {
    const request: WorkRequest = { op: 'render', ...task };
    return (await this.run(request, signal)) as string;
  }

  async links(task: ContentWorkTask, signal?: AbortSignal): Promise<FoundLinks> {
    return (await this.run({ op: 'links', text: task.text, mdx: task.mdx }, signal)) as FoundLinks;
  }

  /**
   * A JSON request body's value (http/body.ts `readJsonBody`, above its inline bound), decoded and parsed
   * in a worker: `bytes` are moved there (the caller must not read them after). Refusals: `JsonRefusal`
   * (invalid JSON, more than `JSON_MAX_VALUES` values), and the pool's own (busy, deadline, memory).
   */
  async parseJson(bytes: Uint8Array, signal?: AbortSignal): Promise<unknown> {
    const answer = (await this.run({ op: 'json', bytes }, signal, [bytes.buffer as ArrayBuffer])) as
      | JsonParseAnswer
      | WorkAnswer;
    if (answer.ok) return answer.value;
    throw new JsonRefusal(answer.code === 'JSON_TOO_MANY_VALUES' ? 'too_many_values' : 'invalid');
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }

  private async run(
    request: WorkRequest,
    signal: AbortSignal | undefined,
    transferList?: ArrayBuffer[],
  ): Promise<unknown> {
    const account = this.accountOf();
    await this.admission.enter(account, signal);
    try {
      return await this.runNow(request, signal, transferList);
    } finally {
      this.admission.leave(account);
    }
  }

  private async runNow(
    request: WorkRequest,
    signal: AbortSignal | undefined,
    transferList: ArrayBuffer[] | undefined,
  ): Promise<unknown> {
    const deadline = AbortSignal.timeout(this.config.deadlineMs);
    const either = signal ? AbortSignal.any([deadline, signal]) : deadline;
    let answer: WorkAnswer | JsonParseAnswer;
    try {
      answer = await this.pool.run(request, { signal: either, ...(transferList && { transferList }) });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (deadline.aborted) throw new WorkLimitExceededError('deadline');
      if (isOutOfMemory(error)) throw new WorkLimitExceededError('memory');
      if (isQueueFull(error)) throw new ContentWorkBusyError();
      throw error;
    }
    // A JSON body's answer is judged by `parseJson`.
    if (request.op === 'json') return answer;
    if (answer.ok) return answer.value;
    // The core refused in the worker (its estimate, checked before sending, agrees: this is a guard).
    throw new WorkLimitExceededError('estimate');
  }
}

/**
 * Each worker's young generation, in megabytes. V8's default (about 48 MB for a heap this size) is
 * resident memory a parse does not need: with 16 MB the 3 MiB outline of the stall scenario takes as long
 * and the worker's peak is about 45 MB lower (docs/performance.md, "Memory of content work").
 */
export const WORKER_YOUNG_GENERATION_MB = 16;

/** A JSON body the worker would not hand back: not JSON (UTF-8), or more than `JSON_MAX_VALUES` values. */
export class JsonRefusal extends Error {
  constructor(readonly reason: 'invalid' | 'too_many_values') {
    super(reason === 'invalid' ? 'Invalid JSON body' : `A JSON body of more than ${JSON_MAX_VALUES} values`);
  }
}

/** piscina's refusals of a task no worker is free for and no queue place is left for. */
const isQueueFull = (error: unknown): boolean =>
  error instanceof Error &&
  /^(?:Task queue is at limit|No task queue available and all Workers are busy)$/.test(error.message);

const isOutOfMemory = (error: unknown): boolean =>
  (error as { code?: unknown } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY';

/**
 * The worker's module: the compiled `worker.js` next to this file, or, when the server runs from its
 * TypeScript sources (the tests), `worker.ts` through tsx with the sources' export condition.
 */
function workerModule(): { filename: string; execArgv?: string[] } {
  if (!import.meta.url.endsWith('.ts')) return { filename: new URL('./worker.js', import.meta.url).href };
  const loader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return {
    filename: new URL('./worker.ts', import.meta.url).href,
    execArgv: ['--import', loader, '--conditions=mdstore-source'],
  };
}
