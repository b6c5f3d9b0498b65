import { type IndexedDocument, SEARCH_FIELDS, type SearchField } from './index-document.js';
import { documentLookup, termOccurrences } from './match.js';
import type { SearchQuery } from './query.js';

/** A word in the filename counts three times one in the content; metadata and front matter 1.5 times. */
export const FIELD_WEIGHTS: Readonly<Record<SearchField, number>> = { filename: 3, meta: 1.5, content: 1 };
const K1 = 1.2;
const B = 0.75;

/**
 * What ranking needs of one document, a few numbers instead of its words: each field's length, and for
 * each term of `include` (flattened, in order) its occurrences per field. A search keeps these for its
 * matches and drops the documents, so ranking 10 000 matches holds kilobytes, not their words.
 */
export interface RankStats {
  readonly lengths: Readonly<Record<SearchField, number>>;
  /** `occurrences[term][field]`, fields in `SEARCH_FIELDS` order. */
  readonly occurrences: readonly (readonly number[])[];
}

export function rankStats(query: SearchQuery, doc: IndexedDocument): RankStats {
  const lookup = documentLookup(doc);
  return {
    lengths: { filename: lookup.filename.length, content: lookup.content.length, meta: lookup.meta.length },
    occurrences: query.include
      .flat()
      .map((term) => SEARCH_FIELDS.map((field) => termOccurrences(term, lookup[field]).length)),
  };
}

/**
 * The reference relevance: BM25F (Robertson & Zaragoza) over the three fields, with the statistics of
 * `docs` (the candidates of one answer). Each term of `include` (every `OR` alternative, a phrase as
 * one term) adds `idf × tf' × (k1 + 1) / (tf' + k1)`, where `tf'` sums the term's occurrences in each
 * field times the field's weight, over the field's length normalised by its average length (b = 0.75,
 * k1 = 1.2) and `idf = ln(1 + (N − df + 0.5) / (df + 0.5))`. Excluded terms add nothing. Scores are
 * ≥ 0, higher is better, and only comparable within one call: SQL stores rank with their engine's own
 * function, so the interface promises no more than that.
 */
export function scoreDocuments(query: SearchQuery, docs: readonly IndexedDocument[]): number[] {
  return scoreStats(
    query,
    docs.map((doc) => rankStats(query, doc)),
  );
}

/** `scoreDocuments` from the documents' `rankStats` (the same scores). */
export function scoreStats(query: SearchQuery, docs: readonly RankStats[]): number[] {
  const averages = Object.fromEntries(
    SEARCH_FIELDS.map((field) => {
      const total = docs.reduce((sum, doc) => sum + doc.lengths[field], 0);
      return [field, docs.length === 0 || total === 0 ? 1 : total / docs.length];
    }),
  ) as Record<SearchField, number>;
  const scores = docs.map(() => 0);
  const terms = query.include.flat().length;
  for (let term = 0; term < terms; term += 1) {
    const frequencies = docs.map((doc) =>
      SEARCH_FIELDS.reduce((sum, field, index) => {
        const occurrences = doc.occurrences[term]![index]!;
        const norm = 1 - B + (B * doc.lengths[field]) / averages[field];
        return sum + (FIELD_WEIGHTS[field] * occurrences) / norm;
      }, 0),
    );
    const df = frequencies.filter((frequency) => frequency > 0).length;
    const idf = Math.log(1 + (docs.length - df + 0.5) / (df + 0.5));
    frequencies.forEach((frequency, index) => {
      scores[index]! += (idf * frequency * (K1 + 1)) / (frequency + K1);
    });
  }
  return scores;
}
