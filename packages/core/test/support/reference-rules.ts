import type { ErrorCode } from '@mdstore/core';

/**
 * The validation rules of the product decisions, restated independently of the core so that tests
 * compare the core against the spec rather than against itself.
 */

/** Unicode's White_Space property (PropList.txt), written out so no regex class is trusted. */
export const WHITE_SPACE: readonly string[] = [
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005,
  0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
].map((codePoint) => String.fromCodePoint(codePoint));

/** U+0000-U+001F and U+007F: the two ranges the spec forbids in names and filenames. */
export const CONTROL: readonly string[] = [...Array.from({ length: 0x20 }, (_, i) => i), 0x7f].map((c) =>
  String.fromCodePoint(c),
);

const hasLoneSurrogate = (text: string) =>
  [...text].some((char) => {
    const unit = char.charCodeAt(0);
    return char.length === 1 && unit >= 0xd800 && unit <= 0xdfff;
  });
const hasControl = (text: string) => [...text].some((char) => CONTROL.includes(char));
const isBlank = (text: string) => [...text].every((char) => WHITE_SPACE.includes(char));

/** A project name: 1-255 code points, not only white space, no control characters, valid Unicode. */
export function isValidProjectName(name: unknown): boolean {
  if (typeof name !== 'string') return false;
  const length = [...name].length;
  return length >= 1 && length <= 255 && !hasControl(name) && !isBlank(name) && !hasLoneSurrogate(name);
}

export const utf8Length = (text: string): number => new TextEncoder().encode(text).byteLength;

/**
 * The upload filename rules with folders (extensions §1): 400 for bad bytes or characters, a bad
 * segment or a folder named like a file, or an empty stem; 415 for the extension of the last segment.
 */
export function filenameOutcome(filename: string): ErrorCode | 'OK' {
  const bytes = utf8Length(filename);
  if (hasLoneSurrogate(filename)) return 'MALFORMED_INPUT';
  if (bytes < 1 || bytes > 1024 || /\\/.test(filename) || hasControl(filename)) return 'MALFORMED_INPUT';
  const segments = filename.split('/');
  for (const segment of segments) {
    if (['', '.', '..'].includes(segment) || utf8Length(segment) > 255) return 'MALFORMED_INPUT';
  }
  const folders = segments.slice(0, -1);
  if (folders.some((folder) => ['.md', '.mdx'].some((ext) => folder.toLowerCase().endsWith(ext))))
    return 'MALFORMED_INPUT';
  const name = segments.at(-1)!;
  const dot = name.lastIndexOf('.');
  if (dot < 0 || !['.md', '.mdx'].includes(name.slice(dot).toLowerCase())) return 'UNSUPPORTED_EXTENSION';
  return dot === 0 ? 'MALFORMED_INPUT' : 'OK';
}

/** Code-point order (UTF-8 byte order), written without relying on the core's comparator. */
export function byCodePoint(a: string, b: string): number {
  const left = [...a].map((char) => char.codePointAt(0)!);
  const right = [...b].map((char) => char.codePointAt(0)!);
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    if (left[i] !== right[i]) return left[i]! - right[i]!;
  }
  return left.length - right.length;
}
