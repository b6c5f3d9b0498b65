import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  assertBucketName,
  assertKey,
  base32Decode,
  base32Encode,
  decodeKey,
  encodeKey,
  InvalidBlobNameError,
  isInside,
  resolveBucketDir,
  resolveObjectPath,
} from '../src/safe-path.js';

const root = path.resolve('/srv/mdstore/blobs');
const bucketDir = path.join(root, 'bucket-one');

const hostileKeys = [
  '../escape.md',
  '../../../../etc/passwd',
  '..\\..\\windows\\system32',
  '/etc/passwd',
  'C:\\Windows\\win.ini',
  '%2e%2e%2fescape',
  '%2e%2e/%2e%2e/x',
  '.',
  '..',
  'a/./b',
  'a/../../b',
  '/',
  '\\',
  '.tmp',
  '.trash',
  'CON',
  'nul.md',
  ' trailing space ',
  'trailing-dot.',
  'line\nbreak\r\n',
];

const unicodeKeys = [
  'a.md',
  'A.md',
  'caf\u00e9.md', // NFC
  'cafe\u0301.md', // NFD
  '\u{1F600} emoji.mdx',
  'Stra\u00dfe.md',
  'STRASSE.md',
  'i\u0307.md',
  '\u0130.md',
  '\uFEFFbom.md',
];

describe('assertBucketName', () => {
  it.each(['abc', 'mdstore-0f8c2a', 'a'.repeat(63), '123', '---'])('accepts %s', (bucket) => {
    expect(() => assertBucketName(bucket)).not.toThrow();
  });

  it.each([
    '',
    'ab',
    'a'.repeat(64),
    'ABC',
    'abc_d',
    'abc.d',
    '../abc',
    'abc/def',
    'abc\\def',
    '.tmp',
    '.trash',
    'abc\0',
    'caf\u00e9',
  ])('rejects %j', (bucket) => {
    expect(() => assertBucketName(bucket)).toThrow(InvalidBlobNameError);
  });

  it('rejects a value that is not a string', () => {
    expect(() => assertBucketName(42)).toThrow(InvalidBlobNameError);
  });
});

describe('assertKey', () => {
  it('accepts 1 to 1024 bytes of UTF-8', () => {
    expect(() => assertKey('a')).not.toThrow();
    expect(() => assertKey('x'.repeat(1024))).not.toThrow();
    expect(() => assertKey('\u00e9'.repeat(512))).not.toThrow();
  });

  it('rejects the empty key and keys over 1024 bytes (counted in bytes, not characters)', () => {
    expect(() => assertKey('')).toThrow(InvalidBlobNameError);
    expect(() => assertKey('x'.repeat(1025))).toThrow(InvalidBlobNameError);
    expect(() => assertKey(`${'\u00e9'.repeat(512)}x`)).toThrow(InvalidBlobNameError);
  });

  it('rejects NUL anywhere', () => {
    expect(() => assertKey('\0')).toThrow(InvalidBlobNameError);
    expect(() => assertKey('a\0.md')).toThrow(InvalidBlobNameError);
  });

  it('rejects lone surrogates, which have no UTF-8 form and would collide with U+FFFD', () => {
    expect(() => assertKey('\uD800.md')).toThrow(InvalidBlobNameError);
    expect(() => assertKey('a\uDC00')).toThrow(InvalidBlobNameError);
    expect(() => assertKey('\uFFFD.md')).not.toThrow();
  });

  it('rejects values that are not strings', () => {
    expect(() => assertKey(undefined)).toThrow(InvalidBlobNameError);
    expect(() => assertKey(['a'])).toThrow(InvalidBlobNameError);
  });
});

describe('base32', () => {
  it.each([
    ['', ''],
    ['f', 'my'],
    ['fo', 'mzxq'],
    ['foo', 'mzxw6'],
    ['foob', 'mzxw6yq'],
    ['fooba', 'mzxw6ytb'],
    ['foobar', 'mzxw6ytboi'],
  ])('encodes %j as the RFC 4648 vector %j (lower case, unpadded)', (plain, encoded) => {
    expect(base32Encode(Buffer.from(plain))).toBe(encoded);
    expect(Buffer.from(base32Decode(encoded) ?? []).toString()).toBe(plain);
  });

  it('round-trips every byte value', () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(base32Decode(base32Encode(bytes))).toEqual(bytes);
  });

  it('rejects text it cannot have produced', () => {
    expect(base32Decode('MY')).toBeNull(); // upper case
    expect(base32Decode('m')).toBeNull(); // 5 bits: not a whole byte
    expect(base32Decode('mz')).toBeNull(); // non-zero padding bits
    expect(base32Decode('my=')).toBeNull();
    expect(base32Decode('m1')).toBeNull();
  });
});

