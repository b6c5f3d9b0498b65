import markdownIt from 'markdown-it';
import { collapseWhiteSpace } from '../markdown/text.js';
import { findWikiLinks } from '../markdown/wiki-links.js';
import { inlineMapper, readsAs, referenceLabel, wikiTargetRange } from './extract-commonmark.js';
import type { RawIndexLink, RawLinkDocument } from './raw.js';

/**
 * A purpose-built scanner for what the link index needs of a CommonMark text (issue 36): its links and
 * its heading texts, exactly as `extractCommonMarkLinks` (markdown-it) finds them, in one linear pass
 * over the lines and one over each paragraph, without markdown-it's token streams.
 *
 * It reads a subset of CommonMark exactly and gives up (`null`) on anything outside it, so that the
 * caller falls back to the parser: the answer is always the parser's. The subset is what most notes
 * are made of: ATX headings, paragraphs, fenced code, single-line link reference definitions, and
 * lists whose items are one paragraph starting on the marker's line (continued lazily at column 0);
 * inline: text, emphasis, code spans, links, images and wiki links. It gives up on: a CR or NUL
 * anywhere; an indented line outside fenced code (nested lists, indented code, continuation
 * paragraphs); block quotes, HTML, thematic breaks, setext underlines; a `\`, a `<` or an entity-like
 * `&` in a paragraph or heading; a link destination with spaces, a title, parentheses or `<>`; emphasis
 * characters in a heading (its text depends on emphasis matching) or in a text run holding `[[`
 * (emphasis splits the runs wiki links are found in); an image in a heading; a definition it cannot
 * read whole on its line. The equivalence with the parser is a property test
 * (test/links/scan.property.test.ts: generated Markdown and every CommonMark spec example).
 */

const { normalizeReference } = markdownIt().utils;

/** The scanner met something outside its subset: the caller parses instead. */
class OutsideSubset extends Error {}
const outside = (): never => {
  throw new OutsideSubset();
};

const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const BACKTICK = 0x60;
const TILDE = 0x7e;
const OPEN = 0x5b; // [
const CLOSE = 0x5d; // ]
const BANG = 0x21;
const PAREN_OPEN = 0x28;
const PAREN_CLOSE = 0x29;
const STAR = 0x2a;
const UNDERSCORE = 0x5f;
const HASH = 0x23;

const isSpace = (code: number) => code === SPACE || code === TAB;
const isAsciiAlnum = (code: number) =>
  (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);

/** A paragraph or heading: where its lines are, and its inline content as markdown-it builds it. */
interface Inline {
  /** Index of its first source line. */
  readonly first: number;
  readonly content: string;
  readonly heading: boolean;
}

interface Definition {
  readonly href: string;
  /** Where the destination is written in the source. */
  readonly range: readonly [number, number];
}

type LineKind =
  | { kind: 'blank' }
  | { kind: 'text' }
  | { kind: 'heading' }
  | { kind: 'fence'; marker: number; length: number }
  | { kind: 'item'; ordered: boolean; one: boolean; content: number };

const BLANK = { kind: 'blank' } as const;
const TEXT = { kind: 'text' } as const;
const HEADING = { kind: 'heading' } as const;

