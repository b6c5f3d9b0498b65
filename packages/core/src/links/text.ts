import { LINKS_MAX_BYTES } from './extract.js';

/**
 * The whole text of a content, for its links, collected as it streams: up to `LINKS_MAX_BYTES` (past
 * that the file's links are not indexed, so nothing more is kept).
 */
export class LinkTextCollector {
  readonly #decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  readonly #parts: string[] = [];
  #bytes = 0;
  #truncated = false;

  push(chunk: Uint8Array): void {
    if (this.#truncated) return;
    this.#bytes += chunk.byteLength;
    if (this.#bytes > LINKS_MAX_BYTES) {
      this.#truncated = true;
      this.#parts.length = 0;
      return;
    }
    this.#parts.push(this.#decoder.decode(chunk, { stream: true }));
  }

  /** The text, or null when the content passed the limit. */
  text(): string | null {
    if (this.#truncated) return null;
    this.#parts.push(this.#decoder.decode());
    return this.#parts.join('');
  }
}
