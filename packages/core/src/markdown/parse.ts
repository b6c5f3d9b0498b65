import { maskFrontMatter } from './front-matter.js';
import { lineAt, lineStarts } from './lines.js';
import { INLINE_MDX_LIMITS, type MdxLimits, mdxWithinBudget } from './mdx-budget.js';
import { parseCommonMark } from './parse-commonmark.js';
import { parseWithMicromark } from './parse-mdx.js';
import type { HeadingLevel, RawDocument } from './parse-types.js';
import { bomLength } from './text.js';

/**
 * One parse of a document: its headings and links, with offsets into the content as given (BOM
 * included) and 1-based line numbers. Parsers:
 * - `.md`: CommonMark, by markdown-it (linear time, spec-conformant);
 * - `.mdx`: MDX, by micromark with the mdxjs extension. An MDX file that does not parse as MDX, or
 *   whose estimated parse work is beyond budget (mdx-budget.ts), is parsed as CommonMark instead:
 *   its outline and sections stay available, at the price of reading its JSX as HTML (a JSX line
 *   such as `# x` inside a component may then count as a heading). `mdxFallback` says why.
 * In both, the front matter block is blanked out first (so nothing in it is Markdown) and a BOM is
 * skipped. The parser's lines end at LF, CRLF or a lone CR (CommonMark); reported line numbers are
 * the interface's (LF only).
 */
export interface ParseOptions {
  readonly mdx: boolean;
  /**
   * false: headings only (`links` comes back empty), all that sections need. A CommonMark parse then
   * skips the inline parse of everything but headings, about ten times less work.
   */
  readonly links?: boolean;
  /** When an MDX file is parsed as MDX (mdx-budget.ts); one step's inline limits by default. */
  readonly mdxLimits?: MdxLimits;
}

export interface DocumentHeading {
  readonly level: HeadingLevel;
  readonly text: string;
  readonly line: number;
  /** Offset where the heading's (first) line starts. */
  readonly start: number;
  /** Offset where its body starts: after the heading line (after a setext heading's underline). */
  readonly bodyStart: number;
  readonly setext: boolean;
}

export interface DocumentLink {
  readonly kind: 'markdown' | 'wiki';
  readonly target: string;
  readonly text: string;
  readonly line: number;
}

export type MdxFallback = 'parse_error' | 'too_complex';

export interface ParsedDocument {
  readonly headings: DocumentHeading[];
  readonly links: DocumentLink[];
  /** The grammar the content was read with. */
  readonly syntax: 'commonmark' | 'mdx';
  /** Why an MDX file was read as CommonMark, or null. */
  readonly mdxFallback: MdxFallback | null;
}

export function parseDocument(content: string, options: ParseOptions): ParsedDocument {
  const bom = bomLength(content);
  const text = maskFrontMatter(content.slice(bom));
  const { raw, syntax, mdxFallback } = parseText(text, options);
  const lines = lineStarts(content);
  return {
    headings: raw.headings.map((heading) => ({
      level: heading.level,
      text: heading.text,
      line: lineAt(lines, heading.start + bom),
      start: heading.start + bom,
      bodyStart: heading.bodyStart + bom,
      setext: heading.setext,
    })),
    links: raw.links.map((link) => ({
      kind: link.kind,
      target: link.target,
      text: link.text,
      line: lineAt(lines, link.offset + bom),
    })),
    syntax,
    mdxFallback,
  };
}

const parserCalls = { commonMark: 0, micromark: 0 };

/**
 * How many parses of each parser this copy of the core has run: a work counter, for the tests that
 * check a text past its bound is refused (or parsed as CommonMark) before any parse starts.
 */
export const markdownParserCalls = (): { commonMark: number; micromark: number } => ({ ...parserCalls });

function parseText(
  text: string,
  { mdx, links = true, mdxLimits = INLINE_MDX_LIMITS }: ParseOptions,
): { raw: RawDocument; syntax: ParsedDocument['syntax']; mdxFallback: MdxFallback | null } {
  const commonMark = () => {
    parserCalls.commonMark++;
    return parseCommonMark(text, { links });
  };
  if (!mdx) return { raw: commonMark(), syntax: 'commonmark', mdxFallback: null };
  if (!mdxWithinBudget(text, mdxLimits)) {
    return { raw: commonMark(), syntax: 'commonmark', mdxFallback: 'too_complex' };
  }
  try {
    parserCalls.micromark++;
    const raw = parseWithMicromark(text, { mdx: true });
    return { raw: links ? raw : { headings: raw.headings, links: [] }, syntax: 'mdx', mdxFallback: null };
  } catch {
    // Invalid MDX (an unclosed tag, a bad expression): the file is stored anyway, so it still gets an
    // outline, read as CommonMark.
    return { raw: commonMark(), syntax: 'commonmark', mdxFallback: 'parse_error' };
  }
}
