import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex } from '@noble/hashes/utils';
import { SEMANTIC_LIMITS } from './limits.js';

/** One piece of a file that is embedded on its own (extensions §15). */
export interface Chunk {
  /** Its place in the file, from 0. */
  readonly ordinal: number;
  /** The text of the heading whose section it is; null for the text before the first heading. */
  readonly heading: string | null;
  /** What is embedded: the section's lines (its heading line included), at most `chunkMaxCodePoints`. */
  readonly text: string;
  /** SHA-256 (hex) of `text` as UTF-8: an unchanged hash is never embedded again. */
  readonly hash: string;
}

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** A setext underline: `===` (level 1) or `---` (level 2), under a paragraph. */
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
/**
 * A line that is not plain paragraph text: blank, indented, a block quote, a list item, an HTML block, a
 * table row (and a thematic break, below). Kept conservative: such a line ends the paragraph an underline may make a heading, so text
 * near it stays in the section it is in rather than starting a heading it may not be.
 */
const NOT_PARAGRAPH = /^(?:[ \t]*$| {4}|\t| {0,3}(?:>|[-+*][ \t]|\d{1,9}[.)][ \t]|<|\|))/;
/** A thematic break (`---`, `***`, `___`, spaced or not) outside a paragraph: no paragraph text either. */
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const encoder = new TextEncoder();

export const chunkHash = (text: string): string => bytesToHex(sha256(encoder.encode(text)));

/**
 * Splits a Markdown text into chunks: one per heading section (ATX headings `#`…`######` and setext
 * headings, a paragraph underlined with `===` or `---`, outside fenced code; the text before the first
 * heading is a section without heading), a leading front matter block
 * left out (it is searched by the full-text index and filtered on, not embedded). A section longer than
 * `chunkMaxCodePoints` is cut between paragraphs (blank lines), a paragraph longer than that at the last
 * white space before the bound (or at the bound). Sections with nothing but white space are dropped;
 * at most `chunkMaxPerFile` chunks (the first).
 */
export function chunkMarkdown(
  text: string,
  limits: { maxCodePoints?: number; maxChunks?: number } = {},
): Chunk[] {
  const maxCodePoints = limits.maxCodePoints ?? SEMANTIC_LIMITS.chunkMaxCodePoints;
  const maxChunks = limits.maxChunks ?? SEMANTIC_LIMITS.chunkMaxPerFile;
  const sections = splitSections(withoutFrontmatter(text));
  const chunks: Chunk[] = [];
  for (const section of sections) {
    for (const piece of bounded(section.lines.join('\n'), maxCodePoints)) {
      if (chunks.length >= maxChunks) return chunks;
      chunks.push({ ordinal: chunks.length, heading: section.heading, text: piece, hash: chunkHash(piece) });
    }
  }
  return chunks;
}

interface Section {
  readonly heading: string | null;
  readonly lines: string[];
}

function withoutFrontmatter(text: string): string {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const lines = body.split(/\r\n|\r|\n/);
  if (lines[0]?.trimEnd() !== '---') return lines.join('\n');
  for (let i = 1; i < lines.length; i += 1) {
    const line = lines[i]!.trimEnd();
    if (line === '---' || line === '...') return lines.slice(i + 1).join('\n');
  }
  return lines.join('\n');
}

function splitSections(text: string): Section[] {
  const sections: Section[] = [];
  let current: Section = { heading: null, lines: [] };
  let fence: string | null = null;
  // How many of the current section's last lines are a paragraph a setext underline may make a heading.
  let paragraph = 0;
  const startSection = (heading: string, lines: string[]) => {
    sections.push(current);
    current = { heading, lines };
  };
  for (const line of text.split('\n')) {
    const opener = FENCE.exec(line)?.[1];
    if (fence !== null) {
      if (opener !== undefined && opener[0] === fence[0] && opener.length >= fence.length) fence = null;
      paragraph = 0;
    } else if (opener !== undefined) {
      fence = opener;
      paragraph = 0;
    } else if (paragraph > 0 && SETEXT.test(line)) {
      const lines = current.lines.splice(current.lines.length - paragraph, paragraph);
      startSection(lines.map((part) => part.trim()).join(' '), lines);
      paragraph = 0;
      current.lines.push(line);
      continue;
    } else {
      const heading = ATX.exec(line);
      if (heading) {
        startSection((heading[2] ?? '').trim(), []);
        paragraph = 0;
      } else if (NOT_PARAGRAPH.test(line) || THEMATIC_BREAK.test(line)) {
        paragraph = 0;
      } else {
        paragraph += 1;
      }
    }
    current.lines.push(line);
  }
  sections.push(current);
  return sections.filter((section) => section.lines.some((part) => part.trim() !== ''));
}

/** The section's text cut into pieces of at most `max` code points, trimmed, none empty. */
function bounded(text: string, max: number): string[] {
  const trimmed = text.trim();
  if ([...trimmed].length <= max) return [trimmed];
  const pieces: string[] = [];
  let current = '';
  const flush = () => {
    if (current.trim() !== '') pieces.push(current.trim());
    current = '';
  };
  for (const paragraph of trimmed.split(/\n[ \t]*\n/)) {
    const joined = current === '' ? paragraph : `${current}\n\n${paragraph}`;
    if ([...joined].length <= max) {
      current = joined;
      continue;
    }
    flush();
    let rest = [...paragraph];
    while (rest.length > max) {
      let cut = max;
      for (let i = max; i > max / 2; i -= 1) {
        if (/\s/.test(rest[i]!)) {
          cut = i;
          break;
        }
      }
      pieces.push(rest.slice(0, cut).join('').trim());
      rest = rest.slice(cut);
    }
    current = rest.join('');
  }
  flush();
  return pieces.filter((piece) => piece !== '');
}
