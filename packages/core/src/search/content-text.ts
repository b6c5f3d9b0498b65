import { SEARCH_LIMITS } from './limits.js';
import { countWords } from './tokenize.js';

/**
 * Bytes collected before the first check for the word limit: twice the largest front matter block, so
 * that a collection stopped by the word limit always holds the whole block (parsed from the same text).
 */
const FIRST_WORD_CHECK_BYTES = 2 * SEARCH_LIMITS.frontmatterMaxBytes;

/**
 * The content's text as search reads it, taken from the upload as it streams: only the first
 * `maxBytes` (1 MiB) are decoded and kept, so memory stays bounded whatever the file's size. A
 * character cut by the limit is left out; chunks may split characters anywhere.
 *
 * Nothing after the 16 000th word is ever indexed or kept (`searchableContentText`), so the collection
 * also stops once the text holds more words than that: at 128 KiB, then at each doubling of the size,
 * it counts the words of what it has (up to the 16 001st, so a check costs at most what it reads); when
 * the 16 001st word has begun, the first 16 000 are whole and the rest is dropped. The text search
 * makes of it is the same as from the whole 1 MiB; an upload of ordinary prose keeps about 128 KiB
 * instead of 1 MiB while it streams (50 concurrent uploads: 6 MiB instead of 50).
 */
export class ContentTextCollector {
  readonly #decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  readonly #parts: string[] = [];
  readonly #maxBytes: number;
  #bytes = 0;
  #truncated = false;
  #enoughWords = false;
  #nextWordCheck = FIRST_WORD_CHECK_BYTES;
  #text: string | undefined;

  constructor(maxBytes: number = SEARCH_LIMITS.contentMaxBytes) {
    this.#maxBytes = maxBytes;
  }

  /** Takes the next chunk; bytes past the limit are dropped at once. */
  push(chunk: Uint8Array): void {
    if (this.#text !== undefined) throw new Error('ContentTextCollector: push after text()');
    const room = this.#enoughWords ? 0 : this.#maxBytes - this.#bytes;
    if (room <= 0) {
      if (chunk.byteLength > 0) this.#truncated = true;
      return;
    }
    const kept = chunk.byteLength > room ? chunk.subarray(0, room) : chunk;
    if (kept !== chunk) this.#truncated = true;
    this.#bytes += kept.byteLength;
    this.#parts.push(this.#decoder.decode(kept, { stream: true }));
    if (this.#bytes >= this.#nextWordCheck && this.#bytes < this.#maxBytes) this.#checkWords();
  }

  /** Stops the collection when the text so far already holds more words than search reads. */
  #checkWords(): void {
    const text = this.#parts.join('');
    this.#parts.length = 0;
    this.#parts.push(text);
    this.#nextWordCheck *= 2;
    if (countWords(text, SEARCH_LIMITS.contentMaxWords + 1).count > SEARCH_LIMITS.contentMaxWords) {
      this.#enoughWords = true;
      this.#truncated = true;
    }
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
