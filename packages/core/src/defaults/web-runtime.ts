import { sha256 } from '@noble/hashes/sha2';
import type { ApiKeySecrets, Clock, ContentHashing, IdSource } from '../ports/runtime.js';

/**
 * Default runtime ports built on the Web Crypto API that Node (and every modern runtime) provides as a
 * global, so the core stays free of Node imports.
 */
export const systemClock: Clock = { now: () => Date.now() };

export const randomIds: IdSource = { uuid: () => globalThis.crypto.randomUUID() };

const toHex = (bytes: ArrayBuffer | Uint8Array) =>
  Array.from(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes), (byte) =>
    byte.toString(16).padStart(2, '0'),
  ).join('');

const base64Url = (bytes: Uint8Array) => {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
};

/**
 * Anything shaped like an API key (`mds_`, or `mds%5F` percent-encoded, then at least 16 base64url
 * characters: a whole key, or most of one), for logs to redact wherever a key may have been pasted.
 */
const API_KEY_SHAPE = /mds(?:_|%5f)[A-Za-z0-9_-]{16,}/gi;

/** `text` with everything shaped like an API key replaced by `replacement`. */
export const redactApiKeys = (text: string, replacement = 'mds_[redacted]'): string =>
  text.replace(API_KEY_SHAPE, replacement);

/** Keys look like `mds_` + 43 base64url characters (256 random bits); only their SHA-256 is stored. */
export const webCryptoSecrets: ApiKeySecrets = {
  generate() {
    const bytes = new Uint8Array(32);
    globalThis.crypto.getRandomValues(bytes);
    return `mds_${base64Url(bytes)}`;
  },
  async hash(secret: string) {
    const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(secret));
    return toHex(digest);
  },
};

/** SHA-256 in pure JavaScript (audited `@noble/hashes`): the core runs anywhere without Node's crypto. */
export const portableHashing: ContentHashing = {
  sha256() {
    const hash = sha256.create();
    return {
      update: (bytes) => {
        hash.update(bytes);
      },
      digestHex: () => toHex(hash.digest()),
    };
  },
};
