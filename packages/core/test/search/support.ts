import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/** The README.md files under node_modules: a real, multilingual-enough Markdown corpus. */
export function readmeCorpus(): { file: string; text: string }[] {
  const found: { file: string; text: string }[] = [];
  const walk = (folder: string, depth: number) => {
    if (depth > 6) return;
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full, depth + 1);
      else if (entry.isFile() && entry.name.toLowerCase() === 'readme.md') {
        found.push({ file: path.relative(repoRoot, full), text: readFileSync(full, 'utf8') });
      }
    }
  };
  walk(path.join(repoRoot, 'node_modules'), 0);
  return found;
}

/** The code points of a text between two code-point offsets. */
export const sliceCodePoints = (text: string, start: number, end: number): string =>
  Array.from(text).slice(start, end).join('');

export const codePointLength = (text: string): number => Array.from(text).length;

const SPECIAL = [
  'a',
  'b',
  'Z',
  'ß',
  'é',
  'e\u0301',
  '"',
  '-',
  '*',
  ' ',
  '\t',
  'OR',
  'or',
  ':',
  '(',
  ')',
  '𐐀',
  '½',
  '\ud800',
  '\udc00',
  '東',
  '😀',
];

/**
 * Any text, lone surrogates included: code points from the whole range mixed with characters the
 * search code treats specially (fast-check's `binary` unit is slow to generate).
 */
export const anyText = (maxLength = 40) =>
  fc
    .array(
      fc.oneof(
        fc.constantFrom(...SPECIAL),
        fc.integer({ min: 0, max: 0x10ffff }).map((codePoint) => String.fromCodePoint(codePoint)),
        fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
      ),
      { maxLength },
    )
    .map((parts) => parts.join(''));
