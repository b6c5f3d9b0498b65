import markdownIt, { type StateInline, type Token } from 'markdown-it';
import type { HeadingLevel, RawDocument, RawHeading, RawLink } from './parse-types.js';
import { collapseWhiteSpace, parserLineStarts } from './text.js';
import { findWikiLinks } from './wiki-links.js';

/**
 * CommonMark through markdown-it's `commonmark` preset, which follows the spec (our tests check every
 * example of it) and parses in linear time, pathological inputs included (see mdx-budget.ts for why
 * not micromark here). Three settings make it report what the author wrote instead of what is safe to
 * render: no link is rejected as unsafe (CommonMark has no such rule, and a rejected link would change
 * the text around it), targets are not percent-encoded, and escapes stay separate tokens so that an
 * escaped `\[\[` never reads as a wiki link.
 */

/** markdown-it's environment object, passed through a parse to its rules (its types name none). */
export type Env = Record<string, unknown>;

interface PositionEnv extends Env {
  /** Offset in its inline source where each inline token was pushed. */
  readonly positions: WeakMap<Token, number>;
}

export function commonMark() {
  const instance = markdownIt('commonmark');
  instance.validateLink = () => true;
  instance.normalizeLink = (url) => url;
  instance.normalizeLinkText = (text) => text;
  instance.disable('text_join');
  return instance;
}

const md = commonMark();

/**
 * Headings only, for finding sections: the same block parse, but the inline parse (most of the work,
 * about nine tenths of it on real READMEs) runs on heading lines alone. Which lines are headings is
 * decided by the block parse only, and a heading's text comes out the same, link reference
 * definitions included (they are collected by the block parse), so both instances agree on headings.
 */
const mdHeadings = commonMark();
mdHeadings.core.ruler.at('inline', (state) => {
  state.tokens.forEach((token, index) => {
    if (token.type !== 'inline' || state.tokens[index - 1]?.type !== 'heading_open') return;
    token.children = [];
    state.md.inline.parse(token.content, state.md, state.env, token.children);
  });
});

// markdown-it keeps no source position for inline tokens; recording `pos` when a token is pushed gives
// each link and text run its line (inline rules push a token at the start of the span they consume).
const BaseState = md.inline.State;
md.inline.State = class PositionedState extends BaseState {
  override pushPending(): Token {
    return recordPosition(this, super.pushPending());
  }
  override push(type: string, tag: string, nesting: -1 | 0 | 1): Token {
    return recordPosition(this, super.push(type, tag, nesting));
  }
};

function recordPosition(state: StateInline, token: Token): Token {
  (state.env as PositionEnv).positions.set(token, state.pos);
  return token;
}

/**
 * Parses CommonMark. `text` has no BOM and its front matter is blanked out. With `links: false` only
 * the headings are found (and `links` is empty), for a fraction of the work.
 */
export function parseCommonMark(text: string, o: { links: boolean } = { links: true }): RawDocument {
  const env: PositionEnv = { positions: new WeakMap() };
  const tokens = (o.links ? md : mdHeadings).parse(text, env);
  const starts = parserLineStarts(text);
  const lineStart = (line: number) => starts[line] ?? text.length;
  const headings: RawHeading[] = [];
  const links: RawLink[] = [];
  tokens.forEach((token, index) => {
    if (token.type === 'heading_open') {
      const [first, after] = token.map!;
      headings.push({
        level: Number(token.tag.slice(1)) as HeadingLevel,
        text: collapseWhiteSpace(plainText(tokens[index + 1]!.children ?? [])),
        start: lineStart(first),
        bodyStart: lineStart(after),
        setext: token.markup === '=' || token.markup === '-',
      });
    }
    if (o.links && token.type === 'inline') collectLinks(token, env, (line) => lineStart(line), links);
  });
  return { headings, links };
}

/** Plain text of inline tokens: text, code and image descriptions; no raw HTML. */
export function plainText(tokens: readonly Token[]): string {
  let text = '';
  for (const token of tokens) {
    if (token.type === 'text' || token.type === 'text_special' || token.type === 'code_inline') {
      text += token.content;
    } else if (token.type === 'softbreak' || token.type === 'hardbreak') {
      text += '\n';
    } else if (token.type === 'image') {
      text += plainText(token.children ?? []);
    }
  }
  return text;
}

/** Markdown links and wiki links of one inline block; image descriptions are skipped (images are not links). */
function collectLinks(
  inline: Token,
  env: PositionEnv,
  lineStart: (line: number) => number,
  links: RawLink[],
): void {
  const children = inline.children ?? [];
  const newlines = newlineOffsets(inline.content);
  const offsetOf = (token: Token) =>
    lineStart(inline.map![0] + countBelow(newlines, env.positions.get(token) ?? 0));
  children.forEach((token, index) => {
    if (token.type === 'link_open') {
      let close = index + 1;
      while (children[close] && children[close]!.type !== 'link_close') close++;
      links.push({
        kind: 'markdown',
        target: String(token.attrGet('href') ?? ''),
        text: collapseWhiteSpace(plainText(children.slice(index + 1, close))),
        offset: offsetOf(token),
      });
    } else if (token.type === 'text') {
      for (const wiki of findWikiLinks(token.content)) {
        links.push({ kind: 'wiki', target: wiki.target, text: wiki.text, offset: offsetOf(token) });
      }
    }
  });
}

function newlineOffsets(source: string): number[] {
  const offsets: number[] = [];
  for (let at = source.indexOf('\n'); at !== -1; at = source.indexOf('\n', at + 1)) offsets.push(at);
  return offsets;
}

/** How many of the sorted `offsets` lie below `position`. */
function countBelow(offsets: readonly number[], position: number): number {
  let low = 0;
  let high = offsets.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (offsets[middle]! < position) low = middle + 1;
    else high = middle;
  }
  return low;
}
