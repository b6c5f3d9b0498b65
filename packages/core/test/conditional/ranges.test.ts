import {
  type CurrentValidators,
  contentRangeHeader,
  formatHttpDate,
  ifRangeHolds,
  parseRange,
  type RangeRequest,
  unsatisfiedRangeHeader,
} from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const HUGE = '9'.repeat(30);
const BEYOND_2_53 = '9007199254740993';

describe('parseRange (RFC 9110 §14.1-2, extensions §2)', () => {
  it.each<[string, string | undefined, number, RangeRequest]>([
    ['absent', undefined, 10, 'none'],
    ['the first byte', 'bytes=0-0', 10, { start: 0, end: 0 }],
    ['the last byte', 'bytes=-1', 10, { start: 9, end: 9 }],
    ['a middle range', 'bytes=2-5', 10, { start: 2, end: 5 }],
    ['an open range', 'bytes=5-', 10, { start: 5, end: 9 }],
    ['an open range from 0', 'bytes=0-', 10, { start: 0, end: 9 }],
    ['the last position exactly', 'bytes=0-9', 10, { start: 0, end: 9 }],
    ['a last position past the end (clipped)', 'bytes=3-10', 10, { start: 3, end: 9 }],
    ['a range ending far past the end', `bytes=3-${HUGE}`, 10, { start: 3, end: 9 }],
    ['a range ending beyond 2^53', `bytes=3-${BEYOND_2_53}`, 10, { start: 3, end: 9 }],
    ['the last byte alone', 'bytes=9-9', 10, { start: 9, end: 9 }],
    ['an open range from the last byte', 'bytes=9-', 10, { start: 9, end: 9 }],
    ['a suffix of the whole size', 'bytes=-10', 10, { start: 0, end: 9 }],
    ['a suffix longer than the file', 'bytes=-11', 10, { start: 0, end: 9 }],
    ['a suffix beyond 2^53', `bytes=-${BEYOND_2_53}`, 10, { start: 0, end: 9 }],
    ['a huge suffix', `bytes=-${HUGE}`, 10, { start: 0, end: 9 }],
    ['a suffix with leading zeros', 'bytes=-003', 10, { start: 7, end: 9 }],
    ['positions with leading zeros', 'bytes=002-004', 10, { start: 2, end: 4 }],
    ['an upper-case unit', 'BYTES=1-2', 10, { start: 1, end: 2 }],
    ['a mixed-case unit', 'Bytes=1-2', 10, { start: 1, end: 2 }],
    ['white space around the value', ' \tbytes=1-2\t ', 10, { start: 1, end: 2 }],
    ['white space after =', 'bytes= 1-2', 10, { start: 1, end: 2 }],
    ['empty list elements', 'bytes=, 1-2 ,', 10, { start: 1, end: 2 }],
    // Unsatisfiable (416).
    ['a range starting at the size', 'bytes=10-', 10, 'unsatisfiable'],
    ['a closed range starting at the size', 'bytes=10-12', 10, 'unsatisfiable'],
    ['a range starting past the end', 'bytes=11-20', 10, 'unsatisfiable'],
    ['a range starting beyond 2^53', `bytes=${BEYOND_2_53}-`, 10, 'unsatisfiable'],
    ['a huge start', `bytes=${HUGE}-${HUGE}`, 10, 'unsatisfiable'],
    ['an empty suffix', 'bytes=-0', 10, 'unsatisfiable'],
    ['an empty suffix written long', 'bytes=-000', 10, 'unsatisfiable'],
    ['bytes=0- of a 0-byte file', 'bytes=0-', 0, 'unsatisfiable'],
    ['bytes=0-0 of a 0-byte file', 'bytes=0-0', 0, 'unsatisfiable'],
    ['bytes=-0 of a 0-byte file', 'bytes=-0', 0, 'unsatisfiable'],
    // A suffix of a 0-byte file is satisfiable for the RFC, yet has no bytes: the whole (empty) file.
    ['a suffix of a 0-byte file', 'bytes=-5', 0, 'none'],
    ['bytes=0-0 of a 1-byte file', 'bytes=0-0', 1, { start: 0, end: 0 }],
    ['bytes=-1 of a 1-byte file', 'bytes=-1', 1, { start: 0, end: 0 }],
    ['bytes=1- of a 1-byte file', 'bytes=1-', 1, 'unsatisfiable'],
    // Whole file (200).
    ['last before first (invalid)', 'bytes=5-2', 10, 'none'],
    ['last before first beyond 2^53', `bytes=${BEYOND_2_53}-9007199254740992`, 10, 'none'],
    ['two ranges', 'bytes=0-1,3-4', 10, 'none'],
    ['two ranges with white space', 'bytes=0-1, 3-4', 10, 'none'],
    ['two ranges, one unsatisfiable', 'bytes=0-1, 20-30', 10, 'none'],
    ['the same range twice', 'bytes=0-1, 0-1', 10, 'none'],
    ['two header lines joined by Node', 'bytes=0-1, bytes=2-3', 10, 'none'],
    ['no range at all', 'bytes=', 10, 'none'],
    ['only empty elements', 'bytes= , ,', 10, 'none'],
    ['another unit', 'items=0-1', 10, 'none'],
    ['a unit with a prefix', 'xbytes=0-1', 10, 'none'],
    ['a unit with a suffix', 'bytesx=0-1', 10, 'none'],
    ['no unit', '=0-1', 10, 'none'],
    ['no =', 'bytes 0-1', 10, 'none'],
    ['white space before =', 'bytes =0-1', 10, 'none'],
    ['white space inside a range', 'bytes=0 - 1', 10, 'none'],
    ['no dash', 'bytes=5', 10, 'none'],
    ['a dash alone', 'bytes=-', 10, 'none'],
    ['two dashes', 'bytes=1-2-3', 10, 'none'],
    ['a double dash', 'bytes=--1', 10, 'none'],
    ['a negative start', 'bytes=-1-2', 10, 'none'],
    ['letters', 'bytes=a-b', 10, 'none'],
    ['a letter after the last position', 'bytes=1-2a', 10, 'none'],
    ['a letter before the start', 'bytes=a1-2', 10, 'none'],
    ['a letter in a suffix', 'bytes=-1a', 10, 'none'],
    ['a decimal', 'bytes=1.5-2', 10, 'none'],
    ['a plus sign', 'bytes=+1-2', 10, 'none'],
    ['non-ASCII digits', 'bytes=\u0661-\u0662', 10, 'none'],
    ['an exponent', 'bytes=1e2-', 1000, 'none'],
    ['hexadecimal', 'bytes=0x1-2', 10, 'none'],
  ])('%s', (_, value, size, expected) => {
    expect(parseRange(value, size)).toEqual(expected);
  });

  it('answers with a range inside [0, size), or none, or unsatisfiable, for any input', () => {
    const position = fc.oneof(
      fc.nat({ max: 40 }).map(String),
      fc.constantFrom('', HUGE, BEYOND_2_53, '00', 'x'),
    );
    const spec = fc.tuple(position, position).map(([a, b]) => `${a}-${b}`);
    const value = fc.oneof(
      spec.map((s) => `bytes=${s}`),
      fc.array(spec, { maxLength: 3 }).map((specs) => `bytes=${specs.join(',')}`),
      fc.string(),
    );
    fc.assert(
      fc.property(value, fc.nat({ max: 30 }), (header, size) => {
        const result = parseRange(header, size);
        if (typeof result === 'object') {
          expect(Number.isSafeInteger(result.start) && Number.isSafeInteger(result.end)).toBe(true);
          expect(0 <= result.start && result.start <= result.end && result.end < size).toBe(true);
        } else {
          expect(['none', 'unsatisfiable']).toContain(result);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('serves exactly the bytes a closed range names, when it fits', () => {
    fc.assert(
      fc.property(fc.nat({ max: 50 }), fc.nat({ max: 50 }), fc.integer({ min: 1, max: 50 }), (a, b, size) => {
        const result = parseRange(`bytes=${a}-${b}`, size);
        if (b < a) expect(result).toBe('none');
        else if (a >= size) expect(result).toBe('unsatisfiable');
        else expect(result).toEqual({ start: a, end: Math.min(b, size - 1) });
      }),
    );
  });
});

describe('ifRangeHolds (RFC 9110 §13.1.5)', () => {
  const lastModified = Date.UTC(2026, 1, 2, 3, 4, 5) + 678;
  const current: CurrentValidators = { etag: '"v7"', lastModified };
  const atSecond = formatHttpDate(lastModified);

  it.each([
    ['absent', undefined, true],
    ['the current entity tag', '"v7"', true],
    ['the current entity tag with white space', ' "v7" ', true],
    ['another entity tag', '"v6"', false],
    ['the weak form of the current tag', 'W/"v7"', false],
    ['a list of tags', '"v7", "v6"', false],
    ['a star', '*', false],
    ['the modification date (to the second)', atSecond, true],
    ['a second earlier', formatHttpDate(lastModified - 1000), false],
    ['a second later', formatHttpDate(lastModified + 1000), false],
    ['the date in the asctime form', 'Mon Feb  2 03:04:05 2026', true],
    ['an invalid date', 'Mon, 30 Feb 2026 03:04:05 GMT', false],
    ['garbage', 'yes', false],
    ['empty', '', false],
  ])('%s: %s', (_, ifRange, expected) => {
    expect(ifRangeHolds(ifRange, current)).toBe(expected);
  });

  it('never matches a weak current tag, and an unparsable one matches nothing', () => {
    expect(ifRangeHolds('W/"v7"', { etag: 'W/"v7"', lastModified })).toBe(false);
    expect(ifRangeHolds('"v7"', { etag: 'W/"v7"', lastModified })).toBe(false);
    expect(ifRangeHolds('"v7"', { etag: 'v7', lastModified })).toBe(false);
  });

  it('dates two-digit years from the given time', () => {
    const in2099 = Date.UTC(2099, 0, 1);
    const at2149 = { etag: '"x"', lastModified: Date.UTC(2149, 0, 1) };
    expect(ifRangeHolds('Friday, 01-Jan-49 00:00:00 GMT', at2149, in2099)).toBe(true);
    expect(ifRangeHolds('Friday, 01-Jan-49 00:00:00 GMT', at2149, Date.UTC(2026, 0, 1))).toBe(false);
  });
});

describe('Content-Range', () => {
  it('writes the 206 and 416 forms', () => {
    expect(contentRangeHeader(0, 99, 1234)).toBe('bytes 0-99/1234');
    expect(contentRangeHeader(5, 5, 6)).toBe('bytes 5-5/6');
    expect(unsatisfiedRangeHeader(1234)).toBe('bytes */1234');
    expect(unsatisfiedRangeHeader(0)).toBe('bytes */0');
  });
});
