import {
  type CurrentValidators,
  evaluatePreconditions,
  hasIfMatch,
  type PreconditionHeaders,
  type PreconditionMethod,
  type PreconditionOutcome,
  parsePreconditions,
} from '@mdstore/core';
import { describe, expect, it } from 'vitest';

/**
 * RFC 9110 §13.2.2 and §13.1.1-4, rule by rule. The resource was last modified half a second after
 * the whole second T, so every date comparison also checks the truncation to the second.
 */
const T = Date.UTC(2026, 2, 1, 10, 0, 0);
const CURRENT: CurrentValidators = { etag: '"v2"', lastModified: T + 500 };
const date = (offsetSeconds: number) => new Date(T + offsetSeconds * 1000).toUTCString();
const AT_T = date(0);
const BEFORE_T = date(-1);
const AFTER_T = date(1);

type Row = readonly [
  name: string,
  headers: PreconditionHeaders,
  read: PreconditionOutcome,
  write: PreconditionOutcome,
  current?: CurrentValidators | null,
];

const ROWS: readonly Row[] = [
  ['no preconditions', {}, 'proceed', 'proceed'],
  // Step 1: If-Match, strong comparison.
  ['If-Match with the current tag', { ifMatch: '"v2"' }, 'proceed', 'proceed'],
  ['If-Match with another tag', { ifMatch: '"v1"' }, 'failed', 'failed'],
  ['If-Match with a list holding the current tag', { ifMatch: '"v1", "v2"' }, 'proceed', 'proceed'],
  ['If-Match with a list without it', { ifMatch: '"v1", "v3"' }, 'failed', 'failed'],
  ['If-Match with the weak form of the current tag', { ifMatch: 'W/"v2"' }, 'failed', 'failed'],
  ['If-Match: *', { ifMatch: '*' }, 'proceed', 'proceed'],
  ['If-Match malformed', { ifMatch: 'v2' }, 'failed', 'failed'],
  ['If-Match with an unterminated tag', { ifMatch: '"v2' }, 'failed', 'failed'],
  ['If-Match empty (a list of no tags)', { ifMatch: '' }, 'failed', 'failed'],
  ['If-Match: * with no resource', { ifMatch: '*' }, 'failed', 'failed', null],
  ['If-Match with a tag and no resource', { ifMatch: '"v2"' }, 'failed', 'failed', null],
  // Step 2: If-Unmodified-Since, only without If-Match.
  ['If-Unmodified-Since at the modification second', { ifUnmodifiedSince: AT_T }, 'proceed', 'proceed'],
  ['If-Unmodified-Since a second before', { ifUnmodifiedSince: BEFORE_T }, 'failed', 'failed'],
  ['If-Unmodified-Since a second after', { ifUnmodifiedSince: AFTER_T }, 'proceed', 'proceed'],
  ['If-Unmodified-Since invalid (ignored)', { ifUnmodifiedSince: 'yesterday' }, 'proceed', 'proceed'],
  ['If-Unmodified-Since with no resource', { ifUnmodifiedSince: BEFORE_T }, 'proceed', 'proceed', null],
  [
    'If-Match holds, If-Unmodified-Since would fail',
    { ifMatch: '"v2"', ifUnmodifiedSince: BEFORE_T },
    'proceed',
    'proceed',
  ],
  [
    'If-Match fails, If-Unmodified-Since would hold',
    { ifMatch: '"v1"', ifUnmodifiedSince: AFTER_T },
    'failed',
    'failed',
  ],
  [
    'If-Match malformed, If-Unmodified-Since would hold',
    { ifMatch: 'x', ifUnmodifiedSince: AFTER_T },
    'failed',
    'failed',
  ],
  // Step 3: If-None-Match, weak comparison.
  ['If-None-Match with the current tag', { ifNoneMatch: '"v2"' }, 'not-modified', 'failed'],
  ['If-None-Match with its weak form', { ifNoneMatch: 'W/"v2"' }, 'not-modified', 'failed'],
  ['If-None-Match with another tag', { ifNoneMatch: '"v1"' }, 'proceed', 'proceed'],
  ['If-None-Match with a list holding it', { ifNoneMatch: '"v1", W/"v2"' }, 'not-modified', 'failed'],
  ['If-None-Match: *', { ifNoneMatch: '*' }, 'not-modified', 'failed'],
  ['If-None-Match: * with no resource', { ifNoneMatch: '*' }, 'proceed', 'proceed', null],
  ['If-None-Match with a tag and no resource', { ifNoneMatch: '"v2"' }, 'proceed', 'proceed', null],
  ['If-None-Match malformed', { ifNoneMatch: '"v2" "v3"' }, 'proceed', 'failed'],
  ['If-None-Match malformed with no resource', { ifNoneMatch: 'v2' }, 'proceed', 'failed', null],
  ['If-None-Match empty (a list of no tags)', { ifNoneMatch: '' }, 'proceed', 'proceed'],
  [
    'If-Match holds, If-None-Match matches',
    { ifMatch: '"v2"', ifNoneMatch: '"v2"' },
    'not-modified',
    'failed',
  ],
  [
    'If-Match fails before If-None-Match is read',
    { ifMatch: '"v1"', ifNoneMatch: '"v2"' },
    'failed',
    'failed',
  ],
  [
    'If-Unmodified-Since fails before If-None-Match',
    { ifUnmodifiedSince: BEFORE_T, ifNoneMatch: '"v2"' },
    'failed',
    'failed',
  ],
  [
    'If-Unmodified-Since holds, If-None-Match matches',
    { ifUnmodifiedSince: AT_T, ifNoneMatch: '*' },
    'not-modified',
    'failed',
  ],
  // Step 4: If-Modified-Since, reads only, and only without If-None-Match.
  ['If-Modified-Since at the modification second', { ifModifiedSince: AT_T }, 'not-modified', 'proceed'],
  ['If-Modified-Since a second after', { ifModifiedSince: AFTER_T }, 'not-modified', 'proceed'],
  ['If-Modified-Since a second before', { ifModifiedSince: BEFORE_T }, 'proceed', 'proceed'],
  [
    'If-Modified-Since invalid (ignored)',
    { ifModifiedSince: 'Sun, 31 Feb 2026 10:00:00 GMT' },
    'proceed',
    'proceed',
  ],
  ['If-Modified-Since with no resource', { ifModifiedSince: AFTER_T }, 'proceed', 'proceed', null],
  [
    'If-None-Match misses, If-Modified-Since would match',
    { ifNoneMatch: '"v1"', ifModifiedSince: AT_T },
    'proceed',
    'proceed',
  ],
  [
    'If-None-Match matches, If-Modified-Since would not',
    { ifNoneMatch: '"v2"', ifModifiedSince: BEFORE_T },
    'not-modified',
    'failed',
  ],
  [
    'If-None-Match malformed, If-Modified-Since would match',
    { ifNoneMatch: ',x', ifModifiedSince: AT_T },
    'proceed',
    'failed',
  ],
  [
    'If-Match holds, If-Modified-Since matches',
    { ifMatch: '*', ifModifiedSince: AT_T },
    'not-modified',
    'proceed',
  ],
  [
    'If-Unmodified-Since and If-Modified-Since both at T',
    { ifUnmodifiedSince: AT_T, ifModifiedSince: AT_T },
    'not-modified',
    'proceed',
  ],
  // A current ETag that is weak, or not an entity tag at all, keeps the function total.
  [
    'If-Match with a weak current tag',
    { ifMatch: 'W/"w"' },
    'failed',
    'failed',
    { etag: 'W/"w"', lastModified: T },
  ],
  [
    'If-None-Match with a weak current tag',
    { ifNoneMatch: '"w"' },
    'not-modified',
    'failed',
    { etag: 'W/"w"', lastModified: T },
  ],
  [
    'If-Match: * with an unparsable current tag',
    { ifMatch: '*' },
    'proceed',
    'proceed',
    { etag: 'w', lastModified: T },
  ],
  [
    'If-Match with an unparsable current tag',
    { ifMatch: '"w"' },
    'failed',
    'failed',
    { etag: 'w', lastModified: T },
  ],
  [
    'If-None-Match: * with an unparsable current tag',
    { ifNoneMatch: '*' },
    'not-modified',
    'failed',
    { etag: 'w', lastModified: T },
  ],
  [
    'If-None-Match with an unparsable current tag',
    { ifNoneMatch: '"w"' },
    'proceed',
    'proceed',
    { etag: 'w', lastModified: T },
  ],
];

