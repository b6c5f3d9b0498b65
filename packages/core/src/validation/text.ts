/** Characters U+0000-U+001F and U+007F: never allowed in names or filenames. */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;
/** Any Unicode white space (the `\s` class covers Unicode's White_Space property in JS). */
const ONLY_WHITE_SPACE = /^\s+$/u;

export const countCodePoints = (text: string): number => {
  let count = 0;
  for (const _ of text) count++;
  return count;
};

export const hasControlCharacter = (text: string): boolean => CONTROL_CHARACTER.test(text);
export const isWhiteSpaceOnly = (text: string): boolean => ONLY_WHITE_SPACE.test(text);
/** A string with a lone surrogate has no UTF-8 form and cannot be stored as text. */
export const isWellFormedUnicode = (text: string): boolean => text.isWellFormed();

const encoder = new TextEncoder();
export const utf8ByteLength = (text: string): number => encoder.encode(text).byteLength;

/** Compares by Unicode code point (UTF-8 byte order), unlike `<` which compares UTF-16 code units. */
export function compareCodePoints(a: string, b: string): number {
  const left = a[Symbol.iterator]();
  const right = b[Symbol.iterator]();
  for (;;) {
    const x = left.next();
    const y = right.next();
    if (x.done || y.done) return x.done === y.done ? 0 : x.done ? -1 : 1;
    const difference = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (difference !== 0) return difference;
  }
}
