import { SEARCH_LIMITS } from './limits.js';

/**
 * The content's text as search reads it, taken from the upload as it streams: only the first
 * `maxBytes` (1 MiB) are decoded and kept, so memory stays bounded whatever the file's size. A
 * character cut by the limit is left out; chunks may split characters anywhere.
 */
export class ContentTextCollector {
  readonly #decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  readonly #parts: string[] = [];
  readonly #maxBytes: number;
  #bytes = 0;
  #truncated = false;
  #text: string | undefined;

  constructor(maxBytes: number = SEARCH_LIMITS.contentMaxBytes) {
    this.#maxBytes = maxBytes;
  }

  /** Takes the next chunk; bytes past the limit are dropped at once. */
  push(chunk: Uint8Array): void {
    if (this.#text !== undefined) throw new Error('ContentTextCollector: push after text()');
    const room = this.#maxBytes - this.#bytes;
    if (room <= 0) {
      if (chunk.byteLength > 0) this.#truncated = true;
      return;
    }
    const kept = chunk.byteLength > room ? chunk.subarray(0, room) : chunk;
    if (kept !== chunk) this.#truncated = true;
    this.#bytes += kept.byteLength;
    this.#parts.push(this.#decoder.decode(kept, { stream: true }));
  }

  /** Whether bytes past the limit were seen. */
  get truncated(): boolean {
    return this.#truncated;
  }

  /**
   * The decoded text of the kept bytes. Ends the collection. When the limit cut the content, an
   * incomplete last character is dropped rather than turned into U+FFFD.
   */
  text(): string {
    if (this.#text === undefined) {
      if (!this.#truncated) this.#parts.push(this.#decoder.decode());
      this.#text = this.#parts.join('');
      this.#parts.length = 0;
    }
    return this.#text;
  }
}

const encoder = new TextEncoder();
let scratch = new Uint8Array(0);

/**
 * The longest prefix of `text` whose UTF-8 fits in `maxBytes`, never splitting a code point (a lone
 * surrogate counts as 3 bytes, as TextEncoder writes U+FFFD for it). `encodeInto` does the walk natively
 * and stops before a character that would not fit; a 1 MiB text costs a fraction of a JS loop's time.
 */
export function truncateUtf8(text: string, maxBytes: number): string {
  // Every code unit takes at most 3 bytes: short texts need no walk.
  if (text.length * 3 <= maxBytes) return text;
  if (scratch.length < maxBytes) scratch = new Uint8Array(maxBytes);
  const { read } = encoder.encodeInto(text, scratch.subarray(0, maxBytes));
  return read >= text.length ? text : text.slice(0, read);
}
