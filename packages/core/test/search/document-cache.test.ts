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
});
