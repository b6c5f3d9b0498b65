/**
 * UTF-8 validity, one chunk at a time, so that content is checked while it streams and never has to be
 * held whole. The WHATWG decoder in fatal mode rejects every ill-formed sequence: overlong forms,
 * surrogates (ED A0..BF), code points above U+10FFFF, stray continuation bytes and truncated sequences.
 * A byte-order mark is valid UTF-8 and is kept by the caller, who stores the original bytes.
 */
export class Utf8Validator {
  readonly #decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  #valid = true;

  /** Feeds the next chunk; returns false once the bytes seen so far cannot be UTF-8. */
  push(chunk: Uint8Array): boolean {
    if (!this.#valid) return false;
    try {
      this.#decoder.decode(chunk, { stream: true });
    } catch {
      this.#valid = false;
    }
    return this.#valid;
  }

  /** Ends the input; returns false when the whole input was not UTF-8 (e.g. a truncated last sequence). */
  finish(): boolean {
    if (!this.#valid) return false;
    try {
      this.#decoder.decode();
    } catch {
      this.#valid = false;
    }
    return this.#valid;
  }
}

export function isValidUtf8(bytes: Uint8Array): boolean {
  const validator = new Utf8Validator();
  return validator.push(bytes) && validator.finish();
}
