import { isMdStoreError, StoreUnavailableError } from '@mdstore/core';

/** What an S3 error looks like once the SDK has parsed it (or not, for network errors). */
interface SdkErrorShape {
  name?: string;
  Code?: string;
  $metadata?: { httpStatusCode?: number };
}

const shapeOf = (error: unknown): SdkErrorShape =>
  typeof error === 'object' && error !== null ? (error as SdkErrorShape) : {};

/** The S3 error code (`NoSuchKey`, `BucketNotEmpty`...) of an SDK error, if it has one. */
export const s3ErrorCode = (error: unknown): string | undefined => shapeOf(error).Code ?? shapeOf(error).name;

export const httpStatusOf = (error: unknown): number | undefined => shapeOf(error).$metadata?.httpStatusCode;

export const isNotFound = (error: unknown): boolean => httpStatusOf(error) === 404;

export const hasS3Code = (error: unknown, ...codes: string[]): boolean => {
  const code = s3ErrorCode(error);
  return code !== undefined && codes.includes(code);
};

const isSdkResponseError = (error: unknown): boolean => httpStatusOf(error) !== undefined;

export const unavailable = (error: unknown, what: string): StoreUnavailableError => {
  const status = httpStatusOf(error);
  const detail = status === undefined ? 'no response' : `HTTP ${status} ${s3ErrorCode(error) ?? ''}`.trim();
  return new StoreUnavailableError(`S3 ${what} failed (${detail})`, { cause: error });
};

/**
 * For errors the adapter did not turn into a domain error: an S3 answer it did not expect (access
 * denied, a missing configured bucket...) becomes `StoreUnavailableError`; the caller's abort reason,
 * the content's own error and our own errors pass unchanged.
 */
export const unexpectedFailure = (error: unknown, signal: AbortSignal | undefined, what: string): unknown => {
  if (signal?.aborted) return signal.reason;
  if (isMdStoreError(error) || !isSdkResponseError(error)) return error;
  return unavailable(error, what);
};

/** A signal for one request: the caller's signal, plus a deadline while `clear` has not been called. */
interface RequestSignal {
  readonly signal: AbortSignal | undefined;
  clear(): void;
}

const requestSignal = (
  callerSignal: AbortSignal | undefined,
  timeoutMs: number | undefined,
): RequestSignal => {
  if (timeoutMs === undefined) return { signal: callerSignal, clear: () => {} };
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new DOMException(`S3 request timed out after ${timeoutMs} ms`, 'TimeoutError')),
    timeoutMs,
  );
  const signal = callerSignal ? AbortSignal.any([callerSignal, deadline.signal]) : deadline.signal;
  return { signal, clear: () => clearTimeout(timer) };
};

/** Options to hand to `client.send(command, options)`. */
export interface SendOptions {
  abortSignal?: AbortSignal;
}

/**
 * Runs one S3 request with an abort signal: the caller's, combined with the per-request timeout. The
 * timeout covers the request until its response arrives (for GetObject: until the headers, not while the
 * caller reads the body, which the caller's signal alone still governs).
 */
export const createRequester = (timeoutMs: number | undefined) => {
  return async <T>(what: string, signal: AbortSignal | undefined, run: (o: SendOptions) => Promise<T>) => {
    signal?.throwIfAborted();
    const scoped = requestSignal(signal, timeoutMs);
    try {
      return await run(scoped.signal ? { abortSignal: scoped.signal } : {});
    } catch (error) {
      throw requestFailure(error, signal, what);
    } finally {
      scoped.clear();
    }
  };
};

export type Request = ReturnType<typeof createRequester>;

/**
 * Errors of a request: the caller's abort reason when the caller aborted; an S3 refusal (4xx with a
 * code) unchanged, for the adapter to interpret; anything else (no response, timeout, 5xx) is
 * `StoreUnavailableError`, keeping the original as `cause`.
 */
const requestFailure = (error: unknown, signal: AbortSignal | undefined, what: string): unknown => {
  if (signal?.aborted) return signal.reason;
  const status = httpStatusOf(error);
  if (status !== undefined && status >= 400 && status < 500) return error;
  return unavailable(error, what);
};
