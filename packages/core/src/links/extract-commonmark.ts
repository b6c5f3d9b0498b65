import type { StateBlock, StateInline, Token } from 'markdown-it';
import { commonMark, type Env } from '../markdown/parse-commonmark.js';
import { collapseWhiteSpace } from '../markdown/text.js';
import { findWikiLinks } from '../markdown/wiki-links.js';
import type { RawIndexLink, RawLinkDocument } from './raw.js';

/**
 * Links for the link index from a CommonMark text, by the same markdown-it configuration that finds
 * sections, with images, and with where each destination is written (for rewriting after a move).
 * markdown-it keeps no inline positions, so its `link`, `image` and `reference` rules are wrapped to
 * note them, and each located destination is checked: the written text, unescaped, must be what the
 * parser read, else the link gets no range (it is still indexed).
 */

export interface LinkNote {
  /** Offsets in the inline source: the link's start, its label's `]`. */
  readonly start: number;
  readonly labelEnd: number;
}

interface LinkEnv extends Env {
  readonly notes: Map<Token, LinkNote>;
  /** Offset (in the inline source) when a text token (its end) or a `link_open` (its start) was pushed. */
  readonly textEnds: Map<Token, number>;
  /** Normalised label → destination range in the (normalised) block source; the first definition wins. */
  readonly definitions: Map<string, readonly [number, number]>;
}

const md = commonMark();
const { parseLinkDestination, parseLinkLabel } = md.helpers;
const { normalizeReference, unescapeAll, isSpace } = md.utils;

type InlineRule = (state: StateInline, silent: boolean) => boolean;
type BlockRule = (state: StateBlock, startLine: number, endLine: number, silent: boolean) => boolean;

/** A rule of a ruler by name (markdown-it keeps them in `__rules__`, which its types do not declare). */
const ruleOf = <T>(ruler: object, name: string): T =>
  (ruler as { __rules__: Array<{ name: string; fn: unknown }> }).__rules__.find((rule) => rule.name === name)!
    .fn as T;

const linkRule = ruleOf<InlineRule>(md.inline.ruler, 'link');
const imageRule = ruleOf<InlineRule>(md.inline.ruler, 'image');
const referenceRule = ruleOf<BlockRule>(md.block.ruler, 'reference');

function noteLink(rule: InlineRule, image: boolean): InlineRule {
  return (state, silent) => {
    const start = state.pos;
    const before = state.tokens.length;
    if (!rule(state, silent)) return false;
    if (silent) return true;
    const type = image ? 'image' : 'link_open';
    const token = state.tokens.slice(before).find((t) => t.type === type);
    if (!token) return true;
    const end = state.pos;
    const labelEnd = parseLinkLabel(state, image ? start + 1 : start, !image);
    state.pos = end;
    if (labelEnd >= 0) (state.env as LinkEnv).notes.set(token, { start, labelEnd });
    return true;
  };
}

md.inline.ruler.at('link', noteLink(linkRule, false));
md.inline.ruler.at('image', noteLink(imageRule, true));
md.block.ruler.at('reference', (state, startLine, endLine, silent) => {
  if (!referenceRule(state, startLine, endLine, silent)) return false;
  if (silent) return true;
  const env = state.env as LinkEnv;
  const found = definitionDestination(state.src, state.bMarks[startLine]! + state.tShift[startLine]!);
  if (found && !env.definitions.has(found.label)) env.definitions.set(found.label, found.range);
  return true;
});

const BaseState = md.inline.State;
md.inline.State = class NotingState extends BaseState {
  override pushPending(): Token {
    const token = super.pushPending();
    (this.env as LinkEnv).textEnds.set(token, this.pos);
    return token;
  }
  override push(type: string, tag: string, nesting: -1 | 0 | 1): Token {
    const token = super.push(type, tag, nesting);
    if (type === 'link_open') (this.env as LinkEnv).textEnds.set(token, this.pos);
    return token;
  }
};

/**
 * `[label]: destination` starting at `at` (a definition the reference rule accepted): its normalised
 * label and the destination's range (escapes and line breaks allowed).
 */
