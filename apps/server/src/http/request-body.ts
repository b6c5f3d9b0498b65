import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ByteStream, type DeferredBody, deferredBody, type UploadPart } from '@mdstore/core';
import { type JsonParser, readJsonBody, requireMediaType, sendContinue } from './body.js';
import { HttpError } from './errors.js';
import { type MultipartLimits, receiveUpload } from './multipart.js';

/**
 * The bodies the core reads once its checks have passed (see `DeferredBody`). `100 Continue` goes out
 * when the core starts reading, so a request refused before that (401, 429, 422, 404, 403, 412, 428,
 * 413 declared, 415) never has its body sent.
 */

const tooLarge = (maxBytes: number) =>
  new HttpError(413, `Request body too large: the maximum is ${maxBytes} bytes`);

/** A declared `Content-Length` above `maxBytes` is refused from the header alone. */
function refuseDeclaredAbove(req: IncomingMessage, maxBytes: number, error: () => Error): void {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw error();
}

/**
 * An `application/json` body of at most `maxBytes`; one above the inline bound is parsed by `parse`
 * when given (the routes whose limit passes that bound give the server's: see `readJsonBody`).
 */
export function jsonRequestBody(
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes: number,
  o: { parse?: JsonParser | undefined; signal?: AbortSignal } = {},
): DeferredBody<Promise<unknown>> {
  return deferredBody({
    check: () => {
      requireMediaType(req, 'application/json');
      refuseDeclaredAbove(req, maxBytes, () => tooLarge(maxBytes));
    },
    read: () => {
      sendContinue(req, res);
      return readJsonBody(req, maxBytes, o.parse, o.signal);
    },
  });
}

/** A `text/markdown` body (Update File Content); its size is judged by the core as it streams. */
export function markdownRequestBody(
  req: IncomingMessage,
  res: ServerResponse,
  o: { maxFileBytes: number; tooLarge: () => Error },
): DeferredBody<ByteStream> {
  return deferredBody({
    check: () => {
      requireMediaType(req, 'text/markdown');
      refuseDeclaredAbove(req, o.maxFileBytes, o.tooLarge);
    },
    read: () => {
      sendContinue(req, res);
      // Not destroyed when the core stops early (413, 400): the error answer must still get through.
      return req.iterator({ destroyOnReturn: false }) as ByteStream;
    },
  });
}

/**
 * A raw body of any media type (an attachment, extensions §12): a declared length above `maxBytes` is
 * refused from the header alone; the rest is counted by the blob store as it streams.
 */
export function rawRequestBody(
  req: IncomingMessage,
  res: ServerResponse,
  o: { maxBytes: number; tooLarge: () => Error },
): DeferredBody<ByteStream> {
  return deferredBody({
    check: () => refuseDeclaredAbove(req, o.maxBytes, o.tooLarge),
    read: () => {
      sendContinue(req, res);
      return req.iterator({ destroyOnReturn: false }) as ByteStream;
    },
  });
}

/**
 * Room an upload's form may take beyond the file itself: the `metadata` field (up to its limit), the
 * `sha256` field, part headers and boundaries. A declared length above the file limit plus this is 413
 * before the body is read (documented in docs/api.md).
 */
export const multipartAllowance = (limits: MultipartLimits): number => limits.fieldBytes + 64 * 1024;

/** A `multipart/form-data` upload, handed over as its `file` part once that part's header has arrived. */
export function uploadRequestBody(
  req: IncomingMessage,
  res: ServerResponse,
  o: { limits: MultipartLimits; maxFileBytes: number; tooLarge: () => Error; signal: AbortSignal },
): DeferredBody<Promise<UploadPart>> {
  return deferredBody({
    check: () => refuseDeclaredAbove(req, o.maxFileBytes + multipartAllowance(o.limits), o.tooLarge),
    read: () => {
      sendContinue(req, res);
      return receiveUpload(req, { limits: o.limits, signal: o.signal });
    },
  });
}
