import { createHash, randomBytes } from 'node:crypto';
import type { ApiKeySecrets, ContentHashing, RecordsRepository } from '@mdstore/core';

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

/** The name of the cursor secret among the store's shared secrets. */
const CURSOR_SECRET_NAME = 'cursor';

/**
 * The cursor secret every instance sharing the store uses when none is configured (extensions §3): read
 * from the store, or made (256 random bits) and kept there by the first instance; a second one starting
 * at the same moment gets the first one's (the store keeps the first writer's).
 */
export async function keptCursorSecret(records: RecordsRepository): Promise<string> {
  const kept = await records.findStoreSecret({ name: CURSOR_SECRET_NAME });
  if (kept !== null) return kept;
  const value = randomBytes(32).toString('base64url');
  return records.withTransaction((tx) => tx.keepStoreSecret({ name: CURSOR_SECRET_NAME, value }));
}
