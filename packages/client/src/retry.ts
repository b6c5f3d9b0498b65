import { parseRetryAfterSeconds } from './errors.js';

/** Automatic retries of answers that say "not now" (429, 503). */
export interface RetryOptions {
  /** How many times a request is sent again at most. Default 3. */
  readonly retries?: number;
  /**
   * The longest wait before one retry, in milliseconds. A `Retry-After` asking for longer is not waited
   * for: the error is thrown at once (an hourly budget that is spent is not worth an hour's wait).
   * Default 30 000.
   */
  readonly maxDelayMs?: number;
  /** First wait when the answer has no `Retry-After`; doubled on each retry. Default 500. */
  readonly baseDelayMs?: number;
  /** The statuses retried. Default `[429, 503]`. */
  readonly statuses?: readonly number[];
  /** Told before each wait, e.g. to log it. */
  readonly onRetry?: (event: RetryEvent) => void;
}

export interface RetryEvent {
  readonly method: string;
  readonly url: string;
  readonly status: number;
  /** 1 for the first retry. */
  readonly attempt: number;
  readonly delayMs: number;
}

export interface RetryPolicy {
  readonly retries: number;
  readonly maxDelayMs: number;
  readonly baseDelayMs: number;
  readonly statuses: readonly number[];
  readonly onRetry: ((event: RetryEvent) => void) | undefined;
}

export const NO_RETRY: RetryPolicy = {
  retries: 0,
  maxDelayMs: 0,
  baseDelayMs: 0,
  statuses: [],
  onRetry: undefined,
};

export function retryPolicy(options: RetryOptions | false | undefined): RetryPolicy {
  if (options === false) return NO_RETRY;
  const retries = options?.retries ?? 3;
  if (!Number.isInteger(retries) || retries < 0) throw new RangeError('retry.retries must be an integer ≥ 0');
  return {
    retries,
    maxDelayMs: options?.maxDelayMs ?? 30_000,
    baseDelayMs: options?.baseDelayMs ?? 500,
    statuses: options?.statuses ?? [429, 503],
    onRetry: options?.onRetry,
  };
}

/**
 * How long to wait before retry number `attempt` (1-based) after `response`, or undefined when it must
 * not be retried. `Retry-After` wins; without it the wait doubles from `baseDelayMs`, with jitter so that
 * clients refused together do not come back together.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  response: Response,
  attempt: number,
  random: () => number = Math.random,
): number | undefined {
  if (attempt > policy.retries || !policy.statuses.includes(response.status)) return undefined;
  const retryAfter = parseRetryAfterSeconds(response.headers.get('retry-after'), Date.now());
  const delay =
    retryAfter !== undefined
      ? retryAfter * 1000
      : policy.baseDelayMs * 2 ** (attempt - 1) * (0.5 + random() / 2);
  return delay > policy.maxDelayMs ? undefined : delay;
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
