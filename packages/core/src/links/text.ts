import { concatBytes } from '../bytes.js';
import { LINKS_MAX_BYTES } from './extract.js';

/**
 * The whole text of a content, for its links, collected as it streams: up to `LINKS_MAX_BYTES` (past
 * that the file's links are not indexed, so nothing more is kept). The bytes are kept as they come and
 * decoded once at the end (one native decode of the whole, instead of one per chunk and a join).
 */
export class LinkTextCollector {
  readonly #chunks: Uint8Array[] = [];
  #bytes = 0;
  #truncated = false;

  push(chunk: Uint8Array): void {
    if (this.#truncated) return;
    this.#bytes += chunk.byteLength;
    if (this.#bytes > LINKS_MAX_BYTES) {
      this.#truncated = true;
      this.#chunks.length = 0;
      return;
    }
    this.#chunks.push(chunk);
  }

  /** The text, or null when the content passed the limit. */
  text(): string | null {
    if (this.#truncated) return null;
    const bytes = concatBytes(this.#chunks, this.#bytes);
    this.#chunks.length = 0;
    return new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
  }
}