describe('encodeKey / decodeKey', () => {
  const longKeys = ['x'.repeat(125), 'x'.repeat(126), 'y'.repeat(1024), '\u{1F600}'.repeat(256)];

  it.each([...hostileKeys, ...unicodeKeys, ...longKeys])('round-trips %j', (key) => {
    expect(decodeKey(encodeKey(key))).toBe(key);
  });

  it('makes names of lower-case base32 with a .d or .blob suffix, no longer than 255 bytes', () => {
    for (const key of [...hostileKeys, ...unicodeKeys, ...longKeys]) {
      const segments = encodeKey(key);
      for (const segment of segments.slice(0, -1)) expect(segment).toMatch(/^[a-z2-7]{200}\.d$/);
      expect(segments.at(-1)).toMatch(/^[a-z2-7]{1,200}\.blob$/);
      for (const segment of segments) expect(Buffer.byteLength(segment)).toBeLessThanOrEqual(255);
    }
  });

  it('splits long keys so a key and its extension never need one name as file and directory', () => {
    const short = encodeKey('x'.repeat(125)); // exactly one full 200-character segment
    const long = encodeKey('x'.repeat(126));
    expect(short).toHaveLength(1);
    expect(long).toHaveLength(2);
    expect(short[0]?.replace(/\.blob$/, '')).toBe(long[0]?.replace(/\.d$/, ''));
    expect(short[0]).not.toBe(long[0]);
    expect(encodeKey('y'.repeat(1024))).toHaveLength(9);
  });

  it('gives keys that differ only by case or Unicode normalisation names that stay different on a folding filesystem', () => {
    // What case-insensitive, normalising filesystems (APFS, HFS+, NTFS, ext4 casefold) may do to a name.
    const fold = (name: string) => name.normalize('NFKD').toLowerCase().toUpperCase().toLowerCase();
    const onDisk = unicodeKeys.map((key) => encodeKey(key).join('/'));
    for (const name of onDisk) expect(fold(name)).toBe(name);
    expect(new Set(onDisk.map(fold)).size).toBe(unicodeKeys.length);
  });

  it('rejects names the store did not make', () => {
    const [name] = encodeKey('a.md');
    expect(decodeKey([name!.toUpperCase()])).toBeNull();
    expect(decodeKey([name!.replace('.blob', '.d')])).toBeNull();
    expect(decodeKey([])).toBeNull();
    expect(decodeKey(['.tmp'])).toBeNull();
    expect(decodeKey(['.blob'])).toBeNull();
    expect(decodeKey(['mz.blob'])).toBeNull(); // non-canonical padding
    expect(decodeKey(['74.blob'])).toBeNull(); // 0xff: not UTF-8
    expect(decodeKey(['aa.blob'])).toBeNull(); // NUL
    expect(decodeKey(['me.d', 'me.blob'])).toBeNull(); // a short intermediate segment
    const long = encodeKey('x'.repeat(126));
    expect(decodeKey([long[0]!, long[0]!.replace('.d', '.blob')])).toBe('x'.repeat(250));
  });

  it('throws for invalid keys instead of encoding them', () => {
    expect(() => encodeKey('')).toThrow(InvalidBlobNameError);
    expect(() => encodeKey('a\0b')).toThrow(InvalidBlobNameError);
  });
});

describe('resolving paths', () => {
  it.each(hostileKeys)('keeps %j inside the bucket directory, one level per segment', (key) => {
    const file = resolveObjectPath(bucketDir, key);
    expect(isInside(bucketDir, file)).toBe(true);
    expect(path.relative(bucketDir, file).split(path.sep)).toEqual(encodeKey(key));
  });

  it('resolves a bucket to a direct child of the root', () => {
    expect(resolveBucketDir(root, 'bucket-one')).toBe(bucketDir);
    expect(() => resolveBucketDir(root, '..')).toThrow(InvalidBlobNameError);
  });

  it('isInside is strict: the directory itself and a same-prefix sibling are outside', () => {
    expect(isInside(bucketDir, bucketDir)).toBe(false);
    expect(isInside(bucketDir, `${bucketDir}-other/x`)).toBe(false);
    expect(isInside(bucketDir, path.join(bucketDir, '..', 'x'))).toBe(false);
    expect(isInside(bucketDir, path.join(bucketDir, 'x', 'y'))).toBe(true);
  });
});