/** What a line (`from`..`to`, no line ending) opens, read as markdown-it's block rules would at column 0. */
function classify(src: string, from: number, to: number): LineKind {
  if (from >= to) return BLANK;
  const c = src.charCodeAt(from);
  if (isSpace(c)) {
    for (let at = from + 1; at < to; at++) if (!isSpace(src.charCodeAt(at))) outside();
    return BLANK;
  }
  if (c === HASH) {
    let at = from;
    while (at < to && src.charCodeAt(at) === HASH) at++;
    return at - from <= 6 && (at === to || isSpace(src.charCodeAt(at))) ? HEADING : TEXT;
  }
  if (c === BACKTICK || c === TILDE) {
    let at = from;
    while (at < to && src.charCodeAt(at) === c) at++;
    if (at - from < 3) return TEXT;
    if (c === BACKTICK && src.slice(at, to).includes('`')) return TEXT;
    return { kind: 'fence', marker: c, length: at - from };
  }
  if (c === 0x3e /* > */ || c === 0x3c /* < */) outside();
  if (c === 0x2d /* - */ || c === STAR || c === UNDERSCORE || c === 0x2b /* + */ || c === 0x3d /* = */) {
    // Thematic breaks and setext underlines are outside the subset.
    if (c !== 0x2b && c !== 0x3d) {
      let count = 0;
      let other = false;
      for (let at = from; at < to; at++) {
        const d = src.charCodeAt(at);
        if (d === c) count++;
        else if (!isSpace(d)) {
          other = true;
          break;
        }
      }
      if (!other && count >= 3) outside();
    }
    if (c === 0x3d || c === 0x2d) {
      let at = from;
      while (at < to && src.charCodeAt(at) === c) at++;
      while (at < to && isSpace(src.charCodeAt(at))) at++;
      if (at === to) outside();
    }
    if (c === 0x2d || c === STAR || c === 0x2b) {
      const next = from + 1 < to ? src.charCodeAt(from + 1) : LF;
      if (next === SPACE) return item(src, from + 2, to, false, false);
      if (next === TAB || next === LF) outside();
    }
    return TEXT;
  }
  if (c >= 0x30 && c <= 0x39) {
    let at = from;
    while (at < to && at - from < 10 && src.charCodeAt(at) >= 0x30 && src.charCodeAt(at) <= 0x39) at++;
    const digits = at - from;
    const d = at < to ? src.charCodeAt(at) : LF;
    if (digits > 9 || (d !== 0x2e && d !== PAREN_CLOSE)) return TEXT;
    const next = at + 1 < to ? src.charCodeAt(at + 1) : LF;
    if (next === SPACE) return item(src, at + 2, to, true, Number(src.slice(from, at)) === 1);
    if (next === TAB || next === LF) outside();
    return TEXT;
  }
  return TEXT;
}

/** A list item whose content starts at `content`: one space after the marker, then a paragraph. */
function item(src: string, content: number, to: number, ordered: boolean, one: boolean): LineKind {
  if (content >= to || isSpace(src.charCodeAt(content))) outside();
  // Its content must be a paragraph line, and not a definition (which a list item would hold).
  if (classify(src, content, to).kind !== 'text') outside();
  if (src.charCodeAt(content) === OPEN && definitionAt(src, content, to, null) !== null) outside();
  return { kind: 'item', ordered, one, content };
}

/**
 * A link reference definition read whole from one line (`[label]: destination`), or null when the line
 * is none; outside the subset (a title, a label or destination on another line, escapes, `<>`) throws.
 */
function definitionAt(
  src: string,
  from: number,
  to: number,
  nextLine: { from: number; to: number } | null,
): { label: string; definition: Definition } | null {
  let at = from + 1;
  for (; at < to; at++) {
    const c = src.charCodeAt(at);
    if (c === OPEN) return null;
    if (c === 0x5c) outside();
    if (c === CLOSE) break;
  }
  if (at >= to) outside(); // the label may go on: the parser's business
  if (src.charCodeAt(at + 1) !== 0x3a /* : */) return null;
  const label = normalizeReference(src.slice(from + 1, at));
  if (label === '' || at - from > 1000) outside();
  let dest = at + 2;
  while (dest < to && isSpace(src.charCodeAt(dest))) dest++;
  if (dest >= to) outside();
  let end = dest;
  for (; end < to; end++) {
    const c = src.charCodeAt(end);
    if (c <= SPACE || c === 0x7f) break;
    if (c === 0x3c || c === 0x5c || c === 0x26 || c === PAREN_OPEN || c === PAREN_CLOSE) outside();
  }
  for (let rest = end; rest < to; rest++) if (!isSpace(src.charCodeAt(rest))) outside();
  if (nextLine && nextLine.from < nextLine.to) {
    const c = src.charCodeAt(nextLine.from);
    if (c === 0x22 || c === 0x27 || c === PAREN_OPEN) outside(); // a title on the next line
  }
  return { label, definition: { href: src.slice(dest, end), range: [dest, end] } };
}

/** The last character of an inline's line that markdown-it trims (`asciiTrim`: space, tab, LF, CR). */
const isAsciiTrimmable = (c: number) => c === SPACE || c === TAB || c === LF || c === 0x0d;

