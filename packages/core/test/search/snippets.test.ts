import { parseQuery, SEARCH_LIMITS, type Snippet, snippets, tokenize } from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codePointLength, sliceCodePoints } from './support.js';

const find = (content: string, query: string, options?: { max?: number; maxCodePoints?: number }) =>
  snippets(content, parseQuery(query), options);

/** The highlighted stretches of a snippet, by code points. */
const marked = (snippet: Snippet) =>
  snippet.highlights.map(([start, end]) => sliceCodePoints(snippet.text, start, end));

/** A content of distinct words, so each snippet's place in it is known. */
const numbered = (count: number, special: Record<number, string> = {}) =>
  Array.from({ length: count }, (_, index) => special[index] ?? `w${index}`).join(' ');

describe('snippets', () => {
  it('counts offsets in code points, astral characters included', () => {
    const [snippet] = find('𝐀𝐁 😀 find 𐐀x me 🇫🇷 𝐀', 'find me');
    expect(snippet!.text).toBe('𝐀𝐁 😀 find 𐐀x me 🇫🇷 𝐀');
    expect(snippet!.highlights).toEqual([
      [5, 9],
      [13, 15],
    ]);
    expect(marked(snippet!)).toEqual(['find', 'me']);
  });

  it('highlights whole words for prefixes, and a word with its combining marks', () => {
    const [snippet] = find('Prefixed words: PREFIX prefixes pref cafe\u0301s', 'pref* cafe*');
    expect(marked(snippet!)).toEqual(['Prefixed', 'PREFIX', 'prefixes', 'pref', 'cafe\u0301s']);
  });

  it('highlights the words of phrase occurrences only', () => {
    const [snippet] = find('quick brown fox. quick fox. brown quick brown', '"quick brown"');
    expect(snippet!.highlights).toEqual([
      [0, 5],
      [6, 11],
      [34, 39],
      [40, 45],
    ]);
  });

  it('highlights every OR alternative and no excluded word', () => {
    const [snippet] = find('cats and dogs and birds', 'cats OR dogs -birds');
    expect(marked(snippet!)).toEqual(['cats', 'dogs']);
  });

  it('merges highlights of words that share a code point', () => {
    const [snippet] = find('x a½b y', 'a1 OR 2b');
    expect(snippet!.highlights).toEqual([[2, 5]]);
    // Words from neighbouring code points only touch: two highlights.
    expect(find('a⑴', 'a OR 1')[0]!.highlights).toEqual([
      [0, 1],
      [1, 2],
    ]);
  });

  it('gives nothing when the content has no match', () => {
    expect(find('nothing here', 'absent')).toEqual([]);
    expect(find('', 'absent')).toEqual([]);
    expect(find('x y', 'x', { max: 0 })).toEqual([]);
  });

  it('never shows a word longer than a snippet', () => {
    const long = `x${'y'.repeat(240)}`;
    expect(find(`${long} end`, 'xy*')).toEqual([]);
    expect(find(`${long} end`, 'xy* OR end')[0]!.text).toBe('end');
    expect(find('abcde', 'abcde', { maxCodePoints: 5 })[0]!.text).toBe('abcde');
    expect(find('abcdef', 'abcdef', { maxCodePoints: 5 })).toEqual([]);
  });

  it('keeps to 3 snippets of 240 code points, in text order, without overlap', () => {
    expect(SEARCH_LIMITS.snippetMax).toBe(3);
    expect(SEARCH_LIMITS.snippetMaxCodePoints).toBe(240);
    const content = numbered(2000, { 100: 'alpha', 700: 'beta', 1300: 'gamma', 1900: 'delta' });
    const found = find(content, 'alpha OR beta OR gamma OR delta');
    expect(found).toHaveLength(3);
    const places = found.map((snippet) => content.indexOf(snippet.text));
    expect(places).toEqual([...places].sort((a, b) => a - b));
    found.forEach((snippet, index) => {
      expect(codePointLength(snippet.text)).toBeLessThanOrEqual(240);
      expect(codePointLength(snippet.text)).toBeGreaterThan(200);
      expect(places[index]).toBeGreaterThanOrEqual(0);
      if (index > 0)
        expect(places[index]).toBeGreaterThanOrEqual(places[index - 1]! + found[index - 1]!.text.length);
    });
    expect(find(content, 'alpha OR beta', { max: 1 })).toHaveLength(1);
  });

  it('prefers the window that shows the most query words', () => {
    const content = numbered(400, { 10: 'alpha', 300: 'alpha', 303: 'beta' });
    const [best] = find(content, 'alpha beta', { max: 1 });
    expect(marked(best!)).toEqual(['alpha', 'beta']);
    const both = find(content, 'alpha beta', { max: 2 });
    expect(both.map(marked)).toEqual([['alpha'], ['alpha', 'beta']]);
  });

  it('then the window with the most matches, then the earliest', () => {
    const content = numbered(400, { 10: 'x', 200: 'x', 202: 'x', 380: 'x' });
    expect(marked(find(content, 'x', { max: 1 })[0]!)).toEqual(['x', 'x']);
    const spread = numbered(400, { 10: 'x', 200: 'x', 380: 'x' });
    const [first] = find(spread, 'x', { max: 1 });
    expect(first!.text).toContain('w9 x w11');
  });

  it('centres the matches, starts and ends on whole words, and trims white space', () => {
    const content = numbered(400, { 200: 'target' });
    const [snippet] = find(content, 'target');
    const place = content.indexOf(snippet!.text);
    const target = content.indexOf('target');
    const before = target - place;
    const after = place + snippet!.text.length - (target + 'target'.length);
    expect(Math.abs(before - after)).toBeLessThan(12);
    expect(content[place - 1]).toBe(' ');
    expect(content[place + snippet!.text.length]).toBe(' ');
    expect(snippet!.text).toBe(snippet!.text.trim());
    expect(find('   \n  target \n  ', 'target')[0]!.text).toBe('target');
  });

  it('uses room left at the start of the content on the right', () => {
    const content = numbered(400, { 0: 'first' });
    const [snippet] = find(content, 'first');
    expect(snippet!.text.startsWith('first w1 w2')).toBe(true);
    expect(codePointLength(snippet!.text)).toBeGreaterThan(230);
  });

  it('uses room left at the end of the content on the left', () => {
    const content = numbered(400, { 399: 'last' });
    const [snippet] = find(content, 'last');
    expect(snippet!.text.endsWith('w397 w398 last')).toBe(true);
    expect(codePointLength(snippet!.text)).toBeGreaterThan(230);
  });

  it('reads only the indexed part of the content (16 000 words)', () => {
    expect(find(`${numbered(16_000)} late`, 'late')).toEqual([]);
    expect(find(`${numbered(15_999)} late`, 'late')).toHaveLength(1);
  });

  it('highlights exactly the matched words of any content', () => {
    const word = fc.constantFrom('ab', 'abc', 'b', 'Ab', 'ÁB', '𐐀b', 'x', 'ba');
    const gap = fc.constantFrom(' ', '  ', ', ', '\n', ' 😀 ', '-', ' 𝐀 ');
    const content = fc.array(fc.tuple(word, gap), { maxLength: 200 }).map((parts) => parts.flat().join(''));
    const query = fc.constantFrom('ab', 'ab*', 'b', '"ab b"', 'x OR ba', 'ab -x', '𐐨b');
    fc.assert(
      fc.property(
        content,
        query,
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 3, max: 60 }),
        (text, q, max, width) => {
          const parsed = parseQuery(q);
          const found = snippets(text, parsed, { max, maxCodePoints: width });
          expect(found.length).toBeLessThanOrEqual(max);
          const single = parsed.include.flat().filter((term) => term.words.length === 1);
          for (const snippet of found) {
            expect(codePointLength(snippet.text)).toBeLessThanOrEqual(width);
            expect(snippet.highlights.length).toBeGreaterThan(0);
            let previousEnd = 0;
            for (const [start, end] of snippet.highlights) {
              expect(start).toBeGreaterThanOrEqual(previousEnd);
              expect(end).toBeGreaterThan(start);
              previousEnd = end;
              // Each highlight is one whole word of the snippet.
              const words = tokenize(sliceCodePoints(snippet.text, start, end));
              expect(words).toHaveLength(1);
              expect(words[0]).toMatchObject({ start: 0, end: end - start });
            }
            // Without phrases: a whole word of the snippet is highlighted exactly when a term matches it.
            const tokens = single.length === parsed.include.flat().length ? tokenize(snippet.text) : [];
            for (const token of tokens.slice(1, -1)) {
              const hit = single.some((term) =>
                term.prefix ? token.term.startsWith(term.words[0]!) : token.term === term.words[0],
              );
              const lit = snippet.highlights.some(
                ([start, end]) => start === token.start && end === token.end,
              );
              expect(lit).toBe(hit);
            }
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
