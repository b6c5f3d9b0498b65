import { createHash, randomBytes } from 'node:crypto';
import type { ApiKeySecrets, ContentHashing } from '@mdstore/core';

/**
 * The core's `webCryptoSecrets` on `node:crypto`: the same key format (`mds_` + 43 base64url characters,
 * 256 random bits) and the same hash (hex SHA-256 of the key's UTF-8 bytes), so stored keys keep working.
 * Hashing synchronously skips WebCrypto's promise and thread-pool job, which cost about 13% of the
 * server's time on an authenticated GET; a SHA-256 of ~50 bytes takes a microsecond or two.
 */
export const nodeCryptoSecrets: ApiKeySecrets = {
  generate: () => `mds_${randomBytes(32).toString('base64url')}`,
  hash: async (secret) => createHash('sha256').update(secret, 'utf8').digest('hex'),
};

/** Content hashing on `node:crypto` (native, several times faster than the core's portable default). */
export const nodeCryptoHashing: ContentHashing = {
  sha256() {
    const hash = createHash('sha256');
    return {
      update: (bytes) => {
        hash.update(bytes);
      },
      digestHex: () => hash.digest('hex'),
    };
  },
};

/**
 * The HMAC key of list cursors from `MDSTORE_CURSOR_SECRET` (SHA-256 of a label and the secret, so the
 * key is 32 bytes whatever the secret's length), or undefined for the core's random key per process.
 */
export const cursorKeyOf = (secret: string | null): Uint8Array | undefined =>
  secret === null
    ? undefined
    : new Uint8Array(createHash('sha256').update('mdstore list cursors\n').update(secret, 'utf8').digest());
