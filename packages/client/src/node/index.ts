// Node-only helpers of @mdstore/client: Node streams in and out, files from disk.
import { openAsBlob } from 'node:fs';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeWebReadableStream } from 'node:stream/web';
import type { FileDownload } from '../download.js';

/** A download's content as a Node `Readable` (e.g. to `pipeline()` it into a file). */
export function toNodeReadable(download: FileDownload): Readable {
  const body = download.body;
  if (body === null) throw new TypeError('a 304 answer has no content');
  return Readable.fromWeb(body as unknown as NodeWebReadableStream<Uint8Array>);
}

/**
 * A file on disk as upload content: a `Blob` that streams from disk when sent and can be sent again on
 * a retry. (A Node `Readable` can be passed to `upload`/`updateContent` as it is, but only once.)
 */
export function fileContent(path: string): Promise<Blob> {
  return openAsBlob(path, { type: 'text/markdown' });
}
