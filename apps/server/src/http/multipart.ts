import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { type ByteStream, issueAt, MalformedInputError, type ValidationIssue } from '@mdstore/core';
import busboy from 'busboy';
import { mediaTypeOf } from './body.js';

/** The one `file` part of an upload, handed to the core as soon as its header has been read. */
export interface UploadPart {
  readonly filename: string;
  /** The part's bytes; ends only once the whole form has been read and found well-formed. */
  readonly content: ByteStream;
  /** The `metadata` field: a string when it came before the file, else a promise settled at the form's end. */
  readonly metadata: string | undefined | Promise<string | undefined>;
}

export interface MultipartLimits {
  /** Largest `metadata` field (and largest value of any other field), in bytes. */
  readonly fieldBytes: number;
  readonly fields: number;
  readonly parts: number;
  readonly headerPairs: number;
}

export const DEFAULT_MULTIPART_LIMITS: MultipartLimits = {
  fieldBytes: 1024 * 1024,
  fields: 32,
  parts: 64,
  headerPairs: 32,
};

const issue = (loc: string[], msg: string): ValidationIssue => ({ loc, msg, type: 'value_error' });
const malformed = (...issues: ValidationIssue[]) => new MalformedInputError(issues);

const MALFORMED_FORM = () =>
  malformed(issue(['body'], 'Value error, the multipart/form-data body is malformed'));
const TOO_MANY_PARTS = () => malformed(issue(['body'], 'Value error, the form has too many parts'));
const FILE_MISSING = () => malformed(issueAt(['body', 'file'], 'fileMissing'));
const FILE_REPEATED = () => malformed(issueAt(['body', 'file'], 'fileRepeated'));
const FILE_WITHOUT_NAME = () => malformed(issueAt(['body', 'file'], 'filenameLength'));
const METADATA_REPEATED = () =>
  malformed(issue(['body', 'metadata'], 'Value error, at most one metadata field is allowed'));
const METADATA_TOO_LARGE = () => malformed(issueAt(['body', 'metadata'], 'metadataTooLarge'));

const noop = () => {};

/**
 * Reads a `multipart/form-data` upload with busboy and calls `upload` with the `file` part as soon as
 * its header arrives, so the core judges the filename before any content is read and streams the
 * content without buffering it. Resolves or rejects with the outcome of `upload`, or rejects with a
 * `MalformedInputError` (400) when the form itself is wrong: not multipart, malformed, no `file` part,
 * a second `file` part, a truncated `metadata` field. A non-multipart body is a 400 rather than a 415,
 * as the interface lists 400 for an invalid file format and keeps 415 for a wrong file extension.
 *
 * Busboy's own limits would fail silently (`fileSize` truncates, `files` drops parts, `fieldSize`
 * truncates), so the file size is left to the core and the other limits are turned into errors here.
 * The caller owns `req`: on rejection it must still drain or close the request.
 */
export function receiveUpload<T>(
  req: IncomingMessage,
  options: { limits: MultipartLimits; signal: AbortSignal; upload: (part: UploadPart) => Promise<T> },
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (mediaTypeOf(req.headers['content-type']) !== 'multipart/form-data') {
      reject(FILE_MISSING());
      return;
    }
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        // Keep the name exactly as sent: the core refuses `/` and `\` instead of silently stripping paths.
        preservePath: true,
        limits: {
          fieldSize: options.limits.fieldBytes,
          fields: options.limits.fields,
          parts: options.limits.parts,
          headerPairs: options.limits.headerPairs,
        },
      });
    } catch {
      reject(MALFORMED_FORM());
      return;
    }
    new UploadForm(parser, options, resolve, reject).start(req);
  });
}

class UploadForm<T> {
  private metadata: string | undefined;
  private fileSeen = false;
  private ended = false;
  private failure: Error | undefined;
  private readonly formEnd: Promise<void>;
  private endForm!: () => void;
  private failForm!: (error: Error) => void;

