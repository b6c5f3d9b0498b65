/** Characters U+0000-U+001F and U+007F: never allowed in names or filenames. */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;
/** Unicode's White_Space property (JS `\s` differs: it lacks U+0085 and wrongly includes U+FEFF). */
const ONLY_WHITE_SPACE = /^\p{White_Space}+$/u;

export const countCodePoints = (text: string): number => {
  let count = 0;
  for (const _ of text) count++;
  return count;
};

/** U+0000, which Postgres cannot hold in text: refused wherever free text reaches a store. */
export const hasNulCharacter = (text: string): boolean => text.includes('\u0000');
export const hasControlCharacter = (text: string): boolean => CONTROL_CHARACTER.test(text);
export const isWhiteSpaceOnly = (text: string): boolean => ONLY_WHITE_SPACE.test(text);
/** A string with a lone surrogate has no UTF-8 form and cannot be stored as text. */
export const isWellFormedUnicode = (text: string): boolean => text.isWellFormed();

const encoder = new TextEncoder();
export const utf8ByteLength = (text: string): number => encoder.encode(text).byteLength;

/**
 * Compares strings by Unicode code point (the order of their UTF-8 bytes, which SQL stores sort by).
 * JavaScript's `<` compares UTF-16 code units, which puts astral characters (surrogates, 0xD800-0xDFFF)
 * before U+E000-U+FFFF; shifting the surrogate range above the rest of the BMP restores code point order.
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index += 1) {
    const unitA = a.charCodeAt(index);
    const unitB = b.charCodeAt(index);
    if (unitA !== unitB) return codePointRank(unitA) - codePointRank(unitB);
  }
  return a.length - b.length;
}

const codePointRank = (unit: number): number => {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
};
