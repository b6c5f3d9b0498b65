import { baseName } from '@mdstore/core';

/**
 * `Content-Disposition: attachment` naming the file's last segment (extensions §1: `guides/setup.md`
 * downloads as `setup.md`), that is safe for any filename (RFC 6266 / RFC 8187): an ASCII
 * fallback in `filename="…"` and the exact name, percent-encoded as UTF-8, in `filename*`. The result
 * is pure printable ASCII, so it can never carry CR, LF or any other control character.
 */
export function attachmentDisposition(filename: string): string {
  const name = baseName(filename);
  return `attachment; filename="${asciiFallback(name)}"; filename*=UTF-8''${encodeRfc8187(name)}`;
}

/** Quotes, backslashes, control characters and everything outside printable ASCII become `_`. */
export function asciiFallback(filename: string): string {
  let fallback = '';
  for (const character of filename)
    fallback += /^[\x20-\x7e]$/.test(character) && !/["\\]/.test(character) ? character : '_';
  return fallback;
}

/** RFC 8187 `value-chars`: every byte outside `attr-char` is percent-encoded. */
export function encodeRfc8187(value: string): string {
  const bytes = new TextEncoder().encode(value);
  let encoded = '';
  for (const byte of bytes) {
    const character = String.fromCharCode(byte);
    encoded += ATTR_CHAR.test(character) ? character : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return encoded;
}

const ATTR_CHAR = /^[A-Za-z0-9!#$&+\-.^_`|~]$/;
