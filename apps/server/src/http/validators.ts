import type { IncomingMessage, ServerResponse } from 'node:http';
import { type FileView, formatHttpDate, type ProjectView, type RequestConditions } from '@mdstore/core';

/** The conditional headers of a request (RFC 9110 §13), or undefined when it has none. */
export function conditionsOf(req: IncomingMessage): RequestConditions | undefined {
  const h = req.headers;
  const ifMatch = h['if-match'];
  const ifNoneMatch = h['if-none-match'];
  const ifModifiedSince = h['if-modified-since'];
  const ifUnmodifiedSince = h['if-unmodified-since'];
  if (
    ifMatch === undefined &&
    ifNoneMatch === undefined &&
    ifModifiedSince === undefined &&
    ifUnmodifiedSince === undefined
  ) {
    return undefined;
  }
  return { ifMatch, ifNoneMatch, ifModifiedSince, ifUnmodifiedSince };
}

/** Answers that carry an ETag may be kept by a client, which must revalidate them (extensions §2). */
const REVALIDATE = 'private, no-cache';

/** `ETag`, `Last-Modified` and `Cache-Control` of an answer about one file. */
export function setFileValidators(res: ServerResponse, file: FileView): void {
  res.setHeader('ETag', file.etag);
  res.setHeader('Last-Modified', formatHttpDate(file.updatedAt));
  res.setHeader('Cache-Control', REVALIDATE);
}

/** `ETag` and `Cache-Control` of an answer with one project. */
export function setProjectValidators(res: ServerResponse, project: ProjectView): void {
  res.setHeader('ETag', project.etag);
  res.setHeader('Cache-Control', REVALIDATE);
}

/** A header that may come on several lines, as one field value (RFC 9110 §5.3: lines joined by commas). */
export const headerValue = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value.join(', ') : value;