function definitionDestination(
  src: string,
  at: number,
): { label: string; range: readonly [number, number] } | null {
  let pos = at + 1;
  while (pos < src.length && src.charCodeAt(pos) !== 0x5d) pos += src.charCodeAt(pos) === 0x5c ? 2 : 1;
  if (src.charCodeAt(pos + 1) !== 0x3a) return null;
  const label = normalizeReference(src.slice(at + 1, pos));
  pos += 2;
  // White space, at most one line break, and a container's markers (`>`, indentation) after it.
  while (pos < src.length && (isSpace(src.charCodeAt(pos)) || src.charCodeAt(pos) === 0x0a)) {
    pos++;
    if (src.charCodeAt(pos - 1) === 0x0a)
      while (src.charCodeAt(pos) === 0x3e || isSpace(src.charCodeAt(pos))) pos++;
  }
  const result = parseLinkDestination(src, pos, src.length);
  return result.ok ? { label, range: [pos, result.pos] } : null;
}

/** An inline link's destination, after its label's `]`: the range, or null for a reference link. */
function inlineDestination(src: string, labelEnd: number): readonly [number, number] | null {
  if (src.charCodeAt(labelEnd + 1) !== 0x28) return null;
  let pos = labelEnd + 2;
  while (pos < src.length && (isSpace(src.charCodeAt(pos)) || src.charCodeAt(pos) === 0x0a)) pos++;
  const result = parseLinkDestination(src, pos, src.length);
  return result.ok && result.pos > pos ? [pos, result.pos] : null;
}

/** The reference label a reference link uses (`[text][label]`, `[text][]`, `[text]`), normalised. */
export function referenceLabel(src: string, note: LinkNote, image: boolean): string {
  const textStart = note.start + (image ? 2 : 1);
  if (src.charCodeAt(note.labelEnd + 1) === 0x5b) {
    const close = src.indexOf(']', note.labelEnd + 2);
    if (close > note.labelEnd + 2) return normalizeReference(src.slice(note.labelEnd + 2, close));
  }
  return normalizeReference(src.slice(textStart, note.labelEnd));
}

/** Whether `written` (a destination as written) reads as `href`. */
export function readsAs(written: string, href: string): boolean {
  const bare = written.startsWith('<') && written.endsWith('>') ? written.slice(1, -1) : written;
  return unescapeAll(bare) === href;
}

/**
 * Maps offsets of an inline token's source (its lines joined, container markers and indentation
 * removed, trimmed) to offsets of the block source: each of its lines is the end of a source line.
 */
export function inlineMapper(
  src: string,
  lineStartsOf: readonly number[],
  inline: { readonly map: [number, number] | null; readonly content: string },
): (offset: number) => number {
  const first = inline.map![0];
  const contentLines = inline.content.split('\n');
  const contentStarts: number[] = [];
  const sourceStarts: number[] = [];
  let at = 0;
  contentLines.forEach((line, k) => {
    contentStarts.push(at);
    at += line.length + 1;
    const lineStart = lineStartsOf[first + k] ?? src.length;
    const next = lineStartsOf[first + k + 1];
    const lineEnd = next === undefined ? src.length : next - 1;
    const found = src.slice(lineStart, lineEnd).lastIndexOf(line);
    sourceStarts.push(found === -1 ? -1 : lineStart + found);
  });
  return (offset) => {
    let k = contentStarts.length - 1;
    while (k > 0 && contentStarts[k]! > offset) k--;
    const base = sourceStarts[k]!;
    return base === -1 ? -1 : base + offset - contentStarts[k]!;
  };
}

