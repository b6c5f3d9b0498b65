import { indexDocument } from '@mdstore/core';
import { aFile } from '@mdstore/core/testing';
import { describe, expect, it } from 'vitest';
import { SearchDocumentCache } from '../../src/use-cases/search/document-cache.js';

const doc = (words: number) =>
  indexDocument({ filename: 'x', contentText: 'w '.repeat(words), metadata: null, frontmatter: null });

describe('SearchDocumentCache', () => {
  it('finds a document only for the same id, revision, digest and front matter presence', () => {
    const cache = new SearchDocumentCache(1000);
    const file = aFile();
    const document = doc(3);
    cache.set(file, document);
    expect(cache.get({ ...file })).toBe(document);
    expect(cache.get({ ...file, revision: file.revision + 1 })).toBeUndefined();
    expect(cache.get({ ...file, sha256: '0'.repeat(64) })).toBeUndefined();
    expect(cache.get({ ...file, frontmatterJson: '{"a":1}' })).toBeUndefined();
    expect(cache.get(aFile())).toBeUndefined();
  });

  it('drops the least recently used documents beyond its word budget, and never keeps one too big', () => {
    const cache = new SearchDocumentCache(25);
    const [a, b, c] = [aFile(), aFile(), aFile()];
    cache.set(a, doc(9)); // 10 words with the filename
    cache.set(b, doc(9));
    expect(cache.get(a)).toBeDefined(); // a is now the most recently used
    cache.set(c, doc(9)); // 30 > 25: b goes
    expect(cache.get(b)).toBeUndefined();
    expect(cache.get(a)).toBeDefined();
    expect(cache.get(c)).toBeDefined();
    const big = aFile();
    cache.set(big, doc(30));
    expect(cache.get(big)).toBeUndefined();
    expect(cache.get(a)).toBeDefined();
  });

  it('keeps documents that fill the budget exactly, a document of exactly the budget included', () => {
    const cache = new SearchDocumentCache(20);
    const [a, b] = [aFile(), aFile()];
    cache.set(a, doc(9));
    cache.set(b, doc(9)); // 20 words: exactly the budget
    expect(cache.get(a)).toBeDefined();
    expect(cache.get(b)).toBeDefined();
    const whole = aFile();
    const alone = new SearchDocumentCache(10);
    alone.set(whole, doc(9)); // 10 words, a budget of 10
    expect(alone.get(whole)).toBeDefined();
  });

  it('counts a document stored again under the same key once', () => {
    const cache = new SearchDocumentCache(20);
    const [a, b] = [aFile(), aFile()];
    cache.set(a, doc(9));
    cache.set(a, doc(9));
    cache.set(a, doc(9));
    cache.set(b, doc(9)); // 20 words if a counts once, 40 if each set counted
    expect(cache.get(a)).toBeDefined();
    expect(cache.get(b)).toBeDefined();
  });

  it('counts the words of the filename, the content and the metadata', () => {
    const withMeta = indexDocument({
      filename: 'one two',
      contentText: 'w '.repeat(5),
      metadata: { note: 'alpha beta gamma' },
      frontmatter: null,
    });
    const words = withMeta.filename.length + withMeta.content.length + withMeta.meta.length;
    expect(withMeta.filename.length).toBeGreaterThan(1);
    expect(withMeta.meta.length).toBeGreaterThan(0);
    const fits = new SearchDocumentCache(words);
    const file = aFile();
    fits.set(file, withMeta);
    expect(fits.get(file)).toBe(withMeta);
    const short = new SearchDocumentCache(words - 1);
    short.set(file, withMeta);
    expect(short.get(file)).toBeUndefined();
    // With a budget of exactly two such documents, a third pushes out the oldest only.
    const two = new SearchDocumentCache(2 * words);
    const [x, y, z] = [aFile(), aFile(), aFile()];
    two.set(x, withMeta);
    two.set(y, withMeta);
    two.set(z, withMeta);
    expect(two.get(x)).toBeUndefined();
    expect(two.get(y)).toBe(withMeta);
    expect(two.get(z)).toBe(withMeta);
  });
});
