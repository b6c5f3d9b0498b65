import { pipeline } from 'node:stream/promises';
import { type ByteStream, contentRangeHeader, formatReprDigest } from '@mdstore/core';
import type { Request, Response } from 'express';
import { principalOf } from '../auth.js';
import { attachmentDisposition } from '../content-disposition.js';
import { conditionsOf, headerValue, setFileValidators } from '../validators.js';
import { isoDate } from '../views.js';
import { filenameOf, projectIdOf, type RouteDeps, signalOf } from './context.js';
import { downloadPart, partQueryOf } from './editing.js';

/**
 * Download (`GET`/`HEAD`): preconditions (304/412), one byte range (206/416) read from the store for that
 * part only, and the content streamed with backpressure; a client that goes away aborts the read.
 */
export async function download(deps: RouteDeps, req: Request, res: Response): Promise<void> {
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
  try {
    await pipeline(exactly(content, Number(res.getHeader('Content-Length'))), res);
  } catch (error) {
    if (res.destroyed && !res.writableFinished && signalOf(res).aborted) return; // the client left
    deps.logger.warn('download interrupted', {
      path: req.originalUrl.split('?', 1)[0],
      error: error instanceof Error ? error.message : String(error),
    });
    res.destroy();
  }
}

/**
 * The content as announced by `Content-Length`, or a failure: a store that produces more bytes than the
 * record says (one that ignores a range) must never run past the answer into the connection, and one
 * that produces fewer must not end the answer short as if it were whole. The answer is then cut.
 */
async function* exactly(content: ByteStream, length: number): ByteStream {
  let sent = 0;
  for await (const chunk of content) {
    sent += chunk.byteLength;
    if (sent > length) throw new Error(`The store produced more than the ${length} bytes announced`);
    yield chunk;
  }
  if (sent !== length) throw new Error(`The store produced ${sent} of the ${length} bytes announced`);
}
