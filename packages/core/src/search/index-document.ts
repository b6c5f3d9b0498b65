import { truncateUtf8 } from './content-text.js';
import { SEARCH_LIMITS } from './limits.js';
import { countWords, tokenize } from './tokenize.js';

/** A word as an index keeps it. */
export interface IndexedToken {
  readonly term: string;
  readonly position: number;
}

/**
 * What search indexes of a file, one token list per field. Positions start at 0 in each field; a
 * phrase matches consecutive positions of one field.
 */
export interface IndexedDocument {
  readonly filename: readonly IndexedToken[];
  readonly content: readonly IndexedToken[];
  /**
   * The string values of metadata, then of front matter. Each value after the first starts one
   * position after the previous value's last word (a gap of `META_VALUE_GAP` unused position), so no
   * phrase spans two values. Stores without explicit positions (FTS5) write a filler word there that
   * no query term can equal (e.g. `x`: an `ftsTerm` only has the letters `a`-`p`).
   */
  readonly meta: readonly IndexedToken[];
}

export const SEARCH_FIELDS = ['filename', 'content', 'meta'] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];

/** Unused positions between two values of the `meta` field. */
export const META_VALUE_GAP = 1;

export interface IndexDocumentInput {
  readonly filename: string;
  /** The content's text; only its first 1 MiB and 16 000 words are indexed (see ContentTextCollector). */
  readonly contentText: string;
  readonly metadata: unknown;
  readonly frontmatter: unknown;
}

const indexed = (tokens: readonly { term: string; position: number }[]): IndexedToken[] =>
  tokens.map(({ term, position }) => ({ term, position }));

/** The text of a file's content that search reads: the first 1 MiB of UTF-8. */
export const indexedContentText = (contentText: string): string =>
  truncateUtf8(contentText, SEARCH_LIMITS.contentMaxBytes);

/**
 * The text a store keeps for search (its index, snippets and ranking): the indexed text cut right
 * after its last indexed word (the 16 000th), since nothing after it can ever match. A 1 MiB file of
 * short words keeps about a tenth of its bytes, which the commit transaction then writes.
 */
export function searchableContentText(contentText: string): string {
  const text = indexedContentText(contentText);
  const max = SEARCH_LIMITS.contentMaxWords;
  // One word more than is indexed tells whether any is left out; `end` is where the last indexed ends.
  const words = countWords(text, max + 1, max);
  if (words.count <= max) return text;
  // `end` counts code points; walk to the code unit where the last word ends.
  let index = 0;
  for (let offset = 0; offset < words.end; offset += 1) index += text.codePointAt(index)! > 0xffff ? 2 : 1;
  return text.slice(0, index);
}

export function indexDocument(input: IndexDocumentInput): IndexedDocument {
  return {
    filename: indexed(tokenize(input.filename)),
    content: indexed(
      tokenize(indexedContentText(input.contentText), { maxTokens: SEARCH_LIMITS.contentMaxWords }),
    ),
    meta: metaTokens([input.metadata, input.frontmatter]),
  };
}

/**
 * The `meta` field: string values found depth-first (object members in their order, array elements in
 * theirs), keys never; at most `metaMaxDepth` levels, `metaMaxNodes` values and `metaMaxPositions`
 * positions are read, so the walk is bounded whatever the caller passes.
 */
function metaTokens(roots: readonly unknown[]): IndexedToken[] {
  const tokens: IndexedToken[] = [];
  let next = 0;
  let nodes = 0;
  const pending: { value: unknown; depth: number }[] = roots.map((value) => ({ value, depth: 0 })).reverse();
  while (pending.length > 0 && nodes < SEARCH_LIMITS.metaMaxNodes) {
    const { value, depth } = pending.pop()!;
    nodes += 1;
    if (typeof value === 'string') {
      const room = SEARCH_LIMITS.metaMaxPositions - next;
      if (room <= 0) break;
      const words = tokenize(value, { maxTokens: room });
      for (const word of words) tokens.push({ term: word.term, position: next + word.position });
      if (words.length > 0) next += words.length + META_VALUE_GAP;
    } else if (typeof value === 'object' && value !== null && depth < SEARCH_LIMITS.metaMaxDepth) {
      const children = Array.isArray(value) ? value : Object.values(value);
      for (let index = children.length - 1; index >= 0; index -= 1) {
        pending.push({ value: children[index], depth: depth + 1 });
      }
    }
  }
  return tokens;
}