function asciiTrim(text: string): string {
  let start = 0;
  while (start < text.length && isAsciiTrimmable(text.charCodeAt(start))) start++;
  let end = text.length;
  while (end > start && isAsciiTrimmable(text.charCodeAt(end - 1))) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/** An ATX heading's inline content (markdown-it's `heading` rule). */
function headingContent(src: string, from: number, to: number): string {
  let pos = from;
  while (pos < to && src.charCodeAt(pos) === HASH) pos++;
  let max = to;
  while (max > pos && isSpace(src.charCodeAt(max - 1))) max--;
  let tmp = max;
  while (tmp > pos && src.charCodeAt(tmp - 1) === HASH) tmp--;
  if (tmp > pos && isSpace(src.charCodeAt(tmp - 1))) max = tmp;
  return asciiTrim(src.slice(pos, max));
}

/** The block pass: inline contents (paragraphs, list items, headings) and definitions, in order. */
function blocks(src: string): { inlines: Inline[]; definitions: Map<string, Definition>; starts: number[] } {
  const starts: number[] = [0];
  for (let at = src.indexOf('\n'); at !== -1; at = src.indexOf('\n', at + 1)) starts.push(at + 1);
  const lineCount = starts.length;
  const lineEnd = (line: number) => (line + 1 < lineCount ? starts[line + 1]! - 1 : src.length);
  const inlines: Inline[] = [];
  const definitions = new Map<string, Definition>();
  // The open paragraph: its first line, where its content starts there, and its last line.
  let open: { first: number; from: number; last: number; inItem: boolean } | null = null;
  const close = () => {
    if (!open) return;
    let content = src.slice(open.from, lineEnd(open.last));
    content = asciiTrim(content);
    inlines.push({ first: open.first, content, heading: false });
    open = null;
  };
  let fence: { marker: number; length: number } | null = null;
  for (let line = 0; line < lineCount; line++) {
    const from = starts[line]!;
    const to = lineEnd(line);
    if (fence) {
      let at = from;
      while (at < to && src.charCodeAt(at) === SPACE) at++;
      if (at < to && src.charCodeAt(at) === TAB) {
        // Tab columns decide whether this closes the fence: outside the subset if it might.
        let rest = at;
        while (rest < to && isSpace(src.charCodeAt(rest))) rest++;
        if (rest < to && src.charCodeAt(rest) === fence.marker) outside();
        continue;
      }
      if (at - from > 3) continue;
      let run = at;
      while (run < to && src.charCodeAt(run) === fence.marker) run++;
      if (run - at < fence.length) continue;
      while (run < to && isSpace(src.charCodeAt(run))) run++;
      if (run === to) fence = null;
      continue;
    }
    const kind = classify(src, from, to);
    switch (kind.kind) {
      case 'blank':
        close();
        break;
      case 'heading':
        close();
        inlines.push({ first: line, content: headingContent(src, from, to), heading: true });
        break;
      case 'fence':
        close();
        fence = { marker: kind.marker, length: kind.length };
        break;
      case 'item':
        // A bullet, or an ordered item numbered 1, interrupts a paragraph; inside a list any item
        // ends the one before. Else (`2.` after a paragraph) the line continues the paragraph.
        if (open && !open.inItem && kind.ordered && !kind.one) {
          open.last = line;
          break;
        }
        close();
        open = { first: line, from: kind.content, last: line, inItem: true };
        break;
      case 'text': {
        if (open) {
          open.last = line;
          break;
        }
        if (src.charCodeAt(from) === OPEN) {
          const next = line + 1 < lineCount ? { from: starts[line + 1]!, to: lineEnd(line + 1) } : null;
          const found = definitionAt(src, from, to, next);
          if (found) {
            if (!definitions.has(found.label)) definitions.set(found.label, found.definition);
            break;
          }
        }
        open = { first: line, from, last: line, inItem: false };
        break;
      }
    }
  }
  close();
  return { inlines, definitions, starts };
}

/** What the inline pass gives: markdown-it's tokens that matter here. */
type Piece =
  | { type: 'text'; start: number; end: number }
  | { type: 'code'; content: string }
  | { type: 'link'; image: boolean; start: number; labelEnd: number; href: string };

/** The inline pass over one paragraph or heading (markdown-it's inline rules, within the subset). */
class InlineScan {
  readonly pieces: Piece[] = [];
  /** Where a `[` or `![` at an offset ends as a link or image (-1: it is none), as skipToken caches. */
  #links: Map<number, number> | undefined;
  #depth = 0;

  constructor(
    readonly src: string,
    readonly definitions: Map<string, Definition>,
  ) {}

  /** Where the code span opened by the backtick run at `pos` ends, or -1 when it has no closer. */
  codeSpanEnd(pos: number, max: number): { end: number; open: number; close: number } | null {
    const src = this.src;
    let at = pos;
    while (at < max && src.charCodeAt(at) === BACKTICK) at++;
    const length = at - pos;
    let matchEnd = at;
    for (;;) {
      const matchStart = src.indexOf('`', matchEnd);
      if (matchStart === -1 || matchStart >= max) return null;
      matchEnd = matchStart + 1;
      while (matchEnd < max && src.charCodeAt(matchEnd) === BACKTICK) matchEnd++;
      if (matchEnd - matchStart === length) return { end: matchEnd, open: at, close: matchStart };
    }
  }

  /** markdown-it's `skipToken` at `pos`: where the token starting there ends. */
  skip(pos: number, max: number): number {
    const c = this.src.charCodeAt(pos);
    if (c === LF) {
      pos++;
      while (pos < max && isSpace(this.src.charCodeAt(pos))) pos++;
      return pos;
    }
    if (c === BACKTICK) {
      const span = this.codeSpanEnd(pos, max);
      if (span) return span.end;
      while (pos < max && this.src.charCodeAt(pos) === BACKTICK) pos++;
      return pos;
    }
    if (c === OPEN) {
      const end = this.link(pos, max, false);
      return end > 0 ? end : pos + 1;
    }
    if (c === BANG && this.src.charCodeAt(pos + 1) === OPEN) {
      const end = this.link(pos, max, true);
      return end > 0 ? end : pos + 1;
    }
    return pos + 1;
  }

  /** markdown-it's `parseLinkLabel`: the label's `]`, or -1. */
  label(start: number, max: number, disableNested: boolean): number {
    let level = 1;
    let pos = start + 1;
    while (pos < max) {
      const marker = this.src.charCodeAt(pos);
      if (marker === CLOSE) {
        level--;
        if (level === 0) return pos;
      }
      const prev = pos;
      pos = this.skip(pos, max);
      if (marker === OPEN) {
        if (prev === pos - 1) level++;
        else if (disableNested) return -1;
      }
    }
    return -1;
  }

  /**
   * A link (or image) starting at `pos` (its `[`, or the `!`): where it ends, or -1. With `push`, its
   * pieces are added.
   */
  link(pos: number, max: number, image: boolean, push = false): number {
    if (!push) {
      const known = this.#links?.get(pos);
      if (known !== undefined) return known;
    }
    if (++this.#depth > 8) outside();
    try {
      const found = this.#link(pos, max, image);
      if (!push) {
        this.#links ??= new Map();
        this.#links.set(pos, found ? found.end : -1);
      } else if (found) {
        this.pieces.push({ type: 'link', image, start: pos, labelEnd: found.labelEnd, href: found.href });
        if (!image) this.tokenize(found.labelStart, found.labelEnd, true);
      }
      return found ? found.end : -1;
    } finally {
      this.#depth--;
    }
  }

  #link(
    pos: number,
    max: number,
    image: boolean,
  ): { end: number; labelStart: number; labelEnd: number; href: string } | null {
    const src = this.src;
    const open = image ? pos + 1 : pos;
    const labelEnd = this.label(open, max, !image);
    if (labelEnd < 0) return null;
    let at = labelEnd + 1;
    if (at < max && src.charCodeAt(at) === PAREN_OPEN) {
      at++;
      // Only `(destination)` with a plain destination is in the subset.
      if (at >= max) return null;
      const dest = at;
      for (; at < max; at++) {
        const c = src.charCodeAt(at);
        if (c === PAREN_CLOSE) break;
        if (c <= SPACE || c === 0x7f || c === 0x5c || c === PAREN_OPEN || c === 0x3c || c === 0x26) outside();
      }
      if (at >= max || at === dest) outside();
      return { end: at + 1, labelStart: open + 1, labelEnd, href: src.slice(dest, at) };
    }
    if (this.definitions.size === 0) return null;
    let label: string | undefined;
    let end = labelEnd + 1;
    if (at < max && src.charCodeAt(at) === OPEN) {
      const second = this.label(at, max, false);
      if (second >= 0) {
        label = src.slice(at + 1, second);
        end = second + 1;
      }
    }
    if (!label) label = src.slice(open + 1, labelEnd);
    const definition = this.definitions.get(normalizeReference(label));
    if (!definition) return null;
    return { end, labelStart: open + 1, labelEnd, href: definition.href };
  }

  /** A text run `runStart`..`end` (trailing spaces before a line break dropped, as markdown-it does). */
  #flush(runStart: number, end: number, trimSpaces: boolean): void {
    if (end <= runStart) return;
    if (trimSpaces && this.src.charCodeAt(end - 1) === SPACE) {
      if (end - runStart >= 2 && this.src.charCodeAt(end - 2) === SPACE) {
        while (end > runStart && this.src.charCodeAt(end - 1) === SPACE) end--;
      } else end--;
    }
    if (end > runStart) this.pieces.push({ type: 'text', start: runStart, end });
  }

  /** markdown-it's inline tokenizer over `from`..`max`, reduced to the pieces (text runs joined). */
  tokenize(from: number, max: number, inLink: boolean): void {
    const src = this.src;
    let runStart = from;
    let pos = from;
    while (pos < max) {
      const c = src.charCodeAt(pos);
      if (c === LF) {
        this.#flush(runStart, pos, true);
        pos = this.skip(pos, max);
        runStart = pos;
      } else if (c === BACKTICK) {
        const span = this.codeSpanEnd(pos, max);
        if (span) {
          this.#flush(runStart, pos, false);
          let content = src.slice(span.open, span.close).replace(/\n/g, ' ');
          content = content.replace(/^ (.+) $/, '$1');
          this.pieces.push({ type: 'code', content });
          pos = span.end;
          runStart = pos;
        } else while (pos < max && src.charCodeAt(pos) === BACKTICK) pos++;
      } else if (c === OPEN || (c === BANG && src.charCodeAt(pos + 1) === OPEN)) {
        const image = c === BANG;
        const at = this.pieces.length;
        // A link's pieces follow the text before it: flush first, and take it back if there is none.
        this.#flush(runStart, pos, false);
        const end = this.link(pos, max, image, true);
        if (end > 0) {
          if (inLink && !image) outside(); // markdown-it never nests links; the subset neither
          pos = end;
          runStart = pos;
        } else {
          if (this.pieces.length > at) this.pieces.length = at;
          pos++;
        }
      } else pos++;
    }
    this.#flush(runStart, max, false);
  }
}

