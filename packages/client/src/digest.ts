/** SHA-256 as lower-case hex, with Web Crypto (Node 20 and browsers). */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

const HEX = /^[0-9a-f]{64}$/;

export function isSha256Hex(value: string): boolean {
  return HEX.test(value);
}

/** `sha-256=:<base64>:` (RFC 9530) of a hex SHA-256. */
export function digestField(hex: string): string {
  if (!isSha256Hex(hex)) throw new TypeError('sha256 must be 64 lower-case hex digits');
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return `sha-256=:${btoa(String.fromCharCode(...bytes))}:`;
}

/** The SHA-256 (hex) a `Repr-Digest` field announces, if it has one. */
export function sha256OfDigestField(field: string | null): string | undefined {
  const match = field === null ? null : /(?:^|,)\s*sha-256=:([A-Za-z0-9+/]+={0,2}):/.exec(field);
  if (!match?.[1]) return undefined;
  let binary: string;
  try {
    binary = atob(match[1]);
  } catch {
    return undefined;
  }
  if (binary.length !== 32) return undefined;
  return [...binary].map((c) => c.charCodeAt(0).toString(16).padStart(2, '0')).join('');
}
