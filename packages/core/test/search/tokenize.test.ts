import { ftsTerm, SEARCH_LIMITS, tokenize } from '@mdstore/core';
import fc from 'fast-check';
import { caseFold } from 'unicode-case-folding';
import { describe, expect, it } from 'vitest';
import { countWords } from '../../src/search/tokenize.js';
import { anyText, codePointLength, readmeCorpus, sliceCodePoints } from './support.js';

const terms = (text: string) => tokenize(text).map((token) => token.term);

/**
 * The spec's normalisation applied to a whole string at once, written plainly: the tokenizer works one
 * code point at a time and must give the same words.
 */
function wholeStringWords(text: string): string[] {
  const stripped = (value: string) => value.normalize('NFKD').replace(/\p{M}/gu, '');
  const normalised = stripped(caseFold(stripped(text)));
  return (normalised.match(/[\p{L}\p{N}]+/gu) ?? []).map((word) => Array.from(word).slice(0, 64).join(''));
}

describe('tokenize: normalisation', () => {
  it.each([
    ['Straße STRASSE strasse', ['strasse', 'strasse', 'strasse']],
    ['ẞ', ['ss']],
    ['Café CAFÉ cafe\u0301', ['cafe', 'cafe', 'cafe']],
    ['ﬁnale ﬀ ﬃ', ['finale', 'ff', 'ffi']],
    ['Ǆemal ǅ ǆ', ['dzemal', 'dz', 'dz']],
    ['ΣΑΣ σας', ['σασ', 'σασ']],
    ['İstanbul ISTANBUL', ['istanbul', 'istanbul']],
    ['\u13a0\uab70', ['\u13a0\u13a0']],
    ['ＡＢＣ１２３', ['abc123']],
    ['x² Ⅻ', ['x2', 'xii']],
    ['Tiếng Việt', ['tieng', 'viet']],
    ['Ёлка ёлка', ['елка', 'елка']],
    ['Ångström Å', ['angstrom', 'a']],
    ['ガ カ', ['カ', 'カ']],
    ['Ωmega ω', ['ωmega', 'ω']],
  ])('%s', (text, expected) => {
    expect(terms(text)).toEqual(expected);
  });

  it('keeps scripts without case or marks as they are, one word per run (no CJK segmentation)', () => {
    expect(terms('東京都に住む 한국어 العربية עברית')).toEqual([
      '東京都に住む',
      '한국어'.normalize('NFKD'),
      'العربية',
      'עברית',
    ]);
  });

  it('removes spacing marks too (General_Category M), so Indic words stay one word', () => {
    expect(terms('हिन्दी')).toEqual(['हनद']);
  });

  it('treats digits as word characters and everything else as a separator', () => {
    expect(terms('2024-05-01 v1.2.3 ٣٤ 3,14')).toEqual(['2024', '05', '01', 'v1', '2', '3', '٣٤', '3', '14']);
    expect(terms('a_b a\tb a\u00a0b a\u200bb a·b')).toEqual([
      'a',
      'b',
      'a',
      'b',
      'a',
      'b',
      'a',
      'b',
      'a',
      'b',
    ]);
  });

  it('treats emoji, symbols and punctuation as separators', () => {
    expect(terms('x😀y 👩‍💻z 🇫🇷w a→b c©d e+f')).toEqual(['x', 'y', 'z', 'w', 'a', 'b', 'c', 'd', 'e', 'f']);
    expect(terms('😀 ✨ → … ¿?')).toEqual([]);
    expect(terms('1️⃣')).toEqual(['1']);
  });

  it('treats lone surrogates as separators, counting each as one code point', () => {
    const tokens = tokenize('ab\ud800cd\udc00ef');
    expect(tokens).toEqual([
      { term: 'ab', position: 0, start: 0, end: 2 },
      { term: 'cd', position: 1, start: 3, end: 5 },
      { term: 'ef', position: 2, start: 6, end: 8 },
    ]);
  });

  it('gives the same words as normalising the whole string at once', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-composite', maxLength: 40 }), (text) => {
        expect(terms(text)).toEqual(wholeStringWords(text));
      }),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(anyText(40), (text) => {
        expect(terms(text)).toEqual(wholeStringWords(text));
      }),
      { numRuns: 1000 },
    );
  });

  it('is stable: the words of the words are the words', () => {
    fc.assert(
      fc.property(anyText(40), (text) => {
        const words = terms(text);
        expect(words.flatMap((word) => terms(word))).toEqual(words);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('tokenize: positions and offsets', () => {
  it('gives word indexes and code-point offsets into the original text', () => {
    expect(tokenize('  Hello, 𝐖orld! ')).toEqual([
      { term: 'hello', position: 0, start: 2, end: 7 },
      { term: 'world', position: 1, start: 9, end: 14 },
    ]);
  });

  it('spans combining marks after a word, and not before one', () => {
    expect(tokenize('cafe\u0301 \u0301x')).toEqual([
      { term: 'cafe', position: 0, start: 0, end: 5 },
      { term: 'x', position: 1, start: 7, end: 8 },
    ]);
  });

  it('lets words that come from one code point share its offsets', () => {
    expect(tokenize('a½b')).toEqual([
      { term: 'a1', position: 0, start: 0, end: 2 },
      { term: '2b', position: 1, start: 1, end: 3 },
    ]);
    expect(tokenize('㍻')).toEqual([{ term: '平成', position: 0, start: 0, end: 1 }]);
  });

  it('bounds a word to 64 code points but spans the whole word', () => {
    expect(SEARCH_LIMITS.maxTokenCodePoints).toBe(64);
    const long = '𐐀'.repeat(65);
    const [token, next] = tokenize(`${long} x`);
    expect(token).toEqual({ term: '𐐨'.repeat(64), position: 0, start: 0, end: 65 });
    expect(next).toEqual({ term: 'x', position: 1, start: 66, end: 67 });
    expect(tokenize('a'.repeat(64))[0]!.term).toBe('a'.repeat(64));
    expect(tokenize('ß'.repeat(40))[0]!.term).toBe('s'.repeat(64));
  });

  it('reads words mixing ASCII and other characters the same way, wherever they switch', () => {
    expect(tokenize('ÉAB abÉCD AB\u0301CD')).toEqual([
      { term: 'eab', position: 0, start: 0, end: 3 },
      { term: 'abecd', position: 1, start: 4, end: 9 },
      { term: 'abcd', position: 2, start: 10, end: 15 },
    ]);
    expect(tokenize(`Ab${'c'.repeat(70)}É`)).toEqual([
      { term: `ab${'c'.repeat(62)}`, position: 0, start: 0, end: 73 },
    ]);
    expect(tokenize(`${'X'.repeat(63)}ß`)[0]!.term).toBe(`${'x'.repeat(63)}s`);
    expect(tokenize(`${'X'.repeat(64)}é`)[0]!.term).toBe('x'.repeat(64));
    expect(tokenize('a½B')).toEqual([
      { term: 'a1', position: 0, start: 0, end: 2 },
      { term: '2b', position: 1, start: 1, end: 3 },
    ]);
  });

  it('stops after maxTokens words', () => {
    expect(tokenize('a b c d', { maxTokens: 2 }).map((token) => token.term)).toEqual(['a', 'b']);
    expect(tokenize('a b', { maxTokens: 2 }).map((token) => token.term)).toEqual(['a', 'b']);
    expect(tokenize('a½b', { maxTokens: 1 }).map((token) => token.term)).toEqual(['a1']);
    expect(tokenize('a b', { maxTokens: 0 })).toEqual([]);
    // ⑴ is `(1)`: the limit stops inside one code point's form.
    expect(tokenize('a⑴ b', { maxTokens: 1 }).map((token) => token.term)).toEqual(['a']);
    expect(tokenize('a⑴ b', { maxTokens: 2 }).map((token) => token.term)).toEqual(['a', '1']);
  });

  it('tokenizes every README.md under node_modules, with offsets that point at each word', () => {
    const corpus = readmeCorpus();
    expect(corpus.length).toBeGreaterThan(50);
    let words = 0;
    for (const { file, text } of corpus) {
      const tokens = tokenize(text);
      const length = codePointLength(text);
      const chars = Array.from(text);
      expect(
        tokens.map((token) => token.term),
        file,
      ).toEqual(wholeStringWords(text));
      const problems: string[] = [];
      let previousStart = -1;
      for (const token of tokens) {
        const original = chars.slice(token.start, token.end).join('');
        // The original stretch holds the word (alone, unless one code point gave two words).
        const ordered = token.start >= previousStart && token.end <= length && token.start < token.end;
        if (!ordered || !terms(original).includes(token.term)) problems.push(`${token.term}@${token.start}`);
        previousStart = token.start;
      }
      expect(problems, file).toEqual([]);
      words += tokens.length;
    }
    expect(words).toBeGreaterThan(100_000);
  });

  it('points offsets at the original text for any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-composite', maxLength: 30 }), (text) => {
        for (const token of tokenize(text)) {
          expect(terms(sliceCodePoints(text, token.start, token.end))).toContain(token.term);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('ftsTerm', () => {
  it('writes each UTF-8 byte as two letters a-p, high nibble first', () => {
    expect(ftsTerm('ab')).toBe('gbgc');
    expect(ftsTerm('strasse')).toBe('hdhehcgbhdhdgf');
    expect(ftsTerm('é')).toBe('mdkj');
    expect(ftsTerm('𐐨')).toBe('pajajaki');
    expect(ftsTerm('\u0000\u007f')).toBe('aahp');
    expect(ftsTerm('\u{10ffff}')).toBe('peiplplp');
    expect(ftsTerm('')).toBe('');
  });

  it('keeps prefixes as prefixes, and distinct words distinct, in letters a-p only', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 20 }), fc.nat(), (text, cut) => {
        const chars = Array.from(text);
        const prefix = chars.slice(0, cut % (chars.length + 1)).join('');
        expect(ftsTerm(text).startsWith(ftsTerm(prefix))).toBe(true);
        expect(ftsTerm(text)).toMatch(/^[a-p]*$/);
        expect(ftsTerm(text)).toHaveLength(2 * new TextEncoder().encode(text).length);
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        expect(ftsTerm(a) === ftsTerm(b)).toBe(a === b);
      }),
    );
  });

  it('encodes the longest word in 512 letters', () => {
    const [longest] = tokenize('𐐀'.repeat(80));
    expect(ftsTerm(longest!.term)).toHaveLength(512);
  });
});

describe('countWords', () => {
  it('counts what tokenize finds, up to max, and where the asked-for word ends', () => {
    fc.assert(
      fc.property(
        anyText(),
        fc.integer({ min: 0, max: 12 }),
        fc.integer({ min: 1, max: 12 }),
        (text, max, endOf) => {
          const tokens = tokenize(text, { maxTokens: max });
          const counted = countWords(text, max, endOf);
          expect(counted.count).toBe(tokens.length);
          expect(counted.end).toBe(tokens[Math.min(endOf, tokens.length) - 1]?.end ?? 0);
          expect(countWords(text, max).end).toBe(tokens.at(-1)?.end ?? 0);
        },
      ),
    );
  });

  it('agrees with tokenize on the README corpus', () => {
    for (const { text } of readmeCorpus().slice(0, 40)) {
      const tokens = tokenize(text, { maxTokens: 5000 });
      expect(countWords(text, 5000)).toEqual({ count: tokens.length, end: tokens.at(-1)?.end ?? 0 });
    }
  });
});