describe('evaluatePreconditions (RFC 9110 §13.2.2)', () => {
  const cases = ROWS.flatMap(([name, headers, read, write, current = CURRENT]) =>
    (['read', 'write'] as const).map(
      (method) => [name, method, headers, current, method === 'read' ? read : write] as const,
    ),
  );

  it.each(cases)('%s, %s', (_, method: PreconditionMethod, headers, current, expected) => {
    expect(evaluatePreconditions(parsePreconditions(headers), current, method)).toBe(expected);
  });

  it('truncates the modification time to the second, never rounds it', () => {
    for (const lastModified of [T, T + 1, T + 999]) {
      const current = { etag: '"v2"', lastModified };
      expect(evaluatePreconditions(parsePreconditions({ ifUnmodifiedSince: AT_T }), current, 'write')).toBe(
        'proceed',
      );
      expect(evaluatePreconditions(parsePreconditions({ ifModifiedSince: AT_T }), current, 'read')).toBe(
        'not-modified',
      );
    }
    const nextSecond = { etag: '"v2"', lastModified: T + 1000 };
    expect(evaluatePreconditions(parsePreconditions({ ifUnmodifiedSince: AT_T }), nextSecond, 'write')).toBe(
      'failed',
    );
    expect(evaluatePreconditions(parsePreconditions({ ifModifiedSince: AT_T }), nextSecond, 'read')).toBe(
      'proceed',
    );
  });

  it('reads the obsolete date forms too', () => {
    const rfc850 = 'Sunday, 01-Mar-26 10:00:00 GMT';
    const asctime = 'Sun Mar  1 10:00:00 2026';
    expect(evaluatePreconditions(parsePreconditions({ ifModifiedSince: rfc850 }), CURRENT, 'read')).toBe(
      'not-modified',
    );
    expect(evaluatePreconditions(parsePreconditions({ ifModifiedSince: asctime }), CURRENT, 'read')).toBe(
      'not-modified',
    );
  });
});

