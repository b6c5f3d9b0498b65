import type { IndexedDocument, IndexedToken } from './index-document.js';
import type { QueryTerm, SearchQuery } from './query.js';
import { ftsTerm } from './tokenize.js';

/**
 * What SQL full-text engines store and are asked, built only from `ftsTerm` encodings (letters `a`-`p`)
 * and a filler word: user text never reaches an engine's query syntax. The engines only narrow the
 * candidates; `matchesQuery` decides, so an engine may find more than the query matches, never less.
 */

/** A word no query term can equal (an `ftsTerm` has only the letters `a`-`p`), for unused positions. */
export const FTS_FILLER = 'x';

/**
 * A field as one FTS5 column: its words' encodings separated by spaces, in position order, with the
 * filler at unused positions so that a phrase never joins two `meta` values.
 */
export function fts5ColumnText(tokens: readonly IndexedToken[]): string {
  const words: string[] = [];
  // A text repeats its words (a 16 000-word file has a few thousand distinct ones): encode each once.
  const encoded = new Map<string, string>();
  for (const { term, position } of tokens) {
    while (words.length < position) words.push(FTS_FILLER);
    let encoding = encoded.get(term);
    if (encoding === undefined) {
      encoding = ftsTerm(term);
      encoded.set(term, encoding);
    }
    words[position] = encoding;
  }
  return words.join(' ');
}

/**
 * One query term for FTS5, whose index keeps no positions (`detail=none`): a phrase as all of its
 * words (the last one a prefix for `word*`); the phrase's order is then checked by `matchesQuery`.
 */
const fts5Term = (term: QueryTerm): string => {
  const last = term.words.length - 1;
  const words = term.words.map(
    (word, index) => `"${ftsTerm(word)}"${term.prefix && index === last ? ' *' : ''}`,
  );
  return words.length === 1 ? words[0]! : `(${words.join(' AND ')})`;
};

/**
 * The FTS5 MATCH expression of a query: each group of `include` as an OR of its terms (a word, a
 * `word*` prefix query, a phrase), the groups ANDed. Exclusions are left to `matchesQuery`.
 */
export function fts5MatchExpression(query: SearchQuery): string {
  return query.include.map((group) => `(${group.map(fts5Term).join(' OR ')})`).join(' AND ');
}

/**
 * The three fields as one Postgres `tsvector` literal of lexemes without positions (`'gbgc' 'mdkj'`),
 * cast with `::tsvector`, never parsed by a text search configuration. No positions: Postgres keeps at
 * most 256 per lexeme, so a phrase query would miss phrases after a common word's 256th occurrence.
 */
export function tsvectorLiteral(doc: IndexedDocument): string {
  const terms = new Set<string>();
  for (const tokens of [doc.filename, doc.content, doc.meta]) for (const { term } of tokens) terms.add(term);
  return [...terms].map((term) => `'${ftsTerm(term)}'`).join(' ');
}

const tsqueryTerm = (term: QueryTerm): string => {
  const words = term.words.map(ftsTerm);
  const last = words.length - 1;
  return `(${words.map((word, index) => `'${word}'${term.prefix && index === last ? ':*' : ''}`).join(' & ')})`;
};

/**
 * The `tsquery` literal of a query (cast with `::tsquery`, never through `to_tsquery`): each group an
 * OR of its terms (a phrase as all of its words, a prefix with `:*`), the groups ANDed; phrase order
 * and exclusions are left to `matchesQuery`.
 */
export function tsqueryLiteral(query: SearchQuery): string {
  return query.include.map((group) => `(${group.map(tsqueryTerm).join(' | ')})`).join(' & ');
}
