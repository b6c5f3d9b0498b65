import { InvalidInputError, parseQuery, type QueryTerm, type SearchQuery } from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyText } from './support.js';

const word = (text: string, prefix = false): QueryTerm => ({ words: [text], prefix });
const phrase = (...words: string[]): QueryTerm => ({ words, prefix: false });
const q = (include: QueryTerm[][], exclude: QueryTerm[] = []): SearchQuery => ({ include, exclude });

function rejection(query: unknown) {
  try {
    parseQuery(query);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return (error as InvalidInputError).issues;
  }
  throw new Error('expected a rejection');
}

describe('parseQuery: constructs', () => {
  it.each<[string, SearchQuery]>([
    ['hello', q([[word('hello')]])],
    ['Hello  WORLD', q([[word('hello')], [word('world')]])],
    ['"a phrase"', q([[phrase('a', 'phrase')]])],
    ['"Unclosed phrase', q([[phrase('unclosed', 'phrase')]])],
    ['-word keep', q([[word('keep')]], [word('word')])],
    ['keep -"a phrase"', q([[word('keep')]], [phrase('a', 'phrase')])],
    ['keep --"a phrase"', q([[word('keep')]], [phrase('a', 'phrase')])],
    ['pre*', q([[word('pre', true)]])],
    ['Éc*', q([[word('ec', true)]])],
    ['ß*', q([[word('ss', true)]])],
    ['a OR b', q([[word('a'), word('b')]])],
    ['a OR b OR c d', q([[word('a'), word('b'), word('c')], [word('d')]])],
    ['x a OR b', q([[word('x')], [word('a'), word('b')]])],
    ['a or b', q([[word('a')], [word('or')], [word('b')]])],
    ['a Or b', q([[word('a')], [word('or')], [word('b')]])],
    ['"a b" OR c', q([[phrase('a', 'b'), word('c')]])],
    ['pre* OR "x y"', q([[word('pre', true), phrase('x', 'y')]])],
    ['"OR"', q([[word('or')]])],
  ])('%s', (text, expected) => {
    expect(parseQuery(text)).toEqual(expected);
  });

  it('splits a bare chunk with several words into words that must all occur', () => {
    expect(parseQuery('e-mail')).toEqual(q([[word('e')], [word('mail')]]));
    expect(parseQuery('content:draft')).toEqual(q([[word('content')], [word('draft')]]));
    expect(parseQuery('e-ma*')).toEqual(q([[word('e')], [word('ma', true)]]));
  });

  it('makes a several-word chunk a phrase when it is excluded or an OR operand', () => {
    expect(parseQuery('x -e-mail')).toEqual(q([[word('x')]], [phrase('e', 'mail')]));
    expect(parseQuery('e-mail OR post')).toEqual(q([[phrase('e', 'mail'), word('post')]]));
    expect(parseQuery('post OR e-ma*')).toEqual(q([[word('post'), { words: ['e', 'ma'], prefix: true }]]));
    expect(parseQuery('x -e-ma*')).toEqual(q([[word('x')]], [{ words: ['e', 'ma'], prefix: true }]));
  });

  it('cuts chunks at quotes, and applies - only at the start of a chunk', () => {
    expect(parseQuery('foo"bar baz"qux')).toEqual(q([[word('foo')], [phrase('bar', 'baz')], [word('qux')]]));
    expect(parseQuery('foo-"bar baz"')).toEqual(q([[word('foo')], [phrase('bar', 'baz')]]));
    expect(parseQuery('a-b')).toEqual(q([[word('a')], [word('b')]]));
    expect(parseQuery('"-a" b')).toEqual(q([[word('a')], [word('b')]]));
  });

  describe('edge cases', () => {
    it.each<[string, SearchQuery]>([
      ['OR a', q([[word('a')]])],
      ['a OR', q([[word('a')]])],
      ['a OR OR b', q([[word('a')], [word('b')]])],
      ['-a OR b', q([[word('b')]], [word('a')])],
      ['a OR -b', q([[word('a')]], [word('b')])],
      ['a - OR b', q([[word('a'), word('b')]])],
      ['--word x', q([[word('x')]], [word('word')])],
      ['- x', q([[word('x')]])],
      ['* x', q([[word('x')]])],
      ['a* x', q([[word('a')], [word('x')]])],
      ['ab**', q([[word('ab')]])],
      ['ab*cd', q([[word('ab')], [word('cd')]])],
      ['*ab', q([[word('ab')]])],
      ['ab* ', q([[word('ab', true)]])],
      ['-ab*', null as never],
      ['"single"', q([[word('single')]])],
      ['"" x', q([[word('x')]])],
      ['"!!" x', q([[word('x')]])],
      ['-"" x', q([[word('x')]])],
      ['"a*" x', q([[word('a')], [word('x')]])],
      ['"ab*"', q([[word('ab')]])],
      ['"a b"*', q([[phrase('a', 'b')]])],
    ])('%s', (text, expected) => {
      if (expected === null) expect(() => parseQuery(text)).toThrow(InvalidInputError);
      else expect(parseQuery(text)).toEqual(expected);
    });

    it('needs the * to touch a word of at least 2 code points', () => {
      expect(parseQuery('ab-*')).toEqual(q([[word('ab')]]));
      expect(parseQuery('𐐀𐐀*')).toEqual(q([[word('𐐨𐐨', true)]]));
      expect(parseQuery('𐐀*')).toEqual(q([[word('𐐨')]]));
      expect(parseQuery('cafe\u0301*')).toEqual(q([[word('cafe', true)]]));
    });
  });

  it('treats every FTS5 and tsquery metacharacter as a separator or a plain word', () => {
    expect(parseQuery('a:b&c|d!e(f)g^h')).toEqual(
      q(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((w) => [word(w)])),
    );
    expect(parseQuery('NEAR(a b) AND NOT c')).toEqual(
      q([[word('near')], [word('a')], [word('b')], [word('and')], [word('not')], [word('c')]]),
    );
    expect(parseQuery("a:* 'b' <-> c\\ {d} [e] ~f @g")).toEqual(
      q(['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((w) => [word(w)])),
    );
    expect(parseQuery('title:foo')).toEqual(q([[word('title')], [word('foo')]]));
  });

  it('holds normalised words only, whatever the input', () => {
    fc.assert(
      fc.property(anyText(60), (text) => {
        let parsed: SearchQuery;
        try {
          parsed = parseQuery(text);
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidInputError);
          return;
        }
        for (const term of [...parsed.include.flat(), ...parsed.exclude]) {
          expect(term.words.length).toBeGreaterThan(0);
          for (const w of term.words) expect(w).toMatch(/^[\p{L}\p{N}]{1,64}$/u);
        }
      }),
    );
  });

  it('treats lone surrogates as separators', () => {
    expect(parseQuery('ab\ud800cd \udc00')).toEqual(q([[word('ab')], [word('cd')]]));
    expect(parseQuery('\udbff\udbff x')).toEqual(q([[word('x')]]));
  });
});

describe('parseQuery: limits', () => {
  const LOC = ['body', 'query'];

  it('needs a string', () => {
    for (const value of [undefined, null, 1, ['a'], { q: 'a' }]) {
      expect(rejection(value)).toEqual([
        { loc: LOC, msg: 'Input should be a valid string', type: 'string_type' },
      ]);
    }
  });

  it('needs a word that is not excluded', () => {
    for (const text of ['', '   ', '-a', '-"a b" -c', 'OR', '* - !', '""', '"OR" OR'.slice(4)]) {
      expect(rejection(text)).toEqual([
        { loc: LOC, msg: 'Value error, query must have a word that is not excluded', type: 'value_error' },
      ]);
    }
  });

  it('takes 1 000 code points and refuses 1 001', () => {
    expect(parseQuery(`${'a '.repeat(16)}${' '.repeat(1000 - 32)}`).include).toHaveLength(16);
    expect(parseQuery('𐐀'.repeat(1000)).include).toHaveLength(1);
    const tooLong = [`${'a'.repeat(1001)}`, '𐐀'.repeat(1001), `${'a'.repeat(1000)}\udc00`];
    for (const text of tooLong) {
      expect(rejection(text)).toEqual([
        { loc: LOC, msg: 'String should have at most 1000 characters', type: 'string_too_long' },
      ]);
    }
    expect(parseQuery(`\ud800${'a'.repeat(999)}`).include).toHaveLength(1);
  });

  it('refuses a 100 000-character query by its length, before reading its words', () => {
    expect(rejection('word '.repeat(20_000))).toEqual([
      { loc: LOC, msg: 'String should have at most 1000 characters', type: 'string_too_long' },
    ]);
  });

  it('takes 32 words, counting every word of every term, and refuses 33', () => {
    const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`);
    expect(parseQuery(words(32).join(' ')).include).toHaveLength(32);
    expect(parseQuery(`"${words(31).join(' ')}" -x`).include).toHaveLength(1);
    expect(parseQuery(`${words(16).join(' OR ')} ${words(16).join(' ')}`).include).toHaveLength(17);
    const tooMany = [
      words(33).join(' '),
      `"${words(32).join(' ')}" -x`,
      `a ${words(32)
        .map((w) => `-${w}`)
        .join(' ')}`,
      `${words(17).join(' OR ')} ${words(16).join(' ')}`,
      `a-${words(32).join('-')}`,
    ];
    for (const text of tooMany) {
      expect(rejection(text)).toEqual([
        { loc: LOC, msg: 'Value error, query must have at most 32 words', type: 'value_error' },
      ]);
    }
    expect(parseQuery(`${'OR '.repeat(50)}x`).include).toHaveLength(1);
  });
});
