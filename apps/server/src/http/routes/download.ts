import { pipeline } from 'node:stream/promises';
import { type ByteStream, contentRangeHeader, type Download, formatReprDigest } from '@mdstore/core';
import type { Request, Response } from 'express';
import { isoDate } from '../../views.js';
import { DOWNLOAD_HEADERS, errors, FILE_VALIDATORS, markdown } from '../api/answers.js';
import { defineRoute } from '../api/route.js';
import { principalOf } from '../auth.js';
import { attachmentDisposition } from '../content-disposition.js';
import { loggedPath } from '../observe.js';
import { conditionsOf, headerValue, setFileValidators } from '../validators.js';
import { filenameOf, projectIdOf, type RouteDeps, signalOf } from './context.js';
import { downloadPart, PART_QUERY, partQueryOf } from './editing.js';
import { FORMAT_QUERY, formatOf, renderedFile } from './rendered.js';

export const downloadFile = defineRoute(
  {
    method: 'GET',
    path: '/api/projects/:project_id/files/:filename',
    operationId: 'downloadFile',
    summary: 'Download a file',
    description:
      'The raw content; one byte range with `Range`; conditional with the If-* headers. With `lines` or ' +
      '`section`, that part of the text instead (`X-Line-Range`; `Range` is then ignored). With ' +
      '`format=html`, the file rendered as a sanitised HTML fragment (`text/html`; `.mdx` as escaped ' +
      'source; links to other files of the project lead to the console; headings carry ids by ' +
      'GitHub’s slug rule); `Range`, `lines` and `section` are then ignored, and a file too large to ' +
      'render is 413 as for an outline.',
    tags: ['Files'],
    auth: 'apiKey',
    role: 'read',
    query: { ...PART_QUERY, ...FORMAT_QUERY },
    headers: ['If-Match', 'If-None-Match', 'If-Modified-Since', 'If-Unmodified-Since', 'Range', 'If-Range'],
    answers: {
      200: {
        ...markdown('The content, or the part asked for, or with `format=html` its HTML', DOWNLOAD_HEADERS),
        otherBodies: [{ contentType: 'text/html' }],
        optionalHeaders: ['Accept-Ranges', 'Repr-Digest', 'X-Line-Range'],
      },
      206: markdown('One byte range of the content', [
        ...DOWNLOAD_HEADERS,
        'Content-Range',
        'Accept-Ranges',
        'Repr-Digest',
      ]),
      304: { description: 'Not modified (no body)', headers: FILE_VALIDATORS },
      ...errors(403, 404, 412, 413, 416, 422),
    },
    head: { operationId: 'headFile', summary: 'Download headers only' },
  },
  (deps) => (req, res) => download(deps, req, res),
);

/**
 * Download (`GET`/`HEAD`): preconditions (304/412), one byte range (206/416) read from the store for that
 * part only, and the content streamed with backpressure; a client that goes away aborts the read.
 */
export async function download(deps: RouteDeps, req: Request, res: Response): Promise<void> {
  // `?format=html` (extensions §11): the file rendered, parts and ranges ignored.
  if (formatOf(req) === 'html') return renderedFile(deps, req, res);
  // `?lines=` or `?section=` (extensions §4): a part of the text instead, ranges ignored.
  const part = partQueryOf(req);
  if (part) return downloadPart(deps, req, res, part);
  const read = await deps.store.files.read({
    principal: principalOf(res),
    projectId: projectIdOf(req),
    filename: filenameOf(req),
    conditions: conditionsOf(req),
    range: req.headers.range,
    ifRange: headerValue(req.headers['if-range']),
    open: req.method !== 'HEAD',
    signal: signalOf(res),
  });
  await sendDownload(deps, req, res, read);
}

/**
 * The answer of a download, of the current content or of a kept revision (extensions §5): validators,
 * `304`, one range, the digest of the whole content, and the content streamed.
 */
export async function sendDownload(
  deps: RouteDeps,
  req: Request,
  res: Response,
  read: Download,
): Promise<void> {
  const { file } = read;
  setFileValidators(res, file);
  if (read.kind === 'not-modified') {
    res.status(304).end();
    return;
  }
  const { range, content } = read;
  res.status(range ? 206 : 200);
  res.setHeader('Content-Type', 'text/markdown; charset=utf-8');
  res.setHeader('Content-Length', String(range ? range.end - range.start + 1 : file.sizeBytes));
  if (range) res.setHeader('Content-Range', contentRangeHeader(range.start, range.end, file.sizeBytes));
  res.setHeader('Accept-Ranges', 'bytes');
  res.setHeader('Repr-Digest', formatReprDigest(file.sha256));
  res.setHeader('Content-Disposition', attachmentDisposition(file.filename));
  res.setHeader('X-File-Size', String(file.sizeBytes));
  res.setHeader('X-Created-Date', isoDate(file.createdAt));
  res.setHeader('X-Updated-Date', isoDate(file.updatedAt));
  if (content === null) {
    res.end();
    return;
  }
  await sendContent(deps, req, res, content);
}

/**
 * Streams a content whose headers are set (`Content-Length` among them) with backpressure; a client
 * that goes away aborts the read, and a store that breaks off cuts the answer (logged).
 */
export async function sendContent(deps: RouteDeps, req: Request, res: Response, content: ByteStream) {
  try {
    await sendExactly(content, Number(res.getHeader('Content-Length')), res);
  } catch (error) {
    if (res.destroyed && !res.writableFinished && signalOf(res).aborted) return; // the client left
    deps.logger.warn('download interrupted', {
      path: loggedPath(req.originalUrl),
      error: error instanceof Error ? error.message : String(error),
    });
    res.destroy();
  }
}

/**
 * The content as announced by `Content-Length`, or a failure (see `exactly`). A content that comes whole
 * in its first chunk (inline content, a small blob) is sent with one `end` once the store says it is
 * over, without a pipeline: for a 4 KiB download the pipeline's machinery was about a sixth of the
 * request's CPU time (docs/performance.md). Anything longer streams with backpressure.
 */
async function sendExactly(content: ByteStream, length: number, res: Response): Promise<void> {
  const chunks = content[Symbol.asyncIterator]();
  let done = false;
  try {
    const first = await chunks.next();
    if (first.done || first.value.byteLength < length) {
      done = true;
      await pipeline(exactly(resumed(first, chunks), length), res);
      return;
    }
    if (first.value.byteLength > length) throw tooMany(length);
    const after = await chunks.next();
    done = after.done === true;
    if (!done) throw tooMany(length);
    res.end(first.value);
  } finally {
    if (!done) await chunks.return?.();
  }
}

/** The chunks of an iterator of which the first was already taken. */
async function* resumed(first: IteratorResult<Uint8Array>, rest: AsyncIterator<Uint8Array>): ByteStream {
  if (first.done) return;
  let over = false;
  try {
    yield first.value;
    for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
    over = true;
  } finally {
    if (!over) await rest.return?.();
  }
}

const tooMany = (length: number) => new Error(`The store produced more than the ${length} bytes announced`);

/**
 * The content as announced by `Content-Length`, or a failure: a store that produces more bytes than the
 * record says (one that ignores a range) must never run past the answer into the connection, and one
 * that produces fewer must not end the answer short as if it were whole. The answer is then cut.
 */
async function* exactly(content: AsyncIterable<Uint8Array>, length: number): ByteStream {
  let sent = 0;
  for await (const chunk of content) {
    sent += chunk.byteLength;
    if (sent > length) throw tooMany(length);
    yield chunk;
  }
  if (sent !== length) throw new Error(`The store produced ${sent} of the ${length} bytes announced`);
}
