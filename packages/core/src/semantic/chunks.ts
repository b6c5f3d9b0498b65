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
const encoder = new TextEncoder();

export const chunkHash = (text: string): string => bytesToHex(sha256(encoder.encode(text)));

/**
 * Splits a Markdown text into chunks: one per heading section (ATX headings `#`…`######` outside fenced
 * code; the text before the first heading is a section without heading), a leading front matter block
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
  for (const line of text.split('\n')) {
    const opener = FENCE.exec(line)?.[1];
    if (fence !== null) {
      if (opener !== undefined && opener[0] === fence[0] && opener.length >= fence.length) fence = null;
    } else if (opener !== undefined) {
      fence = opener;
    } else {
      const heading = ATX.exec(line);
      if (heading) {
        sections.push(current);
        current = { heading: (heading[2] ?? '').trim(), lines: [] };
      }
    }
    current.lines.push(line);
  }
  sections.push(current);
  return sections.filter((section) => section.lines.some((line) => line.trim() !== ''));
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
