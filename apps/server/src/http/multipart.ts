import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import {
  type ByteStream,
  issueAt,
  MalformedInputError,
  type UploadPart,
  type ValidationIssue,
} from '@mdstore/core';
import busboy from 'busboy';
import { mediaTypeOf } from './body.js';
import { FilenameEncodingWatch } from './multipart-names.js';

/** The form fields the upload reads besides the file; any other field is ignored. */
const FIELDS = ['metadata', 'sha256'] as const;
type FieldName = (typeof FIELDS)[number];
const isField = (name: string): name is FieldName => (FIELDS as readonly string[]).includes(name);

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
/** The filename rules' answer to a name that is not Unicode text (as for a lone surrogate). */
const FILENAME_NOT_UTF8 = () => malformed(issueAt(['body', 'file'], 'notUnicode'));
const FIELD_REPEATED = (name: FieldName) =>
  malformed(issue(['body', name], `Value error, at most one ${name} field is allowed`));
const FIELD_TOO_LARGE = (name: FieldName) =>
  name === 'metadata'
    ? malformed(issueAt(['body', 'metadata'], 'metadataTooLarge'))
    : malformed(issue(['body', name], 'Value error, the field is too large'));

const noop = () => {};

/**
 * Reads a `multipart/form-data` upload with busboy and resolves with the `file` part as soon as its
 * header arrives, so the core judges the filename before any content is read and streams the content
 * without buffering it. Rejects with a `MalformedInputError` (400) when the form is wrong before that
 * part (not multipart, malformed, no `file` part); later problems (a second `file` part, a truncated
 * field, a malformed end) surface through the part's content and its late fields. A non-multipart body
 * is a 400 rather than a 415, as the interface lists 400 for an invalid file format and keeps 415 for a
 * wrong file extension.
 *
 * Busboy's own limits would fail silently (`fileSize` truncates, `files` drops parts, `fieldSize`
 * truncates), so the file size is left to the core and the other limits are turned into errors here.
 * The caller owns `req`: on rejection it must still drain or close the request.
 */
export function receiveUpload(
  req: IncomingMessage,
  options: { limits: MultipartLimits; signal: AbortSignal },
): Promise<UploadPart> {
  return new Promise<UploadPart>((resolve, reject) => {
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
    new UploadForm(parser, options, resolve, reject, boundaryOf(req.headers['content-type'])).start(req);
  });
}

/** The `boundary` parameter of a multipart `Content-Type` (busboy refuses the form without one). */
function boundaryOf(contentType: string | undefined): string {
  const match = /;\s*boundary\s*=\s*(?:"([^"]*)"|([^;\s]+))/i.exec(contentType ?? '');
  return match?.[1] ?? match?.[2] ?? '';
}

class UploadForm {
  private readonly fields = new Map<FieldName, string>();
  private readonly names: FilenameEncodingWatch;
  private fileSeen = false;
  private ended = false;
  private failure: Error | undefined;
  private readonly formEnd: Promise<void>;
  private endForm!: () => void;
  private failForm!: (error: Error) => void;

  constructor(
    private readonly parser: busboy.Busboy,
    private readonly options: { limits: MultipartLimits; signal: AbortSignal },
    private readonly resolve: (part: UploadPart) => void,
    private readonly reject: (error: unknown) => void,
    boundary: string,
  ) {
    this.names = new FilenameEncodingWatch(boundary);
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
    // busboy closes after every form, whole or not: only one that closes before its end is malformed
    // (checked first, so a whole form builds no error).
    parser.on('close', () => {
      if (!this.ended) this.fail(MALFORMED_FORM());
    });
    const onAbort = () => parser.destroy(new Error('The client went away'));
    if (this.options.signal.aborted) onAbort();
    else this.options.signal.addEventListener('abort', onAbort, { once: true });
    // Registered before the pipe, so each chunk is scanned before busboy parses it.
    req.on('data', (chunk: Buffer) => this.names.push(chunk));
    req.pipe(parser);
  }

  private onField(name: string, value: string, truncated: boolean): void {
    if (name === 'file') this.fail(FILE_WITHOUT_NAME());
    else if (!isField(name)) return;
    else if (truncated) this.fail(FIELD_TOO_LARGE(name));
    else if (this.fields.has(name)) this.fail(FIELD_REPEATED(name));
    else this.fields.set(name, value);
  }

  private onFile(name: string, stream: Readable, filename: string | undefined): void {
    stream.on('error', noop);
    if (this.failure) {
      stream.resume();
      return;
    }
    if (isField(name)) {
      this.readFieldPart(name, stream);
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
    if (this.names.invalidFilename) {
      stream.resume();
      this.fail(FILENAME_NOT_UTF8());
      return;
    }
    this.fileSeen = true;
    this.resolve({
      filename: filename ?? '',
      content: this.contentThenFormEnd(stream),
      metadata: this.fieldNowOrAtFormEnd('metadata'),
      sha256: this.fieldNowOrAtFormEnd('sha256'),
    });
  }

  /** A field that came before the file, or a promise of its value once the whole form has been read. */
  private fieldNowOrAtFormEnd(name: FieldName): string | Promise<string | undefined> {
    const known = this.fields.get(name);
    if (known !== undefined) return known;
    const late = this.formEnd.then(() => this.fields.get(name));
    late.catch(noop);
    return late;
  }

  /** A field sent as a file part (as browsers do for a Blob): read as text, bounded like a field. */
  private readFieldPart(name: FieldName, stream: Readable): void {
    const chunks: Buffer[] = [];
    let total = 0;
    stream.on('data', (chunk: Buffer) => {
      total += chunk.byteLength;
      if (total <= this.options.limits.fieldBytes) chunks.push(chunk);
    });
    stream.on('end', () => {
      if (total > this.options.limits.fieldBytes) this.fail(FIELD_TOO_LARGE(name));
      else this.onField(name, Buffer.concat(chunks).toString('utf8'), false);
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
