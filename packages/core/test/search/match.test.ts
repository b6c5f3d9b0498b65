import {
  FIELD_WEIGHTS,
  type IndexedDocument,
  type IndexedToken,
  indexDocument,
  matchesQuery,
  parseQuery,
  type QueryTerm,
  type SearchQuery,
  scoreDocuments,
} from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const doc = (fields: { filename?: string; content?: string; metadata?: unknown; frontmatter?: unknown }) =>
  indexDocument({
    filename: fields.filename ?? 'file.md',
    contentText: fields.content ?? '',
    metadata: fields.metadata ?? null,
    frontmatter: fields.frontmatter ?? null,
  });

const matches = (query: string, document: IndexedDocument) => matchesQuery(parseQuery(query), document);

describe('matchesQuery', () => {
  const file = doc({
    filename: 'project-plan.md',
    content: 'The quick brown fox jumps over the lazy dog.',
    metadata: { owner: 'Zoë Smith', tags: ['draft', 'internal review'] },
    frontmatter: { title: 'Roadmap 2025' },
  });

  it('needs every word, each in any field', () => {
    expect(matches('quick', file)).toBe(true);
    expect(matches('quick plan zoe roadmap', file)).toBe(true);
    expect(matches('quick missing', file)).toBe(false);
    expect(matches('QUICK Zoë', file)).toBe(true);
  });

  it('matches a phrase at consecutive positions within one field', () => {
    expect(matches('"quick brown fox"', file)).toBe(true);
    expect(matches('"brown quick"', file)).toBe(false);
    expect(matches('"quick fox"', file)).toBe(false);
    expect(matches('"project plan md"', file)).toBe(true);
    expect(matches('"md the"', file)).toBe(false);
    expect(matches('"internal review"', file)).toBe(true);
    expect(matches('"draft internal"', file)).toBe(false);
  });

  it('matches prefixes against whole words', () => {
    expect(matches('qui*', file)).toBe(true);
    expect(matches('uick*', file)).toBe(false);
    expect(matches('roadm*', file)).toBe(true);
    expect(matches('20*', file)).toBe(true);
    expect(matches('quickly*', file)).toBe(false);
    expect(matches('x -lazy-do*', doc({ content: 'x lazy dog' }))).toBe(false);
    expect(matches('x -lazy-do*', doc({ content: 'x lazy cat dog' }))).toBe(true);
    expect(matches('cat OR lazy-do*', file)).toBe(true);
    expect(matches('cat OR lazy-da*', file)).toBe(false);
    // Only the last word of a phrase is a prefix.
    expect(matches('cat OR la-do*', file)).toBe(false);
    expect(matches('cat OR the-la-do*', file)).toBe(false);
    expect(matches('cat OR the-lazy-do*', file)).toBe(true);
    expect(matches('cat OR lazy-do*', file)).toBe(true);
    // Inside quotes `*` is a separator: no prefix.
    expect(matches('"lazy d*"', file)).toBe(false);
  });

  it('excludes words and phrases found in any field', () => {
    expect(matches('quick -cat', file)).toBe(true);
    expect(matches('quick -dog', file)).toBe(false);
    expect(matches('quick -draft', file)).toBe(false);
    expect(matches('quick -"lazy dog"', file)).toBe(false);
    expect(matches('quick -"dog lazy"', file)).toBe(false === matches('"dog lazy"', file));
    expect(matches('quick -plan', file)).toBe(false);
    expect(matches('quick -pla*', file)).toBe(false);
  });

  it('takes any alternative of an OR group', () => {
    expect(matches('cat OR dog', file)).toBe(true);
    expect(matches('cat OR mouse', file)).toBe(false);
    expect(matches('cat OR mouse quick', file)).toBe(false);
    expect(matches('"brown dog" OR "lazy dog"', file)).toBe(true);
  });

  it('agrees with a plain reference over random documents and queries', () => {
    const vocabulary = ['a', 'b', 'ab', 'abc', 'ba', 'c'];
    const text = fc.array(fc.constantFrom(...vocabulary), { maxLength: 6 }).map((words) => words.join(' '));
    const queryPart = fc.oneof(
      fc.constantFrom(...vocabulary, 'ab*', 'ba*', 'OR', '-a', '-ab*', '-c', 'a-ab*', '-ab-ba*', 'ab-b*'),
      fc
        .array(fc.constantFrom(...vocabulary), { minLength: 1, maxLength: 3 })
        .map((ws) => `"${ws.join(' ')}"`),
      fc
        .array(fc.constantFrom(...vocabulary), { minLength: 1, maxLength: 3 })
        .map((ws) => `-"${ws.join(' ')}"`),
    );
    fc.assert(
      fc.property(
        text,
        text,
        fc.array(text, { maxLength: 3 }),
        fc.array(queryPart, { minLength: 1, maxLength: 6 }),
        (filename, content, values, parts) => {
          let query: SearchQuery;
          try {
            query = parseQuery(parts.join(' '));
          } catch {
            return;
          }
          const document = doc({ filename, content, metadata: { values } });
          expect(matchesQuery(query, document)).toBe(referenceMatch(query, document));
        },
      ),
      { numRuns: 2000 },
    );
  });
});

