import { describe, expect, it } from 'vitest';
import { decodeKey, encodeKey } from '../src/keys.js';

const hostile = [
  '../escape',
  '.',
  '..',
  'x/../y',
  './z',
  'a//b',
  '/etc/passwd',
  'trailing/',
  '~/looks-encoded',
  '~',
  '100%/./x',
  'k'.repeat(1024),
  '\u{1F600}'.repeat(256),
  `${'é'.repeat(150)}/..`,
];

describe('S3 key mapping', () => {
  it.each([
    'notes.md',
    'Read Me (final) 100%.mdx',
    'dir/file.md',
    'caf\u00e9.md',
    '..\\escape',
    '%2E%2E',
    'a'.repeat(200),
  ])('stores the portable key %j verbatim', (key) => {
    expect(encodeKey(key)).toBe(key);
    expect(decodeKey(key)).toBe(key);
  });

  it.each(hostile)('escapes %j into segments a file-backed store can hold, and decodes it back', (key) => {
    const s3Key = encodeKey(key);
    expect(s3Key.startsWith('~/')).toBe(true);
    const segments = s3Key.split('/').slice(1);
    for (const segment of segments) {
      expect(segment).not.toMatch(/^(|\.|\.\.)$/);
      expect(Buffer.byteLength(segment)).toBeLessThanOrEqual(200);
    }
    expect(decodeKey(s3Key)).toBe(key);
  });

  it('never maps two keys to one S3 key', () => {
    const keys = [...hostile, 'notes.md', '~%2Flooks-encoded', 'a/b', 'a%2Fb', '%252F'];
    const s3Keys = new Set(keys.map(encodeKey));
    expect(s3Keys.size).toBe(keys.length);
    expect(keys.map((key) => decodeKey(encodeKey(key)))).toEqual(keys);
  });
});