  constructor(
    private readonly parser: busboy.Busboy,
    private readonly options: {
      limits: MultipartLimits;
      signal: AbortSignal;
      upload: (part: UploadPart) => Promise<T>;
    },
    private readonly resolve: (value: T) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    this.formEnd = new Promise<void>((resolveEnd, rejectEnd) => {
      this.endForm = resolveEnd;
      this.failForm = rejectEnd;
    });
    // Nobody may be waiting for the form's end when it fails (the core already gave up): never unhandled.
    this.formEnd.catch(noop);
  }

  start(req: IncomingMessage): void {
    const { parser } = this;
    parser.on('field', (name, value, info) => this.onField(name, value, info.valueTruncated));
    parser.on('file', (name, stream, info) => this.onFile(name, stream, info.filename));
    parser.on('fieldsLimit', () => this.fail(TOO_MANY_PARTS()));
    parser.on('partsLimit', () => this.fail(TOO_MANY_PARTS()));
    parser.on('error', () => this.fail(MALFORMED_FORM()));
    parser.on('finish', () => this.onFormEnd());
    parser.on('close', () => this.fail(MALFORMED_FORM()));
    const onAbort = () => parser.destroy(new Error('The client went away'));
    if (this.options.signal.aborted) onAbort();
    else this.options.signal.addEventListener('abort', onAbort, { once: true });
    req.pipe(parser);
  }

  private onField(name: string, value: string, truncated: boolean): void {
    if (name === 'file') this.fail(FILE_WITHOUT_NAME());
    else if (name !== 'metadata') return;
    else if (truncated) this.fail(METADATA_TOO_LARGE());
    else if (this.metadata !== undefined) this.fail(METADATA_REPEATED());
    else this.metadata = value;
  }

  private onFile(name: string, stream: Readable, filename: string | undefined): void {
    stream.on('error', noop);
    if (this.failure) {
      stream.resume();
      return;
    }
    if (name === 'metadata') {
      this.readMetadataPart(stream);
      return;
    }
    if (name !== 'file') {
      stream.resume();
      return;
    }
    if (this.fileSeen) {
      stream.resume();
      this.fail(FILE_REPEATED());
      return;
    }
    this.fileSeen = true;
    const metadata = this.metadata !== undefined ? this.metadata : this.metadataAtFormEnd();
    const part = { filename: filename ?? '', content: this.contentThenFormEnd(stream), metadata };
    this.options.upload(part).then(this.resolve, this.reject);
  }

  private metadataAtFormEnd(): Promise<string | undefined> {
    const metadata = this.formEnd.then(() => this.metadata);
    metadata.catch(noop);
    return metadata;
  }

  /** A `metadata` part sent as a file (as browsers do for a Blob): read as text, bounded like a field. */
  private readMetadataPart(stream: Readable): void {
    const chunks: Buffer[] = [];
    let total = 0;
    stream.on('data', (chunk: Buffer) => {
      total += chunk.byteLength;
      if (total <= this.options.limits.fieldBytes) chunks.push(chunk);
    });
    stream.on('end', () => {
      if (total > this.options.limits.fieldBytes) this.fail(METADATA_TOO_LARGE());
      else this.onField('metadata', Buffer.concat(chunks).toString('utf8'), false);
    });
  }

  /**
   * The part's bytes, then a wait for the rest of the form: the upload cannot complete before the form
   * is known to be whole (no second file part, metadata read). Stream errors become a 400. The part is
   * not destroyed when the core stops reading early, so the request can still be drained and answered.
   */
  private async *contentThenFormEnd(stream: Readable): ByteStream {
    try {
      for await (const chunk of stream.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
        yield chunk;
      }
    } catch {
      throw this.failure ?? MALFORMED_FORM();
    }
    await this.formEnd;
  }

  private onFormEnd(): void {
    if (!this.fileSeen) {
      this.fail(FILE_MISSING());
      return;
    }
    this.ended = true;
    this.endForm();
  }

  private fail(error: Error): void {
    if (this.failure || this.ended) return;
    this.failure = error;
    this.failForm(error);
    if (!this.fileSeen) this.reject(error);
  }
}
