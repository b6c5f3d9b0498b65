import { sha256Hex, sha256OfDigestField } from './digest.js';
import { MdStoreIntegrityError } from './errors.js';

/** The part of the content a `206` answer carries. */
export interface ContentRange {
  /** First byte, 0-based. */
  readonly start: number;
  /** Last byte, inclusive. */
  readonly end: number;
  /** The whole size. */
  readonly size: number;
}

/** The headers of a download (or of `HEAD`), read into fields. */
export interface FileHead {
  readonly filename: string;
  readonly etag: string | undefined;
  readonly lastModified: Date | undefined;
  /** The whole content's size (`X-File-Size`), also on a range. */
  readonly size: number | undefined;
  /** SHA-256 (hex) of the whole content, from `Repr-Digest`. */
  readonly sha256: string | undefined;
  readonly createdDate: string | undefined;
  readonly updatedDate: string | undefined;
  readonly requestId: string | undefined;
  readonly headers: Headers;
}

export function readFileHead(filename: string, headers: Headers): FileHead {
  const lastModified = headers.get('last-modified');
  const size = headers.get('x-file-size');
  return {
    filename,
    etag: headers.get('etag') ?? undefined,
    lastModified: lastModified === null ? undefined : new Date(lastModified),
    size: size === null ? undefined : Number(size),
    sha256: sha256OfDigestField(headers.get('repr-digest')),
    createdDate: headers.get('x-created-date') ?? undefined,
    updatedDate: headers.get('x-updated-date') ?? undefined,
    requestId: headers.get('x-request-id') ?? undefined,
    headers,
  };
}

/** Whether Web Crypto's digest is there (Node; browsers only in a secure context). */
const canDigest = () => globalThis.crypto?.subtle !== undefined;

function parseContentRange(value: string | null): ContentRange | undefined {
  const match = value === null ? null : /^bytes (\d+)-(\d+)\/(\d+)$/.exec(value.trim());
  if (!match) return undefined;
  return { start: Number(match[1]), end: Number(match[2]), size: Number(match[3]) };
}

/**
 * A download: its headers as fields and its content, read once, as a web stream (`body`), text or bytes.
 * `notModified` is true for a `304` (a conditional download whose copy is still current; no content).
 * In Node, `toNodeReadable(download)` from `@mdstore/client/node` gives a Node stream.
 */
export class FileDownload implements FileHead {
  readonly status: number;
  readonly notModified: boolean;
  readonly range: ContentRange | undefined;
  readonly filename: string;
  readonly etag: string | undefined;
  readonly lastModified: Date | undefined;
  readonly size: number | undefined;
  readonly sha256: string | undefined;
  readonly createdDate: string | undefined;
  readonly updatedDate: string | undefined;
  readonly requestId: string | undefined;
  readonly headers: Headers;

  constructor(
    filename: string,
    private readonly response: Response,
  ) {
    const head = readFileHead(filename, response.headers);
    this.filename = filename;
    this.etag = head.etag;
    this.lastModified = head.lastModified;
    this.size = head.size;
    this.sha256 = head.sha256;
    this.createdDate = head.createdDate;
    this.updatedDate = head.updatedDate;
    this.requestId = head.requestId;
    this.headers = response.headers;
    this.status = response.status;
    this.notModified = response.status === 304;
    this.range =
      response.status === 206 ? parseContentRange(response.headers.get('content-range')) : undefined;
  }

  /** The content as it arrives (null for a 304). Read it, or cancel it, exactly once. */
  get body(): ReadableStream<Uint8Array> | null {
    return this.notModified ? null : this.response.body;
  }

  /** The content as UTF-8 text. */
  async text(): Promise<string> {
    return new TextDecoder('utf-8', { fatal: true }).decode(await this.bytes());
  }

  /**
   * The content as bytes. A whole content (`200`) is checked against the SHA-256 of `Repr-Digest`:
   * a mismatch is an `MdStoreIntegrityError`. Where Web Crypto has no digest (a browser page served
   * over plain `http` from an address other than localhost is not a secure context) nothing is checked:
   * the content is still read.
   */
  async bytes(): Promise<Uint8Array> {
    if (this.notModified) throw new TypeError('a 304 answer has no content');
    const bytes = new Uint8Array(await this.response.arrayBuffer());
    if (this.status === 200 && this.sha256 !== undefined && canDigest()) {
      const actual = await sha256Hex(bytes);
      if (actual !== this.sha256) throw new MdStoreIntegrityError(this.sha256, actual);
    }
    return bytes;
  }

  /** Drops the content unread (frees the connection). */
  async cancel(): Promise<void> {
    await this.response.body?.cancel();
  }
}
