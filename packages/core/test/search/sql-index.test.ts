import {
  fts5ColumnText,
  fts5MatchExpression,
  ftsTerm,
  indexDocument,
  parseQuery,
  type SearchQuery,
  tsqueryLiteral,
  tsvectorLiteral,
} from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const tryParse = (text: string): SearchQuery | undefined => {
  try {
    return parseQuery(text);
  } catch {
    return undefined;
  }
};

describe('SQL encodings of the index and of queries', () => {
  it('writes a field as ftsTerms in position order, the filler at unused positions', () => {
    const doc = indexDocument({
      filename: 'a.md',
      contentText: '',
      metadata: { x: 'Hi', y: 'yo' },
      frontmatter: null,
    });
    expect(fts5ColumnText(doc.meta)).toBe(`${ftsTerm('hi')} x ${ftsTerm('yo')}`);
    expect(fts5ColumnText(doc.filename)).toBe(`${ftsTerm('a')} ${ftsTerm('md')}`);
    expect(tsvectorLiteral(doc)).toBe(
      [ftsTerm('a'), ftsTerm('md'), ftsTerm('hi'), ftsTerm('yo')].map((t) => `'${t}'`).join(' '),
    );
  });

  it('turns groups, phrases and prefixes into FTS5 and tsquery syntax, leaving exclusions out', () => {
    const query = parseQuery('"quick fox" OR dog* -cat café');
    const [quick, fox, dog, cafe] = ['quick', 'fox', 'dog', 'cafe'].map(ftsTerm);
    // The FTS5 index keeps no positions: a phrase is all of its words there (matchesQuery checks order).
    expect(fts5MatchExpression(query)).toBe(`(("${quick}" AND "${fox}") OR "${dog}" *) AND ("${cafe}")`);
    expect(tsqueryLiteral(query)).toBe(`(('${quick}' & '${fox}') | ('${dog}':*)) & (('${cafe}'))`);
  });

  it('never lets a character of the query text through: only encodings and the syntax the core writes', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (text) => {
        const query = tryParse(text);
        if (!query) return;
        expect(fts5MatchExpression(query)).toMatch(/^[a-p" ()*]*(?:(?:AND|OR)[a-p" ()*]*)*$/);
        expect(tsqueryLiteral(query)).toMatch(/^[a-p' ()&|:*]*$/);
      }),
      { numRuns: 2000 },
    );
    for (const hostile of [
      'NEAR(a b)',
      'content:x',
      "a' | b",
      '"a" AND "b"',
      'x:* & !y',
      '{a b}: c',
      '^start',
    ]) {
      const query = parseQuery(hostile);
      expect(fts5MatchExpression(query)).not.toMatch(/NEAR|NOT|:|\^|\{|'/);
      expect(tsqueryLiteral(query)).not.toMatch(/!|<->|"|NEAR/);
    }
  });
});