/** Heading texts and links of a CommonMark text (BOM removed, front matter blanked). */
export function extractCommonMarkLinks(text: string): RawLinkDocument {
  const env: LinkEnv = { notes: new Map(), textEnds: new Map(), definitions: new Map() };
  const tokens = md.parse(text, env);
  // markdown-it reads CRLF and lone CR as LF: its offsets are those of `normalised`.
  const normalised = text.replace(/\r\n?/g, '\n');
  const toText = offsetsBack(text);
  const starts = [0];
  for (let at = normalised.indexOf('\n'); at !== -1; at = normalised.indexOf('\n', at + 1))
    starts.push(at + 1);
  const links: RawIndexLink[] = [];
  const headings: string[] = [];
  const range = (from: number, to: number, href: string): readonly [number, number] | null =>
    from >= 0 && readsAs(normalised.slice(from, to), href) ? [toText(from), toText(to)] : null;
  tokens.forEach((token, index) => {
    if (token.type === 'heading_open') headings.push(collapseWhiteSpace(headingText(tokens[index + 1]!)));
    if (token.type !== 'inline' || !token.map) return;
    const map = inlineMapper(normalised, starts, token);
    const src = token.content;
    // An image's description is its alt text: links in it are not links.
    const walk = (children: readonly Token[]) => {
      for (const child of children) {
        const note = env.notes.get(child);
        if (note && (child.type === 'link_open' || child.type === 'image')) {
          const image = child.type === 'image';
          const href = String(child.attrGet(image ? 'src' : 'href') ?? '');
          // `[foo](not a link)` is the reference link `[foo]` then text: the written form that reads as
          // the parser's destination is the one.
          const inline = inlineDestination(src, note.labelEnd);
          const definition = env.definitions.get(referenceLabel(src, note, image));
          const dest =
            (inline && range(map(inline[0]), map(inline[0]) + inline[1] - inline[0], href)) ||
            (definition && range(definition[0], definition[1], href)) ||
            null;
          links.push({ kind: 'markdown', href, offset: toText(Math.max(0, map(note.start))), dest });
        } else if (child.type === 'link_open' && child.markup === 'autolink') {
          const href = String(child.attrGet('href') ?? '');
          links.push({
            kind: 'markdown',
            href,
            offset: toText(Math.max(0, map(env.textEnds.get(child) ?? 0))),
            dest: null,
          });
        } else if (child.type === 'text') {
          const end = env.textEnds.get(child);
          const start = end === undefined ? -1 : src.lastIndexOf(child.content, end - child.content.length);
          for (const wiki of findWikiLinks(child.content, { embeds: true })) {
            const at = start === -1 ? -1 : map(start + wiki.index);
            links.push({
              kind: 'wiki',
              href: wiki.target,
              offset: toText(Math.max(0, at)),
              dest: wikiRange(at),
            });
          }
        }
      }
    };
    const wikiRange = (at: number): readonly [number, number] | null => {
      const range = wikiTargetRange(normalised, at);
      return range && [toText(range[0]), toText(range[1])];
    };
    walk(token.children ?? []);
  });
  links.sort((a, b) => a.offset - b.offset);
  return { links, headings };
}

function headingText(inline: Token): string {
  let text = '';
  const walk = (tokens: readonly Token[]) => {
    for (const token of tokens) {
      if (token.type === 'text' || token.type === 'text_special' || token.type === 'code_inline')
        text += token.content;
      else if (token.type === 'softbreak' || token.type === 'hardbreak') text += '\n';
      else if (token.type === 'image') walk(token.children ?? []);
    }
  };
  walk(inline.children ?? []);
  return text;
}

/** Offsets of the LF-normalised text back to `text`: every CRLF before an offset adds one. */
function offsetsBack(text: string): (offset: number) => number {
  const crlf: number[] = [];
  let removed = 0;
  for (let at = text.indexOf('\r\n'); at !== -1; at = text.indexOf('\r\n', at + 2)) {
    crlf.push(at - removed);
    removed++;
  }
  if (crlf.length === 0) return (offset) => offset;
  return (offset) => {
    let low = 0;
    let high = crlf.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (crlf[middle]! < offset) low = middle + 1;
      else high = middle;
    }
    return offset + low;
  };
}

/** A wiki link's `target` range in `src`, from its `[[` at `at` (the scanner, scan.ts, uses it too). */
export function wikiTargetRange(src: string, at: number): readonly [number, number] | null {
  if (at < 0 || src.slice(at, at + 2) !== '[[') return null;
  const close = src.indexOf(']]', at + 2);
  const inner = src.slice(at + 2, close);
  const bar = inner.indexOf('|');
  const target = bar === -1 ? inner : inner.slice(0, bar);
  const lead = target.length - target.trimStart().length;
  const from = at + 2 + lead;
  return [from, from + target.trim().length];
}
