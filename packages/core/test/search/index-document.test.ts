import {
  indexDocument,
  META_VALUE_GAP,
  matchesQuery,
  parseQuery,
  SEARCH_LIMITS,
  searchableContentText,
} from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it, test } from 'vitest';

const base = { filename: 'a.md', contentText: '', metadata: null, frontmatter: null };
const terms = (tokens: readonly { term: string }[]) => tokens.map((token) => token.term);

describe('indexDocument', () => {
  it('tokenizes the filename, the content and the string values of metadata and front matter', () => {
    const doc = indexDocument({
      filename: 'Notes/2024-05 Meeting.MD',
      contentText: '# Café\n\nHello *world*',
      metadata: { title: 'Alpha Beta', count: 3, done: true, nothing: null },
      frontmatter: { tags: ['x y', 'z'], nested: { deep: 'Ünder' } },
    });
    expect(doc.filename).toEqual([
      { term: 'notes', position: 0 },
      { term: '2024', position: 1 },
      { term: '05', position: 2 },
      { term: 'meeting', position: 3 },
      { term: 'md', position: 4 },
    ]);
    expect(doc.content).toEqual([
      { term: 'cafe', position: 0 },
      { term: 'hello', position: 1 },
      { term: 'world', position: 2 },
    ]);
    expect(META_VALUE_GAP).toBe(1);
    expect(doc.meta).toEqual([
      { term: 'alpha', position: 0 },
      { term: 'beta', position: 1 },
      { term: 'x', position: 3 },
      { term: 'y', position: 4 },
      { term: 'z', position: 6 },
      { term: 'under', position: 8 },
    ]);
  });

  it('never indexes keys, numbers, booleans or null', () => {
    const doc = indexDocument({ ...base, metadata: { secretkey: 1, flag: false, none: null, n: 12 } });
    expect(doc.meta).toEqual([]);
  });

  it('skips values without words and leaves no gap for them', () => {
    const doc = indexDocument({ ...base, metadata: { a: 'one', b: '!!', c: '', d: 'two' } });
    expect(doc.meta).toEqual([
      { term: 'one', position: 0 },
      { term: 'two', position: 2 },
    ]);
  });

  it('keeps phrases within one value', () => {
    const doc = indexDocument({
      ...base,
      metadata: { a: 'red apple', b: 'green pear' },
      frontmatter: { c: 'ripe fig' },
    });
    expect(matchesQuery(parseQuery('"red apple"'), doc)).toBe(true);
    expect(matchesQuery(parseQuery('"apple green"'), doc)).toBe(false);
    expect(matchesQuery(parseQuery('"pear ripe"'), doc)).toBe(false);
    expect(matchesQuery(parseQuery('"ripe fig"'), doc)).toBe(true);
  });

  it('walks metadata before front matter, members and elements in order', () => {
    const doc = indexDocument({
      ...base,
      metadata: { z: 'first', a: ['second', { b: 'third' }] },
      frontmatter: { y: 'fourth' },
    });
    expect(terms(doc.meta)).toEqual(['first', 'second', 'third', 'fourth']);
  });

  it('walks 32 levels of objects and arrays, not 33', () => {
    let metadata: unknown = 'deep';
    for (let level = 0; level < 32; level += 1) metadata = level % 2 ? { k: metadata } : [metadata];
    expect(terms(indexDocument({ ...base, metadata }).meta)).toEqual(['deep']);
    expect(terms(indexDocument({ ...base, metadata: [metadata] }).meta)).toEqual([]);
  });

  it('indexes at most 16 000 content words', () => {
    expect(SEARCH_LIMITS.contentMaxWords).toBe(16_000);
    const words = Array.from({ length: 16_001 }, (_, index) => `w${index}`);
    const doc = indexDocument({ ...base, contentText: words.join(' ') });
    expect(doc.content).toHaveLength(16_000);
    expect(doc.content.at(-1)).toEqual({ term: 'w15999', position: 15_999 });
  });

  it('indexes the content up to its first 1 MiB of UTF-8', () => {
    const head = 'é'.repeat(512 * 1024 - 1);
    const doc = indexDocument({ ...base, contentText: `${head} ab cd` });
    // 1 048 574 bytes of é, then ' a' ends exactly at 1 MiB: the word is cut to `a`.
    expect(terms(doc.content).slice(1)).toEqual(['a']);
    const fits = indexDocument({ ...base, contentText: `${'x'.repeat(1024 * 1024 - 3)} ab` });
    expect(terms(fits.content).slice(1)).toEqual(['ab']);
  });

  it('indexes meta positions 0 to 15 999 only', () => {
    const value = Array.from({ length: 10_000 }, () => 'w').join(' ');
    const doc = indexDocument({ ...base, metadata: { a: value, b: value, c: 'late' } });
    expect(doc.meta).toHaveLength(16_000 - META_VALUE_GAP);
    expect(doc.meta.at(-1)!.position).toBe(15_999);
    expect(terms(doc.meta)).not.toContain('late');
  });

  it('stops walking after 100 000 values (containers and roots count)', () => {
    // The array, 99 998 numbers and 'found' are 100 000 values.
    const metadata = [...Array.from({ length: 99_998 }, () => 1), 'found', 'lost'];
    expect(terms(indexDocument({ ...base, metadata }).meta)).toEqual(['found']);
  });
});

describe('searchableContentText', () => {
  const MAX = SEARCH_LIMITS.contentMaxWords;

  test('keeps a text of at most 16 000 words whole', () => {
    const text = `${'word '.repeat(MAX - 1)}last.\n`;
    expect(searchableContentText(text)).toBe(text);
  });

  test('cuts right after the 16 000th word: the same index, a fraction of the bytes', () => {
    const text = `${'wörd 😀 '.repeat(MAX - 1)}last trailing words that are never indexed`;
    const kept = searchableContentText(text);
    expect(kept.endsWith('last')).toBe(true);
    expect(kept.length).toBeLessThan(text.length);
    const document = (contentText: string) =>
      indexDocument({ filename: 'a.md', contentText, metadata: null, frontmatter: null });
    expect(document(kept)).toEqual(document(text));
  });

  test('property: indexing the kept text equals indexing the whole text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.integer({ min: 0, max: 40 }), (tail, extra) => {
        const text = `${'ab '.repeat(MAX - 20)}${'cd ü '.repeat(extra)}${tail}`;
        const kept = searchableContentText(text);
        expect(text.startsWith(kept)).toBe(true);
        const document = (contentText: string) =>
          indexDocument({ filename: 'a.md', contentText, metadata: null, frontmatter: null }).content;
        expect(document(kept)).toEqual(document(text));
      }),
      { numRuns: 30 },
    );
  });
});
