import { hmac } from '@noble/hashes/hmac';
import { sha256 } from '@noble/hashes/sha2';

/** Standard Webhooks' secret prefix. */
export const SECRET_PREFIX = 'whsec_';

const toBase64 = (bytes: Uint8Array): string => {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
};

const fromBase64 = (text: string): Uint8Array => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/** A new secret: `whsec_` + base64 of `bytes` random bytes. */
export function newWebhookSecret(bytes: number): string {
  return SECRET_PREFIX + toBase64(globalThis.crypto.getRandomValues(new Uint8Array(bytes)));
}

/**
 * The `webhook-signature` header of Standard Webhooks: `v1,` + base64 of HMAC-SHA256 over
 * `id.timestamp.body`, keyed with the secret's decoded bytes (the part after `whsec_`).
 */
export function signWebhook(o: {
  secret: string;
  id: string;
  timestampSeconds: number;
  body: string;
}): string {
  const key = fromBase64(
    o.secret.startsWith(SECRET_PREFIX) ? o.secret.slice(SECRET_PREFIX.length) : o.secret,
  );
  const signed = new TextEncoder().encode(`${o.id}.${o.timestampSeconds}.${o.body}`);
  return `v1,${toBase64(hmac(sha256, key, signed))}`;
}
