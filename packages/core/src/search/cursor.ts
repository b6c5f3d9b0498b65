import { concatBytes } from '../bytes.js';
import { invalidAt, type Loc } from './issues.js';
import { SEARCH_LIMITS } from './limits.js';

/** What a cursor is bound to: account, project(s), sort, order, prefix, delimiter… (JSON values). */
export type CursorBinding = { readonly [key: string]: unknown };
/** Web Crypto's key type, named without a DOM or Node type library. */
type WebCryptoKey = Awaited<ReturnType<typeof globalThis.crypto.subtle.importKey>>;
/** An HMAC-SHA-256 key (sign and verify), or the raw secret bytes to make one from. */
export type CursorKey = WebCryptoKey | Uint8Array;

const VERSION = 1;
const MAC_BYTES = 32;
const encoder = new TextEncoder();

/**
 * A keyset cursor (extensions §3): base64url (no padding) of a version byte, the HMAC-SHA-256 of the
 * payload under the binding, and the payload as JSON. The MAC covers the version, the canonical JSON of
 * the binding (keys sorted) and the payload, so a cursor read with another binding, or changed in any
 * bit, is refused. The payload is the keyset position (sort key values, filename, project id); it is
 * readable but cannot be forged. A token over 2 KiB is a programming error (payloads are small).
 */
export async function encodeCursor(
  payload: unknown,
  binding: CursorBinding,
  key: CursorKey,
): Promise<string> {
  const json = JSON.stringify(payload) as string | undefined;
  if (json === undefined) throw new TypeError('Cursor payload must be a JSON value');
  const body = encoder.encode(json);
  const mac = new Uint8Array(
    await globalThis.crypto.subtle.sign('HMAC', await hmacKey(key), signed(binding, body)),
  );
  const token = toBase64Url(concatBytes([new Uint8Array([VERSION]), mac, body]));
  if (token.length > SEARCH_LIMITS.cursorMaxLength) throw new RangeError('Cursor payload too large');
  return token;
}

/**
 * The payload of a cursor made by `encodeCursor` with the same binding and key. Anything else (not a
 * string, over 2 KiB, not canonical base64url, too short, another version, a MAC that does not verify)
 * is an `InvalidInputError` at `loc`; the message never repeats the token.
 */
export async function decodeCursor(
  token: unknown,
  binding: CursorBinding,
  key: CursorKey,
  loc: Loc,
): Promise<unknown> {
  if (typeof token !== 'string' || token.length > SEARCH_LIMITS.cursorMaxLength)
    throw invalidAt(loc, 'cursor');
  const bytes = fromBase64Url(token);
  // A token too short for a MAC fails verification like any other.
  if (!bytes || bytes[0] !== VERSION) throw invalidAt(loc, 'cursor');
  const mac = bytes.subarray(1, 1 + MAC_BYTES);
  const body = bytes.subarray(1 + MAC_BYTES);
  if (!(await globalThis.crypto.subtle.verify('HMAC', await hmacKey(key), mac, signed(binding, body)))) {
    throw invalidAt(loc, 'cursor');
  }
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    throw invalidAt(loc, 'cursor');
  }
}

/** Imported keys by their bytes' object: importing costs about as much as signing a cursor. */
const imported = new WeakMap<Uint8Array, Promise<WebCryptoKey>>();

function hmacKey(key: CursorKey): Promise<WebCryptoKey> {
  if (!(key instanceof Uint8Array)) return Promise.resolve(key);
  let made = imported.get(key);
  if (!made) {
    made = globalThis.crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
      'verify',
    ]);
    imported.set(key, made);
  }
  return made;
}

/** What the MAC covers: a domain label and version, the binding, a separator, the payload. */
const signed = (binding: CursorBinding, body: Uint8Array): Uint8Array =>
  concatBytes([encoder.encode(`mdstore-cursor/${VERSION}\n${canonicalJson(binding)}\n`), body]);

/** JSON with object keys sorted, so that equal bindings sign equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([name, item]) => `${JSON.stringify(name)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** Bytes of canonical unpadded base64url, or undefined (other characters, bad length, stray bits). */
function fromBase64Url(text: string): Uint8Array | undefined {
  if (!BASE64URL.test(text) || text.length % 4 === 1) return undefined;
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
  const bytes = Uint8Array.from(binary, (character) => character.charCodeAt(0));
  return toBase64Url(bytes) === text ? bytes : undefined;
}
