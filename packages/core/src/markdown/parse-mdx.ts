import type { Nodes, Parents } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { mdxFromMarkdown } from 'mdast-util-mdx';
import { mdxjs } from 'micromark-extension-mdxjs';
import type { HeadingLevel, RawDocument, RawHeading, RawLink } from './parse-types.js';
import { collapseWhiteSpace, parserLineStarts } from './text.js';
import { findWikiLinks } from './wiki-links.js';

/**
 * MDX through micromark with the mdxjs extension and its mdast tree (the parser MDX itself uses).
 * Throws when the text is not valid MDX; parse.ts decides the fallback. `text` has no BOM and its
 * front matter is blanked out. With `mdx: false` it parses plain CommonMark, which only the tests use,
 * to check this tree walk against the CommonMark spec.
 */
export function parseWithMicromark(text: string, { mdx }: { mdx: boolean }): RawDocument {
  const tree = mdx
    ? fromMarkdown(text, { extensions: [mdxjs()], mdastExtensions: [mdxFromMarkdown()] })
    : fromMarkdown(text);
  const starts = parserLineStarts(text);
  const headings: RawHeading[] = [];
  const links: RawLink[] = [];
  const definitions = new Map<string, string>();
  const references: Array<{ identifier: string; text: string; offset: number }> = [];

  // An explicit stack, not recursion: a hostile nesting depth must not overflow the call stack.
  const pending: Array<{ node: Nodes; inJsx: boolean }> = [{ node: tree, inJsx: false }];
  while (pending.length > 0) {
    const { node, inJsx } = pending.pop()!;
    const offset = node.position?.start.offset ?? 0;
    switch (node.type) {
      case 'heading':
        // Headings inside JSX are the component's content, not the document's structure.
        if (!inJsx) headings.push(heading(node, starts, text.length));
        break;
      case 'link':
        links.push({ kind: 'markdown', target: node.url, text: collapseWhiteSpace(plainText(node)), offset });
        break;
      case 'linkReference':
        references.push({ identifier: node.identifier, text: collapseWhiteSpace(plainText(node)), offset });
        break;
      case 'definition':
        // The first definition of a label wins, as CommonMark says.
        if (!definitions.has(node.identifier)) definitions.set(node.identifier, node.url);
        break;
      case 'text':
        for (const wiki of findWikiLinks(text.slice(offset, node.position?.end.offset ?? offset))) {
          links.push({ kind: 'wiki', target: wiki.target, text: wiki.text, offset: offset + wiki.index });
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
    const target = definitions.get(reference.identifier);
    if (target !== undefined) {
      links.push({ kind: 'markdown', target, text: reference.text, offset: reference.offset });
    }
  }
  links.sort((a, b) => a.offset - b.offset);
  return { headings, links };
}

function heading(
  node: Extract<Nodes, { type: 'heading' }>,
  starts: readonly number[],
  end: number,
): RawHeading {
  // micromark starts a setext heading at the link reference definitions that precede its text in the
  // same paragraph; its first child starts where the heading really does.
  const startOffset = (node.children[0] ?? node).position!.start.offset!;
  const endOffset = node.position!.end.offset!;
  const first = lineIndexAt(starts, startOffset);
  const last = lineIndexAt(starts, endOffset);
  return {
    level: node.depth as HeadingLevel,
    text: collapseWhiteSpace(plainText(node)),
    start: starts[first]!,
    bodyStart: starts[last + 1] ?? end,
    // An ATX heading is one line; a setext heading is its content lines plus the underline.
    setext: last > first,
  };
}

/** Index of the parser line holding `offset`. */
function lineIndexAt(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle]! <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** Plain text of a node: text, code and image descriptions; no raw HTML, no MDX expressions or ESM. */
export function plainText(root: Parents): string {
  let text = '';
  const pending: Nodes[] = [...root.children].reverse();
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (node.type === 'text' || node.type === 'inlineCode') text += node.value;
    else if (node.type === 'break') text += '\n';
    else if (node.type === 'image' || node.type === 'imageReference') text += node.alt ?? '';
    else if ('children' in node)
      for (let i = node.children.length - 1; i >= 0; i--) pending.push(node.children[i]!);
  }
  return text;
}
