import type { Nodes } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { mdxFromMarkdown } from 'mdast-util-mdx';
import { mdxjs } from 'micromark-extension-mdxjs';
import { plainText } from '../markdown/parse-mdx.js';
import { collapseWhiteSpace } from '../markdown/text.js';
import { findWikiLinks } from '../markdown/wiki-links.js';
import { readsAs } from './extract-commonmark.js';
import type { RawIndexLink, RawLinkDocument } from './raw.js';

/**
 * Links for the link index from an MDX text, by micromark with the mdxjs extension (as sections are
 * found). Throws when the text is not MDX (the caller reads it as CommonMark then). micromark's
 * positions are offsets of the text; a destination is located by scanning the link's own source and
 * checked against what the parser read.
 */
export function extractMdxLinks(text: string): RawLinkDocument {
  const tree = fromMarkdown(text, { extensions: [mdxjs()], mdastExtensions: [mdxFromMarkdown()] });
  const links: RawIndexLink[] = [];
  const headings: string[] = [];
  const definitions = new Map<string, { url: string; dest: readonly [number, number] | null }>();
  const references: Array<{ identifier: string; offset: number }> = [];
  const pending: Array<{ node: Nodes; inJsx: boolean }> = [{ node: tree, inJsx: false }];
  while (pending.length > 0) {
    const { node, inJsx } = pending.pop()!;
    const start = node.position?.start.offset ?? 0;
    const end = node.position?.end.offset ?? start;
    switch (node.type) {
      case 'heading':
        if (!inJsx) headings.push(collapseWhiteSpace(plainText(node)));
        break;
      case 'link':
      case 'image':
        links.push({
          kind: 'markdown',
          href: node.url,
          offset: start,
          dest: resourceDestination(text, start, end, node.url),
        });
        break;
      case 'linkReference':
      case 'imageReference':
        references.push({ identifier: node.identifier, offset: start });
        break;
      case 'definition':
        if (!definitions.has(node.identifier)) {
          definitions.set(node.identifier, {
            url: node.url,
            dest: definitionDestination(text, start, end, node.url),
          });
        }
        break;
      case 'text':
        for (const wiki of findWikiLinks(text.slice(start, end), { embeds: true })) {
          links.push({
            kind: 'wiki',
            href: wiki.target,
            offset: start + wiki.index,
            dest: wikiRange(text, start + wiki.index),
          });
        }
        break;
    }
    if ('children' in node) {
      const insideJsx = inJsx || node.type === 'mdxJsxFlowElement' || node.type === 'mdxJsxTextElement';
      for (let index = node.children.length - 1; index >= 0; index--) {
        pending.push({ node: node.children[index]!, inJsx: insideJsx });
      }
    }
  }
  for (const reference of references) {
    const definition = definitions.get(reference.identifier);
    if (definition)
      links.push({ kind: 'markdown', href: definition.url, offset: reference.offset, dest: definition.dest });
  }
  links.sort((a, b) => a.offset - b.offset);
  return { links, headings };
}

const DESTINATION =
  /^[ \t]*(?:\r\n|\r|\n)?[ \t]*(<(?:[^<>\\\n]|\\.)*>|(?:[^\s()\\]|\\.|\((?:[^\s()\\]|\\.)*\))+)/;

/** `](destination …)` in `[start, end)`: the last candidate whose destination reads as `url`. */
function resourceDestination(
  text: string,
  start: number,
  end: number,
  url: string,
): readonly [number, number] | null {
  if (text[end - 1] !== ')') return null;
  for (let at = text.lastIndexOf('](', end); at >= start; at = text.lastIndexOf('](', at - 1)) {
    const match = DESTINATION.exec(text.slice(at + 2, end));
    if (match) {
      const from = at + 2 + match[0].length - match[1]!.length;
      if (readsAs(match[1]!, url)) return [from, from + match[1]!.length];
    }
    if (at === 0) break;
  }
  return null;
}

/** `[label]: destination` in `[start, end)`. */
function definitionDestination(
  text: string,
  start: number,
  end: number,
  url: string,
): readonly [number, number] | null {
  let pos = start + 1;
  while (pos < end && text[pos] !== ']') pos += text[pos] === '\\' ? 2 : 1;
  if (text[pos + 1] !== ':') return null;
  const match = DESTINATION.exec(text.slice(pos + 2, end));
  if (!match) return null;
  const from = pos + 2 + match[0].length - match[1]!.length;
  return readsAs(match[1]!, url) ? [from, from + match[1]!.length] : null;
}

function wikiRange(text: string, at: number): readonly [number, number] | null {
  if (text.slice(at, at + 2) !== '[[') return null;
  const inner = text.slice(at + 2, text.indexOf(']]', at + 2));
  const bar = inner.indexOf('|');
  const target = bar === -1 ? inner : inner.slice(0, bar);
  const from = at + 2 + target.length - target.trimStart().length;
  return [from, from + target.trim().length];
}
