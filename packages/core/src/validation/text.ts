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

/** Code units per piece of `utf8Pieces`: a piece is at most three times this in bytes. */
const PIECE_UNITS = 64 * 1024;

/** Where the piece of `text` starting at `start` ends: never between the two halves of a surrogate pair. */
function pieceEnd(text: string, start: number): number {
  const end = Math.min(text.length, start + PIECE_UNITS);
  const last = text.charCodeAt(end - 1);
  return end < text.length && last >= 0xd800 && last <= 0xdbff ? end - 1 : end;
}

/**
 * The UTF-8 of `text` piece by piece (what `TextEncoder.encode(text)` gives, lone surrogates as
 * U+FFFD), so that a large text is never held encoded whole beside itself.
 */
export function* utf8Pieces(text: string): Generator<Uint8Array> {
  for (let start = 0; start < text.length; ) {
    const end = pieceEnd(text, start);
    yield encoder.encode(text.slice(start, end));
    start = end;
  }
}

let scratch = new Uint8Array(0);

/** The UTF-8 length of `text` (as `TextEncoder` writes it), without holding its encoding. */
export function utf8Size(text: string): number {
  if (scratch.length < 3 * PIECE_UNITS) scratch = new Uint8Array(3 * PIECE_UNITS);
  let size = 0;
  for (let start = 0; start < text.length; ) {
    const end = pieceEnd(text, start);
    size += encoder.encodeInto(text.slice(start, end), scratch).written;
    start = end;
  }
  return size;
}

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
