import {
  type EntityTag,
  formatEntityTag,
  parseEntityTag,
  parseEntityTagList,
  strongMatch,
  weakMatch,
} from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const strong = (opaque: string): EntityTag => ({ weak: false, opaque });
const weak = (opaque: string): EntityTag => ({ weak: true, opaque });

describe('parseEntityTagList (If-Match / If-None-Match, RFC 9110 §13.1.1-2)', () => {
  it.each([
    ['absent', undefined, { kind: 'absent' }],
    ['a star', '*', { kind: 'any' }],
    ['a star with optional white space', ' \t* ', { kind: 'any' }],
    ['one strong tag', '"xyzzy"', { kind: 'list', tags: [strong('xyzzy')] }],
    ['one weak tag', 'W/"xyzzy"', { kind: 'list', tags: [weak('xyzzy')] }],
    ['the empty tag', '""', { kind: 'list', tags: [strong('')] }],
    [
      'a list (RFC 9110 example)',
      '"xyzzy", "r2d2xxxx", "c3piozzzz"',
      { kind: 'list', tags: [strong('xyzzy'), strong('r2d2xxxx'), strong('c3piozzzz')] },
    ],
    ['a list without spaces', '"a","b"', { kind: 'list', tags: [strong('a'), strong('b')] }],
    ['tabs around commas', '"a"\t,\t"b"', { kind: 'list', tags: [strong('a'), strong('b')] }],
    ['two header lines joined by Node', 'W/"a", "b"', { kind: 'list', tags: [weak('a'), strong('b')] }],
    ['a comma inside a tag', '"a,b", "c"', { kind: 'list', tags: [strong('a,b'), strong('c')] }],
    ['empty elements', ', ,"a",, "b" ,', { kind: 'list', tags: [strong('a'), strong('b')] }],
    ['obs-text inside a tag', '"caf\u00e9"', { kind: 'list', tags: [strong('caf\u00e9')] }],
    ['every visible character but DQUOTE', '"!#~/W"', { kind: 'list', tags: [strong('!#~/W')] }],
    ['an empty value (a list of no elements)', '', { kind: 'list', tags: [] }],
    ['only commas', ' , , ', { kind: 'list', tags: [] }],
  ] as const)('%s', (_, value, expected) => {
    expect(parseEntityTagList(value)).toEqual(expected);
  });

  it.each([
    ['an unquoted tag', 'xyzzy'],
    ['a lower-case weak prefix', 'w/"a"'],
    ['a weak prefix alone', 'W/'],
    ['a space inside the weak prefix', 'W/ "a"'],
    ['an unterminated tag', '"abc'],
    ['a tag without its opening quote', 'abc"'],
    ['a weak tag without its opening quote', 'W/abc"'],
    ['a tag cut short by a control character', '"a\u0001'],
    ['a tag cut short by a control character, then a list', '"a\u0001, "b"'],
    ['a quote alone', '"'],
    ['a star in a list', '*, "a"'],
    ['a tag then a star', '"a", *'],
    ['two stars (two header lines)', '*, *'],
    ['tags without a comma', '"a" "b"'],
    ['text after a tag', '"a"b'],
    ['a space inside a tag', '"a b"'],
    ['a control character inside a tag', '"a\u0001"'],
    ['DEL inside a tag', '"a\u007f"'],
    ['a character beyond Latin-1 inside a tag', '"\u0100"'],
    ['a character just below the visible range', '" "'],
  ])('%s is malformed', (_, value) => {
    expect(parseEntityTagList(value)).toEqual({ kind: 'malformed' });
  });

  it('accepts the edges of etagc: %x21, %x23, %x7E, %x80, %xFF', () => {
    for (const char of ['\u0021', '\u0023', '\u007e', '\u0080', '\u00ff']) {
      expect(parseEntityTagList(`"${char}"`)).toEqual({ kind: 'list', tags: [strong(char)] });
    }
  });

  it('reads back any list it formats', () => {
    const opaque = fc.string({
      unit: fc.constantFrom('a', 'Z', '0', ',', '!', '#', '~', 'W', '/', '*', '\u00e9', '\u00ff'),
    });
    const tag = fc.record({ weak: fc.boolean(), opaque });
    const separator = fc.constantFrom(',', ', ', ' ,', '\t,\t', ' , , ');
    fc.assert(
      fc.property(fc.array(tag, { minLength: 1, maxLength: 5 }), separator, (tags, sep) => {
        expect(parseEntityTagList(tags.map(formatEntityTag).join(sep))).toEqual({ kind: 'list', tags });
      }),
    );
  });

  it('never throws on any input', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('"', 'W', '/', ',', ' ', '\t', '*', 'a', '\u0001') }),
        (value) => {
          expect(['any', 'list', 'malformed']).toContain(parseEntityTagList(value).kind);
        },
      ),
    );
  });
});

describe('parseEntityTag', () => {
  it('reads exactly one tag, with optional white space around it', () => {
    expect(parseEntityTag('"a"')).toEqual(strong('a'));
    expect(parseEntityTag(' W/"a"\t')).toEqual(weak('a'));
    expect(parseEntityTag('"a", "b"')).toBeUndefined();
    expect(parseEntityTag('"a"x')).toBeUndefined();
    expect(parseEntityTag('a"')).toBeUndefined();
    expect(parseEntityTag('"a\u0001')).toBeUndefined();
    expect(parseEntityTag('*')).toBeUndefined();
    expect(parseEntityTag('')).toBeUndefined();
  });

  it('formats strong and weak tags', () => {
    expect(formatEntityTag(strong('a'))).toBe('"a"');
    expect(formatEntityTag(weak('a'))).toBe('W/"a"');
  });
});

describe('entity-tag comparison (the table of RFC 9110 §8.8.3.2)', () => {
  it.each([
    [weak('1'), weak('1'), false, true],
    [weak('1'), weak('2'), false, false],
    [weak('1'), strong('1'), false, true],
    [strong('1'), weak('1'), false, true],
    [strong('1'), strong('1'), true, true],
    [strong('1'), strong('2'), false, false],
  ])('%o vs %o: strong %s, weak %s', (a, b, strongResult, weakResult) => {
    expect(strongMatch(a, b)).toBe(strongResult);
    expect(weakMatch(a, b)).toBe(weakResult);
  });
});
