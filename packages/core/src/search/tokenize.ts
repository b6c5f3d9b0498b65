import { SEARCH_LIMITS } from './limits.js';
import { normalizeCodePoint, SEPARATOR } from './normalize.js';

/** A word of a text, normalised, with where it came from. */
export interface Token {
  /** The normalised word, at most `SEARCH_LIMITS.maxTokenCodePoints` code points. */
  readonly term: string;
  /** Word index in the text: 0, 1, 2… */
  readonly position: number;
  /** Code-point offsets of the word in the original text, end exclusive (the whole word, never cut). */
  readonly start: number;
  readonly end: number;
}

export interface TokenizeOptions {
  /** Stop after this many words. */
  readonly maxTokens?: number;
}

/**
 * The one tokenizer of indexing and querying: a word is a run of letters and digits (`\p{L}\p{N}`) of
 * the normalised text (see `normalize.ts`); everything else separates words (punctuation, spaces,
 * symbols, emoji, lone surrogates). A code point that normalises to nothing (a combining mark) joins
 * the word it follows, so a highlight of `café` written with a combining accent covers the accent.
 * One original code point may yield several words (`½` → `1`, `2`): they share its offsets.
 */
export function tokenize(text: string, options: TokenizeOptions = {}): Token[] {
  const tokens: Token[] = [];
  scanWords(text, options.maxTokens ?? Number.POSITIVE_INFINITY, true, (term, start, end) => {
    tokens.push({ term, position: tokens.length, start, end });
  });
  return tokens;
}

/**
 * How many words `tokenize` would find in `text`, up to `max`, and the code-point offset where word
 * number `endOf` (1-based; by default the last one counted) ends, 0 for none: the same scan, without
 * making the words (no strings, no objects), for callers that only need to know where the words stop.
 */
export function countWords(text: string, max: number, endOf = max): { count: number; end: number } {
  let end = 0;
  let seen = 0;
  const count = scanWords(text, max, false, (_term, _start, wordEnd) => {
    seen += 1;
    if (seen <= endOf) end = wordEnd;
  });
  return { count, end };
}

/** The one scan of both: calls `emit` for each word (with its term when `terms`), answers the count. */
function scanWords(
  text: string,
  maxTokens: number,
  terms: boolean,
  emit: (term: string, start: number, end: number) => void,
): number {
  const max = SEARCH_LIMITS.maxTokenCodePoints;
  let count = 0;
  // The word being read. While it is `plain` (ASCII word characters only, from code unit `from`), its
  // term is sliced from the text when it ends instead of being built character by character.
  let start = -1;
  let end = 0;
  let plain = false;
  let from = 0;
  let term = '';
  let termCodePoints = 0;
  const flush = (until: number) => {
    if (start < 0) return;
    const word = !terms ? '' : plain ? text.slice(from, Math.min(until, from + max)).toLowerCase() : term;
    emit(word, start, end);
    count += 1;
    start = -1;
  };
  const append = (character: string) => {
    if (terms && termCodePoints < max) {
      term += character;
      termCodePoints += 1;
    }
  };
  let offset = 0;
  for (let index = 0; index < text.length && count < maxTokens; offset += 1) {
    const unit = text.charCodeAt(index);
    if (unit < 128) {
      if (ASCII_WORD[unit]) {
        if (start < 0) {
          start = offset;
          plain = true;
          from = index;
        } else if (!plain) {
          append(ASCII_FORM[unit]!);
        }
        end = offset + 1;
      } else {
        flush(index);
      }
      index += 1;
      continue;
    }
    if (start >= 0 && plain) {
      // Leaving the fast path: the term so far, then character by character.
      term = terms ? text.slice(from, Math.min(index, from + max)).toLowerCase() : '';
      termCodePoints = term.length;
      plain = false;
    }
    const codePoint = text.codePointAt(index)!;
    index += codePoint > 0xffff ? 2 : 1;
    const form = normalizeCodePoint(codePoint);
    if (form === '' && start >= 0) end = offset + 1;
    for (const character of form) {
      if (character === SEPARATOR) {
        flush(index);
        if (count >= maxTokens) break;
        continue;
      }
      if (start < 0) {
        start = offset;
        plain = false;
        term = '';
        termCodePoints = 0;
      }
      end = offset + 1;
      append(character);
    }
  }
  if (count < maxTokens) flush(text.length);
  return count;
}

/** The ASCII characters: their normalised form, and whether they are word characters (letters, digits). */
const ASCII_FORM: readonly string[] = Array.from({ length: 128 }, (_, code) => normalizeCodePoint(code));
const ASCII_WORD: readonly boolean[] = ASCII_FORM.map((form) => form !== SEPARATOR);

/** Each byte as two letters `a`-`p`, high nibble first (hexadecimal with the digits 0-f spelled a-p). */
const LETTERS = Array.from(
  { length: 256 },
  (_, byte) => String.fromCharCode(97 + (byte >> 4)) + String.fromCharCode(97 + (byte & 15)),
);
const encoder = new TextEncoder();

/**
 * How SQL full-text engines store and look up a normalised word: its UTF-8 bytes, each written as two
 * letters `a`-`p` (`ab` → `gbgc`, `é` → `mdkj`). Only lower-case ASCII letters reach the engine, so it
 * cannot split, fold or misread the word: unlike hexadecimal, which Postgres's text parser cuts apart
 * (`6e2d` reads as the number `6e2` and the word `d`), a run of letters is always one word for it and
 * for SQLite's tokenizers. A prefix of a word encodes to a prefix of its encoding (so `word*` becomes
 * the engine's prefix query), distinct words encode differently, and the longest word (64 code points)
 * takes at most 512 letters. Adapters still must not stem (Postgres: the `simple` configuration, or
 * build `tsvector`s from these lexemes directly; FTS5: no `porter`). A filler that no query term can
 * equal, for the gaps between `meta` values, is any word with a letter after `p` (e.g. `x`).
 */
export function ftsTerm(term: string): string {
  // Most words are ASCII: their code units are their UTF-8 bytes, with no encoder call.
  let out = '';
  for (let index = 0; index < term.length; index += 1) {
    const unit = term.charCodeAt(index);
    if (unit >= 128) return ftsTermOfUtf8(term);
    out += LETTERS[unit];
  }
  return out;
}

const decoder = new TextDecoder();

/** The word an `ftsTerm` encoding stands for (its inverse): two letters `a`-`p` per UTF-8 byte. */
export function wordOfFtsTerm(encoded: string): string {
  const bytes = new Uint8Array(encoded.length >> 1);
  for (let index = 0; index < bytes.length; index += 1) {
    bytes[index] = ((encoded.charCodeAt(2 * index) - 97) << 4) | (encoded.charCodeAt(2 * index + 1) - 97);
  }
  return decoder.decode(bytes);
}

function ftsTermOfUtf8(term: string): string {
  let out = '';
  for (const byte of encoder.encode(term)) out += LETTERS[byte];
  return out;
}
