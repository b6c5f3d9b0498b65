import { invalidAt } from './issues.js';
import { SEARCH_LIMITS } from './limits.js';
import { tokenize } from './tokenize.js';

/**
 * One thing a query looks for: a word (one entry in `words`) or a phrase (several, at consecutive
 * positions of one field). With `prefix`, the last word matches any word starting with it.
 */
export interface QueryTerm {
  readonly words: readonly string[];
  readonly prefix: boolean;
}

/**
 * A parsed query: a file matches when every group of `include` has a term that matches (a group of
 * several terms is `a OR b`), and no term of `exclude` matches. Words may match in different fields; a
 * phrase must match within one field. `include` is never empty.
 */
export interface SearchQuery {
  readonly include: readonly (readonly QueryTerm[])[];
  readonly exclude: readonly QueryTerm[];
}

const LOC = ['body', 'query'] as const;
const WHITE_SPACE = /^\p{White_Space}$/u;

/** A piece of the query text: a quoted phrase, a bare run of non-space characters, or `OR`. */
type Chunk =
  | { readonly kind: 'or' }
  | {
      readonly kind: 'term';
      readonly words: readonly string[];
      readonly prefix: boolean;
      readonly negated: boolean;
      readonly quoted: boolean;
    };

/**
 * Parses the query language of extensions §3. The query text is cut at white space and double quotes:
 * - `"…"` is a phrase (to the next `"`, or the end); `-"…"` (or `--"…"`) excludes it. Inside quotes every character
 *   but `"` is text: `-`, `*` and `OR` there are only separators or words.
 * - A bare chunk starting with `-` is excluded (the first `-` only: `--word` = `-word`; `-` alone is
 *   nothing). A chunk ending with `*` right after a word of at least 2 code points makes that word a
 *   prefix (`a*` is the word `a`; `*` alone, `foo**` and a `*` in the middle are separators).
 * - `OR` (exactly these two capital letters, alone) joins the terms on both sides into one group. It is
 *   an operator only between two terms that are not excluded; elsewhere (at the start or the end, next to
 *   another `OR` or an excluded term) it is ignored. Write `or` or `"OR"` to search the word.
 * - A chunk's text goes through the shared tokenizer: every other character (`: & | ! ( ) ^ * -`,
 *   column filters like `content:`, `NEAR`, `AND`, `NOT`) is a separator or a word.
 * - A bare chunk with several words (`e-mail`, `content:draft`) gives several words that must all occur;
 *   as an `OR` operand or excluded it is a phrase, since a group of words cannot be one alternative.
 * - A phrase of one word is that word; a phrase or chunk with no word is dropped.
 * Limits: at most 1 000 code points and 32 words (every word of every term counts), and at least one
 * term that is not excluded; else `InvalidInputError` at `["body","query"]`.
 */
export function parseQuery(query: unknown): SearchQuery {
  if (typeof query !== 'string') throw invalidAt(LOC, 'stringType');
  if (exceedsCodePoints(query, SEARCH_LIMITS.queryMaxCodePoints)) throw invalidAt(LOC, 'queryTooLong');
  const chunks = lex(query).filter((chunk) => chunk.kind === 'or' || chunk.words.length > 0);
  const parsed = group(chunks);
  const words = [...parsed.include.flat(), ...parsed.exclude].reduce(
    (sum, term) => sum + term.words.length,
    0,
  );
  if (words > SEARCH_LIMITS.queryMaxWords) throw invalidAt(LOC, 'queryTooManyWords');
  if (parsed.include.length === 0) throw invalidAt(LOC, 'queryNoWord');
  return parsed;
}

/** Stops counting at the limit: a 100 000-character query is rejected without a full walk. */
function exceedsCodePoints(text: string, max: number): boolean {
  let count = 0;
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    // A low surrogate right after a high one belongs to the same code point.
    const continues = unit >= 0xdc00 && unit <= 0xdfff && index > 0 && isHigh(text.charCodeAt(index - 1));
    if (!continues && ++count > max) return true;
  }
  return false;
}

const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;

function lex(query: string): Chunk[] {
  const chunks: Chunk[] = [];
  let bare = '';
  const endBare = () => {
    if (bare !== '') chunks.push(bareChunk(bare));
    bare = '';
  };
  for (let index = 0; index < query.length; ) {
    const character = String.fromCodePoint(query.codePointAt(index)!);
    index += character.length;
    if (character === '"') {
      const negated = /^-+$/.test(bare);
      if (!negated) endBare();
      bare = '';
      const close = query.indexOf('"', index);
      const text = close < 0 ? query.slice(index) : query.slice(index, close);
      index = close < 0 ? query.length : close + 1;
      chunks.push({ kind: 'term', words: words(text), prefix: false, negated, quoted: true });
    } else if (WHITE_SPACE.test(character)) {
      endBare();
    } else {
      bare += character;
    }
  }
  endBare();
  return chunks;
}

const words = (text: string): string[] => tokenize(text).map((token) => token.term);

function bareChunk(text: string): Chunk {
  if (text === 'OR') return { kind: 'or' };
  const negated = text.startsWith('-');
  const body = negated ? text.slice(1) : text;
  const starred = body.endsWith('*') ? body.slice(0, -1) : undefined;
  const tokens = tokenize(starred ?? body);
  const last = tokens.at(-1);
  // The `*` must touch the last word, and that word must be long enough to be a prefix.
  const prefix =
    starred !== undefined &&
    last !== undefined &&
    last.end === [...starred].length &&
    [...last.term].length >= SEARCH_LIMITS.prefixMinCodePoints;
  return { kind: 'term', words: tokens.map((token) => token.term), prefix, negated, quoted: false };
}

type TermChunk = Extract<Chunk, { kind: 'term' }>;

const isPositive = (chunk: Chunk | undefined): chunk is TermChunk => chunk?.kind === 'term' && !chunk.negated;

function group(chunks: readonly Chunk[]): SearchQuery {
  const include: QueryTerm[][] = [];
  const exclude: QueryTerm[] = [];
  // An `OR` joins only when both neighbours are terms that are not excluded.
  const joins = chunks.map(
    (chunk, index) => chunk.kind === 'or' && isPositive(chunks[index - 1]) && isPositive(chunks[index + 1]),
  );
  chunks.forEach((chunk, index) => {
    if (chunk.kind === 'or') return;
    const term: QueryTerm = { words: chunk.words, prefix: chunk.prefix };
    if (chunk.negated) {
      exclude.push(term);
    } else if (joins[index - 1]) {
      include.at(-1)!.push(term);
    } else if (joins[index + 1] || chunk.quoted) {
      include.push([term]);
    } else {
      // A bare chunk's words are separate words that must all occur; the prefix stays on the last.
      chunk.words.forEach((word, position) => {
        const prefix = chunk.prefix && position === chunk.words.length - 1;
        include.push([{ words: [word], prefix }]);
      });
    }
  });
  return { include, exclude };
}
