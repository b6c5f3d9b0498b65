import {
  type IndexedDocument,
  type IndexedToken,
  SEARCH_FIELDS,
  type SearchField,
} from './index-document.js';
import type { QueryTerm, SearchQuery } from './query.js';

/** A field's words by term and by position, built once per document (kept while the document lives). */
export interface FieldLookup {
  readonly positionsByTerm: ReadonlyMap<string, readonly number[]>;
  readonly termByPosition: ReadonlyMap<number, string>;
  readonly length: number;
}

const lookups = new WeakMap<IndexedDocument, Readonly<Record<SearchField, FieldLookup>>>();

export function documentLookup(doc: IndexedDocument): Readonly<Record<SearchField, FieldLookup>> {
  let lookup = lookups.get(doc);
  if (!lookup) {
    lookup = {
      filename: fieldLookup(doc.filename),
      content: fieldLookup(doc.content),
      meta: fieldLookup(doc.meta),
    };
    lookups.set(doc, lookup);
  }
  return lookup;
}

export function fieldLookup(tokens: readonly IndexedToken[]): FieldLookup {
  const positionsByTerm = new Map<string, number[]>();
  const termByPosition = new Map<number, string>();
  for (const { term, position } of tokens) {
    const positions = positionsByTerm.get(term);
    if (positions) positions.push(position);
    else positionsByTerm.set(term, [position]);
    termByPosition.set(position, term);
  }
  return { positionsByTerm, termByPosition, length: tokens.length };
}

const wordMatches = (word: string, candidate: string | undefined, prefix: boolean) =>
  candidate !== undefined && (prefix ? candidate.startsWith(word) : candidate === word);

/**
 * The positions in one field where the term starts: every occurrence of a word (or of any word with the
 * prefix), or the first position of every run of the phrase's words at consecutive positions.
 */
export function termOccurrences(term: QueryTerm, field: FieldLookup): number[] {
  const last = term.words.length - 1;
  const first = term.words[0]!;
  let starts: number[];
  if (term.prefix && last === 0) {
    starts = [];
    for (const [candidate, positions] of field.positionsByTerm) {
      if (candidate.startsWith(first)) starts.push(...positions);
    }
    return starts.sort((a, b) => a - b);
  }
  starts = [...(field.positionsByTerm.get(first) ?? [])];
  return starts.filter((start) =>
    term.words.every((word, index) =>
      wordMatches(word, field.termByPosition.get(start + index), term.prefix && index === last),
    ),
  );
}

const termMatches = (term: QueryTerm, lookup: Readonly<Record<SearchField, FieldLookup>>) =>
  SEARCH_FIELDS.some((field) => termOccurrences(term, lookup[field]).length > 0);

/**
 * The reference matcher (the memory adapter's, and what property tests hold SQL adapters to): every
 * `include` group has a term found in some field, and no `exclude` term is found in any field.
 */
export function matchesQuery(query: SearchQuery, doc: IndexedDocument): boolean {
  const lookup = documentLookup(doc);
  return (
    query.include.every((group) => group.some((term) => termMatches(term, lookup))) &&
    !query.exclude.some((term) => termMatches(term, lookup))
  );
}