describe('parsePreconditions', () => {
  it('parses each field', () => {
    expect(
      parsePreconditions({
        ifMatch: '"a"',
        ifNoneMatch: '*',
        ifModifiedSince: AT_T,
        ifUnmodifiedSince: AFTER_T,
      }),
    ).toEqual({
      ifMatch: { kind: 'list', tags: [{ weak: false, opaque: 'a' }] },
      ifNoneMatch: { kind: 'any' },
      ifModifiedSince: T,
      ifUnmodifiedSince: T + 1000,
    });
    expect(parsePreconditions({})).toEqual({
      ifMatch: { kind: 'absent' },
      ifNoneMatch: { kind: 'absent' },
      ifModifiedSince: undefined,
      ifUnmodifiedSince: undefined,
    });
  });

  it('dates two-digit years from the given time', () => {
    const in2099 = Date.UTC(2099, 0, 1);
    const parsed = parsePreconditions(
      {
        ifModifiedSince: 'Friday, 01-Jan-49 00:00:00 GMT',
        ifUnmodifiedSince: 'Friday, 01-Jan-49 00:00:00 GMT',
      },
      in2099,
    );
    expect(parsed.ifModifiedSince).toBe(Date.UTC(2149, 0, 1));
    expect(parsed.ifUnmodifiedSince).toBe(Date.UTC(2149, 0, 1));
  });
});

describe('hasIfMatch (the 428 rule)', () => {
  it.each([
    [undefined, false],
    ['"a"', true],
    ['*', true],
    ['', true],
    ['not a tag', true],
  ])('If-Match %j: %s', (ifMatch, expected) => {
    expect(hasIfMatch(parsePreconditions({ ifMatch, ifNoneMatch: '*' }))).toBe(expected);
  });
});