/** Written plainly from the spec, on the token lists. */
function referenceMatch(query: SearchQuery, document: IndexedDocument): boolean {
  const fields = [document.filename, document.content, document.meta];
  const found = (term: QueryTerm) =>
    fields.some((tokens) => tokens.some((token) => startsHere(term, tokens, token)));
  return query.include.every((group) => group.some(found)) && !query.exclude.some(found);
}

function startsHere(term: QueryTerm, tokens: readonly IndexedToken[], first: IndexedToken): boolean {
  return term.words.every((word, index) => {
    const token = tokens.find((candidate) => candidate.position === first.position + index);
    if (!token) return false;
    const isLast = index === term.words.length - 1;
    return term.prefix && isLast ? token.term.startsWith(word) : token.term === word;
  });
}

describe('scoreDocuments', () => {
  const score = (query: string, documents: IndexedDocument[]) => scoreDocuments(parseQuery(query), documents);

  it('ranks a word in the filename above the same word in the content', () => {
    expect(FIELD_WEIGHTS).toEqual({ filename: 3, meta: 1.5, content: 1 });
    const [inName, inContent, inMeta] = score('budget', [
      doc({ filename: 'budget.md', content: 'one two three', metadata: { t: 'four' } }),
      doc({ filename: 'notes.md', content: 'budget two three', metadata: { t: 'four' } }),
      doc({ filename: 'other.md', content: 'one two three', metadata: { t: 'budget' } }),
    ]);
    expect(inName).toBeGreaterThan(inMeta!);
    expect(inMeta).toBeGreaterThan(inContent!);
    expect(inContent).toBeGreaterThan(0);
  });

  it('ranks more occurrences higher, with diminishing returns', () => {
    const scores = score('fox', [
      doc({ content: 'fox a b c d' }),
      doc({ content: 'fox fox b c d' }),
      doc({ content: 'fox fox fox fox d' }),
      doc({ content: 'a b c d e' }),
    ]);
    expect(scores[1]).toBeGreaterThan(scores[0]!);
    expect(scores[2]).toBeGreaterThan(scores[1]!);
    expect(scores[2]! - scores[1]!).toBeLessThan(2 * (scores[1]! - scores[0]!));
    expect(scores[3]).toBe(0);
  });

  it('ranks a shorter field higher for the same occurrences', () => {
    const [short, long] = score('fox', [
      doc({ content: 'fox a' }),
      doc({ content: 'fox a b c d e f g h i j' }),
    ]);
    expect(short).toBeGreaterThan(long!);
  });

  it('weighs rare words more than common ones', () => {
    const documents = [
      doc({ content: 'common rare' }),
      doc({ content: 'common x' }),
      doc({ content: 'common y' }),
      doc({ content: 'z w' }),
    ];
    const [both] = score('common rare', documents);
    const commonOnly = score('common', documents)[0]!;
    const rareOnly = score('rare', documents)[0]!;
    expect(rareOnly).toBeGreaterThan(commonOnly);
    expect(both).toBeCloseTo(commonOnly + rareOnly, 10);
  });

  it('scores every OR alternative and phrases, never excluded terms', () => {
    const documents = [doc({ content: 'alpha beta gamma' }), doc({ content: 'delta' })];
    const [withAlternative] = score('alpha OR beta', documents);
    const [alone] = score('alpha', documents);
    expect(withAlternative).toBeGreaterThan(alone!);
    expect(score('alpha -delta', documents)).toEqual(score('alpha', documents));
    expect(score('"alpha beta"', documents)[0]).toBeGreaterThan(0);
    expect(score('"beta alpha"', documents)[0]).toBe(0);
  });

  it('follows BM25F exactly for one document and one term', () => {
    // N = 1, df = 1: idf = ln(1 + 0.5 / 1.5); lengths equal their averages, so tf' = 3 (filename weight).
    const [value] = score('fox', [doc({ filename: 'fox.md', content: 'a b' })]);
    const idf = Math.log(1 + 0.5 / 1.5);
    expect(value).toBeCloseTo((idf * 3 * 2.2) / (3 + 1.2), 12);
  });

  it('gives nothing for no documents, and survives empty fields', () => {
    expect(score('fox', [])).toEqual([]);
    expect(score('fox', [doc({ filename: '', content: '' })])).toEqual([0]);
  });
});
