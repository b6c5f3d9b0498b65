import { parseDictionary } from './structured-fields.js';

/**
 * A `Content-Digest` / `Repr-Digest` field (RFC 9530) or an upload's `sha256` form field, as far as
 * SHA-256 goes: not sent (or carrying only other algorithms), unreadable, or the digest in lower-case hex.
 */
export type Sha256Field =
  | { readonly kind: 'absent' }
  | { readonly kind: 'malformed' }
  | { readonly kind: 'sha-256'; readonly hex: string };

const SHA256_BYTES = 32;
const SHA256_HEX = /^[0-9a-f]{64}$/;

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * Parses `Content-Digest` or `Repr-Digest`: a Structured Field Dictionary (RFC 9651) of algorithm keys
 * and Byte Sequence values. Members other than `sha-256` are ignored, whatever they hold; a field that
 * is not a Dictionary, or whose `sha-256` member is not a 32-byte Byte Sequence, is malformed.
 * Parameters on the `sha-256` member are allowed and ignored.
 */
export function parseDigestField(value: string | undefined): Sha256Field {
  if (value === undefined) return { kind: 'absent' };
  const dictionary = parseDictionary(value);
  if (dictionary === undefined) return { kind: 'malformed' };
  const member = dictionary.get('sha-256');
  if (member === undefined) return { kind: 'absent' };
  if (member.kind !== 'item' || member.value.type !== 'byte-sequence') return { kind: 'malformed' };
  const digest = member.value.value;
  return digest.length === SHA256_BYTES ? { kind: 'sha-256', hex: toHex(digest) } : { kind: 'malformed' };
}

/** Parses the upload form field `sha256`: exactly 64 lower-case hex digits, nothing around them. */
export function parseSha256Hex(value: string | undefined): Sha256Field {
  if (value === undefined) return { kind: 'absent' };
  return SHA256_HEX.test(value) ? { kind: 'sha-256', hex: value } : { kind: 'malformed' };
}

/** `Repr-Digest` of content whose SHA-256 is `sha256Hex` (64 lower-case hex digits, else RangeError). */
export function formatReprDigest(sha256Hex: string): string {
  if (!SHA256_HEX.test(sha256Hex)) throw new RangeError('A SHA-256 digest is 64 lower-case hex digits');
  const binary = sha256Hex.replace(/../g, (pair) => String.fromCharCode(Number.parseInt(pair, 16)));
  return `sha-256=:${btoa(binary)}:`;
}
