/**
 * Busboy decodes a part's `filename` (and `filename*=UTF-8''…`) leniently: bytes that are not UTF-8
 * become U+FFFD, so `a%FF%FEb.md` would be stored as `a\uFFFD\uFFFDb.md` and collide with other names
 * (issue 22, finding 5), and a real U+FFFD cannot be told from a broken byte afterwards. This watch reads
 * the raw bytes of the body as they pass to busboy, finds every part header (after each `--boundary`
 * delimiter) and checks each filename parameter there, before busboy announces the part: a plain value's
 * bytes, and a `filename*` value's percent-decoded bytes, must be valid UTF-8. The scan is linear in the
 * body (one native `indexOf` per chunk) and keeps at most one header (16 KiB) and a delimiter's length.
 */

/** Busboy refuses part headers larger than this; the watch stops collecting one there too. */
const MAX_HEADER_BYTES = 16 * 1024;
const HEADER_END = Buffer.from('\r\n\r\n');
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

const EMPTY = Buffer.alloc(0);

export class FilenameEncodingWatch {
  private readonly delimiter: Buffer;
  /**
   * Searching: the last bytes of the body seen (fewer than a delimiter's length), which may begin a
   * delimiter cut by a chunk boundary; the body starts with `--boundary`, so a virtual CRLF before it
   * makes that a delimiter like the others. In a header: the header's bytes so far (at most 16 KiB).
   */
  private pending: Buffer = Buffer.from('\r\n');
  private inHeader = false;
  /** Set once a part header of the body names a file with bytes that are not UTF-8. */
  invalidFilename = false;

  constructor(boundary: string) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
  }

  /** Feeds the next chunk of the body, in order. Chunks are never copied whole, only searched. */
  push(chunk: Buffer): void {
    let data = chunk;
    while (data.length > 0 && !this.invalidFilename) {
      data = this.inHeader ? this.readHeader(data) : this.findDelimiter(data);
    }
  }

  /** What follows the next delimiter in `data` (a header starts there), or nothing. */
  private findDelimiter(data: Buffer): Buffer {
    const tail = this.pending;
    this.pending = EMPTY;
    if (tail.length > 0) {
      const seam = Buffer.concat([tail, data.subarray(0, this.delimiter.length - 1)]);
      const at = seam.indexOf(this.delimiter);
      if (at !== -1 && at < tail.length) {
        this.inHeader = true;
        return data.subarray(at + this.delimiter.length - tail.length);
      }
    }
    const at = data.indexOf(this.delimiter);
    if (at !== -1) {
      this.inHeader = true;
      return data.subarray(at + this.delimiter.length);
    }
    const keep = this.delimiter.length - 1;
    const source = data.length >= keep ? data : Buffer.concat([tail, data]);
    this.pending = Buffer.from(source.subarray(Math.max(0, source.length - keep)));
    return EMPTY;
  }

  /** Collects a part header up to its blank line and checks its filenames; returns what follows. */
  private readHeader(data: Buffer): Buffer {
    const header = this.pending.length > 0 ? Buffer.concat([this.pending, data]) : data;
    this.pending = EMPTY;
    const end = header.indexOf(HEADER_END);
    if (end === -1) {
      // Busboy refuses a longer header; the watch gives up on this one and looks for the next part.
      if (header.length > MAX_HEADER_BYTES) {
        this.inHeader = false;
        return data;
      }
      this.pending = Buffer.from(header);
      return EMPTY;
    }
    this.inHeader = false;
    if (!headerFilenamesAreUtf8(header.subarray(0, end))) this.invalidFilename = true;
    return header.subarray(end + HEADER_END.length);
  }
}

/** `filename` and `filename*` parameters of a header line, as raw (latin1) text. */
const FILENAME_PARAM = /;\s*(filename\*?)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)/gi;
const CONTENT_DISPOSITION = /^content-disposition\s*:/i;

function headerFilenamesAreUtf8(header: Buffer): boolean {
  for (const line of header.toString('latin1').split('\r\n')) {
    if (!CONTENT_DISPOSITION.test(line)) continue;
    for (const [, name, rawValue] of line.matchAll(FILENAME_PARAM)) {
      const value = rawValue!.trim();
      const bytes = name!.endsWith('*') ? extendedValueBytes(value) : Buffer.from(value, 'latin1');
      if (bytes !== undefined && !isUtf8(bytes)) return false;
    }
  }
  return true;
}

/** The bytes of an RFC 8187 value in UTF-8 (`UTF-8'lang'%xx…`); undefined for another charset. */
function extendedValueBytes(value: string): Buffer | undefined {
  const quote = value.indexOf("'");
  if (quote === -1 || !/^utf-?8$/i.test(value.slice(0, quote))) return undefined;
  const encoded = value.slice(value.indexOf("'", quote + 1) + 1);
  const bytes: number[] = [];
  for (let i = 0; i < encoded.length; i++) {
    const hex = encoded[i] === '%' ? encoded.slice(i + 1, i + 3) : '';
    if (/^[0-9a-f]{2}$/i.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(encoded.charCodeAt(i) & 0xff);
    }
  }
  return Buffer.from(bytes);
}

function isUtf8(bytes: Buffer): boolean {
  try {
    strictUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}
