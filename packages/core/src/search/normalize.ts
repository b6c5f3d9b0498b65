import { caseFold } from 'unicode-case-folding';

/**
 * The search normalisation of extensions §3: NFKD, combining marks (General_Category M: Mn, Mc, Me)
 * removed, full case folding (Unicode CaseFolding.txt, statuses C and F: `ß` → `ss`, `ς` → `σ`,
 * Cherokee to upper case; no Turkic T mappings). JavaScript's `toLowerCase` is not case folding (it
 * keeps `ß`, makes `Σ` final or not by context), hence the table of `unicode-case-folding`.
 *
 * Every step works code point by code point once marks are gone (NFKD only reorders marks, folding is
 * context-free), so the text is normalised one original code point at a time: the tokenizer can then
 * say which original code points each word came from. Folding a decomposed, mark-free character never
 * yields a decomposable character or a mark, so the result is stable: normalising a normalised text
 * changes nothing (a test checks every code point).
 */
const MARKS = /\p{M}/gu;
const WORD_CHARACTER = /^[\p{L}\p{N}]$/u;

/** Separators stand as a space in a normalised form: a space is never a word character itself. */
export const SEPARATOR = ' ';

function normalizeUncached(character: string): string {
  const folded = caseFold(character.normalize('NFKD').replace(MARKS, ''));
  let out = '';
  for (const unit of folded) out += WORD_CHARACTER.test(unit) ? unit : SEPARATOR;
  return out;
}

const ASCII: readonly string[] = Array.from({ length: 128 }, (_, code) =>
  normalizeUncached(String.fromCharCode(code)),
);

/** Non-ASCII forms seen so far; cleared when large so that hostile text cannot grow it without end. */
const cache = new Map<number, string>();
const CACHE_MAX = 50_000;

/**
 * The normalised form of one code point (a lone surrogate counts as one): word characters as they are,
 * each separator as `SEPARATOR`, the empty string for what normalises away (marks, variation selectors).
 */
export function normalizeCodePoint(codePoint: number): string {
  if (codePoint < 128) return ASCII[codePoint]!;
  let form = cache.get(codePoint);
  if (form === undefined) {
    if (cache.size >= CACHE_MAX) cache.clear();
    form = normalizeUncached(String.fromCodePoint(codePoint));
    cache.set(codePoint, form);
  }
  return form;
}

/** The normalised text: every code point's form, separators as spaces. */
export function normalizeText(text: string): string {
  let out = '';
  for (let index = 0; index < text.length; ) {
    const codePoint = text.codePointAt(index)!;
    out += normalizeCodePoint(codePoint);
    index += codePoint > 0xffff ? 2 : 1;
  }
  return out;
}
