import path from 'node:path';

/**
 * Maps bucket names and object keys to paths under the store's root.
 *
 * A key may hold any character, so it never reaches the filesystem as written: its UTF-8 bytes are
 * encoded in lower-case base32 (`a-z`, `2-7`), an alphabet that no filesystem folds or normalises and
 * that has no `.`, `/`, `\`, `%` or NUL. The encoding is split into segments of at most 200 characters
 * (filenames are limited to 255 bytes); every segment but the last is a directory named `<seg>.d`, the
 * last is a file named `<seg>.blob`, so a key whose encoding is a prefix of another's never needs one
 * name to be both a file and a directory.
 */

export const OBJECT_SUFFIX = '.blob';
export const DIRECTORY_SUFFIX = '.d';
/** Characters of encoding per segment; a multiple of 8, so each segment holds whole 5-byte groups. */
export const SEGMENT_LENGTH = 200;
export const MAX_KEY_BYTES = 1024;

const BUCKET_NAME = /^[a-z0-9-]{3,63}$/;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const SEGMENT_NAME = /^[a-z2-7]+$/;
const LONE_SURROGATE = /\p{Surrogate}/u;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export class InvalidBlobNameError extends TypeError {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidBlobNameError';
  }
}

export function assertBucketName(bucket: unknown): asserts bucket is string {
  if (typeof bucket !== 'string' || !BUCKET_NAME.test(bucket)) {
    throw new InvalidBlobNameError('Bucket names are 3-63 characters of a-z, 0-9 and -');
  }
}

export function assertKey(key: unknown): asserts key is string {
  if (typeof key !== 'string') throw new InvalidBlobNameError('A key must be a string');
  // A lone surrogate has no UTF-8 form: encoding would silently turn it into U+FFFD and collide.
  if (LONE_SURROGATE.test(key)) throw new InvalidBlobNameError('A key must be well-formed Unicode');
  if (key.includes('\0')) throw new InvalidBlobNameError('A key must not contain NUL');
  const bytes = Buffer.byteLength(key, 'utf8');
  if (bytes < 1 || bytes > MAX_KEY_BYTES) {
    throw new InvalidBlobNameError(`A key is 1-${MAX_KEY_BYTES} bytes of UTF-8`);
  }
}

export function base32Encode(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(buffer >> bits) & 31];
    }
  }
  if (bits > 0) out += ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/** Decodes canonical unpadded base32, or returns null for anything `base32Encode` cannot produce. */
export function base32Decode(text: string): Uint8Array | null {
  if (!SEGMENT_NAME.test(text)) return null;
  const bytes = new Uint8Array(Math.floor((text.length * 5) / 8));
  let buffer = 0;
  let bits = 0;
  let index = 0;
  for (const char of text) {
    buffer = ((buffer << 5) | ALPHABET.indexOf(char)) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes[index++] = (buffer >> bits) & 0xff;
    }
  }
  // Leftover bits must be padding zeros, and fewer than a whole character: otherwise two names
  // would decode to the same bytes.
  if (bits >= 5 || (buffer & ((1 << bits) - 1)) !== 0) return null;
  return bytes;
}

/** The on-disk path segments of a key, relative to its bucket directory. */
export function encodeKey(key: string): string[] {
  assertKey(key);
  const encoded = base32Encode(Buffer.from(key, 'utf8'));
  const segments: string[] = [];
  for (let start = 0; start < encoded.length; start += SEGMENT_LENGTH) {
    segments.push(encoded.slice(start, start + SEGMENT_LENGTH));
  }
  return segments.map(
    (segment, i) => segment + (i === segments.length - 1 ? OBJECT_SUFFIX : DIRECTORY_SUFFIX),
  );
}

/** The key stored under these on-disk segments, or null when they are not names `encodeKey` makes. */
export function decodeKey(segments: readonly string[]): string | null {
  if (segments.length === 0) return null;
  let encoded = '';
  for (const [i, name] of segments.entries()) {
    const last = i === segments.length - 1;
    const suffix = last ? OBJECT_SUFFIX : DIRECTORY_SUFFIX;
    if (!name.endsWith(suffix)) return null;
    const segment = name.slice(0, -suffix.length);
    if (segment.length === 0 || segment.length > SEGMENT_LENGTH) return null;
    if (!last && segment.length !== SEGMENT_LENGTH) return null;
    encoded += segment;
  }
  const bytes = base32Decode(encoded);
  if (bytes === null) return null;
  let key: string;
  try {
    key = strictUtf8.decode(bytes);
  } catch {
    return null;
  }
  try {
    assertKey(key);
  } catch {
    return null;
  }
  return key;
}

export function isInside(parent: string, child: string): boolean {
  const resolvedParent = path.resolve(parent);
  return path.resolve(child).startsWith(resolvedParent + path.sep);
}

/** Absolute directory of a bucket. */
export function resolveBucketDir(root: string, bucket: string): string {
  assertBucketName(bucket);
  const dir = path.resolve(root, bucket);
  if (!isInside(root, dir)) throw new InvalidBlobNameError('Bucket path escapes the store root');
  return dir;
}

/** Absolute path of an object's file; the second line of defence re-checks it stays in the bucket. */
export function resolveObjectPath(bucketDir: string, key: string): string {
  const file = path.resolve(bucketDir, ...encodeKey(key));
  if (!isInside(bucketDir, file)) throw new InvalidBlobNameError('Key path escapes its bucket');
  return file;
}