/** What takes a paragraph outside the subset: `\\`, `<`, or `&` that may open an entity. */
const OUTSIDE_INLINE = /[\\<]|&[#A-Za-z]/;

/** Characters of an inline content that take it outside the subset: escapes, HTML, autolinks, entities. */
function checkInline(content: string, heading: boolean): void {
  if (!heading) {
    if (OUTSIDE_INLINE.test(content)) outside();
    return;
  }
  for (let at = 0; at < content.length; at++) {
    const c = content.charCodeAt(at);
    if (c === 0x5c || c === 0x3c) outside();
    if (c === 0x26) {
      const next = content.charCodeAt(at + 1);
      if (next === HASH || (next >= 0x41 && next <= 0x5a) || (next >= 0x61 && next <= 0x7a)) outside();
    }
    if (heading) {
      if (c === STAR) outside();
      if (c === BANG && content.charCodeAt(at + 1) === OPEN) outside();
      if (c === UNDERSCORE) {
        // A run of `_` inside a word (ASCII letters or digits on both sides) is text; others may be emphasis.
        let end = at;
        while (end < content.length && content.charCodeAt(end) === UNDERSCORE) end++;
        if (at === 0 || end >= content.length) outside();
        if (!isAsciiAlnum(content.charCodeAt(at - 1)) || !isAsciiAlnum(content.charCodeAt(end))) outside();
        at = end - 1;
      }
    }
  }
}

const hasEmphasisCharacter = (text: string) => text.includes('*') || text.includes('_');

/**
 * The links and heading texts of a CommonMark text (BOM removed, front matter blanked), as
 * `extractCommonMarkLinks` gives them, or null when the text is outside the scanner's subset.
 */
export function scanCommonMarkLinks(text: string): RawLinkDocument | null {
  if (text.includes('\r') || text.includes('\0')) return null;
  try {
    return scan(text);
  } catch (error) {
    if (error instanceof OutsideSubset) return null;
    throw error;
  }
}

function scan(src: string): RawLinkDocument {
  const { inlines, definitions, starts } = blocks(src);
  const links: RawIndexLink[] = [];
  const headings: string[] = [];
  for (const inline of inlines) {
    const { content } = inline;
    checkInline(content, inline.heading);
    const mayLink = content.includes('[');
    if (!mayLink && !inline.heading) continue;
    if (!mayLink && !content.includes('`')) {
      // A heading of plain text: its text is its content.
      headings.push(collapsed(content));
      continue;
    }
    const scanner = new InlineScan(content, definitions);
    scanner.tokenize(0, content.length, false);
    if (inline.heading) {
      let text = '';
      for (const piece of scanner.pieces) {
        if (piece.type === 'code') text += piece.content;
        else if (piece.type === 'text') text += content.slice(piece.start, piece.end);
      }
      headings.push(collapsed(text));
    }
    if (!mayLink) continue;
    const map = mapper(src, starts, inline);
    // Images' descriptions are never tokenized here (their links are no links); a link's text is.
    for (const piece of scanner.pieces) {
      if (piece.type === 'link') {
        const note = { start: piece.start, labelEnd: piece.labelEnd };
        let dest: readonly [number, number] | null = null;
        if (content.charCodeAt(piece.labelEnd + 1) === PAREN_OPEN) {
          const from = map(piece.labelEnd + 2);
          dest = range(src, from, from + piece.href.length, piece.href);
        } else {
          const definition = definitions.get(referenceLabel(content, note, piece.image));
          dest = definition ? range(src, definition.range[0], definition.range[1], piece.href) : null;
        }
        links.push({ kind: 'markdown', href: piece.href, offset: Math.max(0, map(piece.start)), dest });
      } else if (piece.type === 'text') {
        const wikiAt = content.indexOf('[[', piece.start);
        if (wikiAt === -1 || wikiAt + 2 > piece.end) continue;
        const run = content.slice(piece.start, piece.end);
        if (hasEmphasisCharacter(run)) outside();
        for (const wiki of findWikiLinks(run, { embeds: true })) {
          const at = map(piece.start + wiki.index);
          links.push({
            kind: 'wiki',
            href: wiki.target,
            offset: Math.max(0, at),
            dest: wikiTargetRange(src, at),
          });
        }
      }
    }
  }
  links.sort((a, b) => a.offset - b.offset);
  return { links, headings };
}

/**
 * Offsets of an inline's content to offsets of the source: extract-commonmark.ts's `inlineMapper`,
 * without its copies for the usual one-line content (the same last occurrence in the line).
 */
function mapper(src: string, starts: readonly number[], inline: Inline): (offset: number) => number {
  const { content, first } = inline;
  if (content.includes('\n')) return inlineMapper(src, starts, { map: [first, first + 1], content });
  const lineStart = starts[first]!;
  const next = starts[first + 1];
  const lineEnd = next === undefined ? src.length : next - 1;
  const found =
    lineEnd - content.length < lineStart ? -1 : src.lastIndexOf(content, lineEnd - content.length);
  const base = found < lineStart ? -1 : found;
  return (offset) => (base === -1 ? -1 : base + offset);
}

/**
 * `collapseWhiteSpace`, without its Unicode regular expression for the usual heading: printable ASCII
 * words separated by single spaces is already collapsed.
 */
function collapsed(text: string): string {
  let previous = SPACE;
  for (let at = 0; at < text.length; at++) {
    const c = text.charCodeAt(at);
    if (c === SPACE ? previous === SPACE : c < 0x21 || c > 0x7e) return collapseWhiteSpace(text);
    previous = c;
  }
  return previous === SPACE ? collapseWhiteSpace(text) : text;
}

/** A destination's range when what is written there reads as `href` (extract-commonmark.ts's rule). */
function range(src: string, from: number, to: number, href: string): readonly [number, number] | null {
  if (from < 0) return null;
  const written = src.slice(from, to);
  return written === href || readsAs(written, href) ? [from, to] : null;
}
