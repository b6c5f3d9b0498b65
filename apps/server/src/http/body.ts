import type { IncomingMessage, ServerResponse } from 'node:http';
import { issueAt } from '@mdstore/core';
import { HttpError } from './errors.js';

/** The media type of a `Content-Type` value, lower case and without parameters (`charset=…` is allowed). */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  const type = contentType?.split(';', 1)[0]?.trim().toLowerCase();
  return type ? type : undefined;
}

export function requireMediaType(req: IncomingMessage, expected: string): void {
  if (mediaTypeOf(req.headers['content-type']) !== expected) {
    throw new HttpError(415, `Unsupported Media Type: Content-Type must be ${expected}`);
  }
}

export const jsonInvalid = () => new HttpError(400, [issueAt(['body'], 'jsonInvalid')]);
const bodyTooLarge = (maxBytes: number) =>
  new HttpError(413, `Request body too large: the maximum is ${maxBytes} bytes`);

/**
 * Above this many bytes a JSON body is not parsed on the thread serving requests when a `JsonParser` is
 * given (the server's is its content work pool): `JSON.parse` of 1 MiB takes a few milliseconds, of the
 * 81 MiB a changeset may send about a second, and the UTF-8 decoding before it is of the same order.
 */
export const INLINE_JSON_MAX_BYTES = 1024 * 1024;

/**
 * Parses a JSON body's UTF-8 bytes somewhere other than the thread serving requests (content-work/
 * pool.ts), with a deadline; rejects as `readJsonBody` would (400 `jsonInvalid`), or with the pool's
 * refusals (503 busy, 413 past its bounds). The bytes are handed over, not copied: the caller no longer
 * reads them.
 */
export type JsonParser = (bytes: Uint8Array, signal?: AbortSignal) => Promise<unknown>;

/** Decodes and parses a JSON body (inline, or in a worker); 400 `jsonInvalid` when it is not. */
export function parseJsonBytes(bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw jsonInvalid();
  }
  try {
    return JSON.parse(text);
  } catch {
    throw jsonInvalid();
  }
}

/**
 * Reads a JSON body of at most `maxBytes`, counting the bytes as they arrive (its media type and a
 * declared length were judged before: see `jsonRequestBody`). A body above `INLINE_JSON_MAX_BYTES` is
 * parsed by `parse` when one is given (the server gives its pool's), so no request holds the event loop
 * for its body; without one (embedding, tests) here. The request is never destroyed here, so an error
 * answer can still reach the client.
 */
export async function readJsonBody(
  req: IncomingMessage,
  maxBytes: number,
  parse?: JsonParser,
  signal?: AbortSignal,
): Promise<unknown> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    total += chunk.byteLength;
    if (total > maxBytes) throw bodyTooLarge(maxBytes);
    chunks.push(chunk);
  }
  if (parse === undefined || total <= INLINE_JSON_MAX_BYTES)
    return parseJsonBytes(Buffer.concat(chunks, total));
  // A buffer of its own (never a slice of Node's shared pool), so that it can be moved to the worker.
  const bytes = new Uint8Array(new ArrayBuffer(total));
  let offset = 0;
  for (const chunk of chunks.splice(0)) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return parse(bytes, signal);
}

const continued = new WeakSet<IncomingMessage>();

const expectsContinue = (req: IncomingMessage): boolean =>
  req.headers.expect?.trim().toLowerCase() === '100-continue';

/**
 * Tells a client waiting on `Expect: 100-continue` to send its body, once per request. The server
 * never sends `100 Continue` on its own (see `server.ts`): only when a body is about to be read.
 */
export function sendContinue(req: IncomingMessage, res: ServerResponse): void {
  if (!expectsContinue(req) || continued.has(req) || res.headersSent) return;
  continued.add(req);
  res.writeContinue();
}

/** The client is holding its body back, waiting for a `100 Continue` that was never sent. */
const bodyWithheld = (req: IncomingMessage): boolean => expectsContinue(req) && !continued.has(req);

export interface DrainLimits {
  /** Bytes of an unread request body read and discarded before giving up on it. */
  readonly maxBytes: number;
  readonly maxMs: number;
}

export const DEFAULT_DRAIN_LIMITS: DrainLimits = { maxBytes: 64 * 1024 * 1024, maxMs: 15_000 };

/**
 * Calls `send` once the rest of the request body has been read and discarded, so that the client,
 * still busy sending, receives the answer instead of a connection reset. A body beyond the limits is
 * abandoned: the answer goes out with `Connection: close` and the connection ends after it.
 */
export function sendAfterDrainingRequest(
  req: IncomingMessage,
  res: ServerResponse,
  send: () => void,
  limits: DrainLimits = DEFAULT_DRAIN_LIMITS,
): void {
  if (req.complete || req.readableEnded || req.destroyed) {
    send();
    return;
  }
  // The body will not come (no 100 Continue was sent): answer now, and end the connection after it,
  // since a client may still send the body after a timeout (RFC 9110 §10.1.1).
  if (bodyWithheld(req)) {
    if (!res.headersSent) res.setHeader('Connection', 'close');
    send();
    return;
  }
  // A declared body beyond the drain budget would be read for nothing: answer at once and close.
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limits.maxBytes) {
    if (!res.headersSent) res.setHeader('Connection', 'close');
    send();
    return;
  }
  let sent = false;
  let drained = 0;
  const finish = (abandon: boolean) => {
    if (sent) return;
    sent = true;
    clearTimeout(timer);
    req.off('data', onData);
    if (abandon && !res.headersSent) res.setHeader('Connection', 'close');
    if (!res.destroyed) send();
  };
  const onData = (chunk: Buffer) => {
    drained += chunk.byteLength;
    if (drained > limits.maxBytes) finish(true);
  };
  const timer = setTimeout(() => finish(true), limits.maxMs);
  req.unpipe();
  req.on('data', onData);
  req.once('end', () => finish(false));
  req.once('close', () => finish(true));
  req.resume();
}
