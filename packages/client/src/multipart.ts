import { type ContentInput, framedStream, isStreamInput, toWireBody } from './content.js';
import type { WireBody } from './transport.js';

const encoder = new TextEncoder();

/**
 * RFC 5987 `ext-value` of a filename: UTF-8, percent-encoded. The server reads `filename*` exactly, so
 * every name (quotes, non-ASCII, `%` included) arrives as it was given.
 */
export function extendedFilename(name: string): string {
  return `UTF-8''${encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}

function boundary(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  return `mdstore-${[...bytes].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export interface UploadForm {
  readonly filename: string;
  readonly content: ContentInput;
  /** The `metadata` field: a JSON object, sent as text. */
  readonly metadata?: unknown;
  /** The `sha256` field: lower-case hex of the content. */
  readonly sha256?: string;
}

/**
 * The upload's `multipart/form-data` body, built by hand rather than with `FormData`: `FormData` escapes
 * quotes in filenames as `%22`, which the server (rightly) keeps as three characters. Fields come before
 * the file so the server judges them before any content. A replayable content gives a `Blob` (retries can
 * send it again; a disk-backed `Blob` still streams); a stream gives a stream.
 */
export function uploadBody(form: UploadForm): { contentType: string; body: WireBody } {
  const mark = boundary();
  let head = '';
  if (form.metadata !== undefined) {
    head += `--${mark}\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n${JSON.stringify(form.metadata)}\r\n`;
  }
  if (form.sha256 !== undefined) {
    head += `--${mark}\r\nContent-Disposition: form-data; name="sha256"\r\n\r\n${form.sha256}\r\n`;
  }
  head += `--${mark}\r\nContent-Disposition: form-data; name="file"; filename*=${extendedFilename(form.filename)}\r\n`;
  head += 'Content-Type: text/markdown\r\n\r\n';
  const tail = encoder.encode(`\r\n--${mark}--\r\n`);
  const contentType = `multipart/form-data; boundary=${mark}`;
  const body = toWireBody(form.content);
  if (isStreamInput(form.content) || body instanceof ReadableStream) {
    return {
      contentType,
      body: framedStream(encoder.encode(head), body as ReadableStream<Uint8Array>, tail),
    };
  }
  return { contentType, body: new Blob([head, body as Uint8Array<ArrayBuffer> | Blob | ArrayBuffer, tail]) };
}
