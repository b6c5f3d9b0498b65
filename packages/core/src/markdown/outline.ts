import { OutlineTooLargeError } from '../errors.js';
import { outlineCost } from './cost.js';
import { type ContentWorkLimits, INLINE_WORK_LIMITS, OUTLINE_MAX_LENGTH } from './limits.js';
import { type DocumentHeading, type ParsedDocument, type ParseOptions, parseDocument } from './parse.js';
import type { HeadingLevel } from './parse-types.js';

export interface OutlineHeading {
  readonly level: HeadingLevel;
  readonly text: string;
  readonly line: number;
  /** Heading texts from the outermost enclosing heading down to this one. */
  readonly path: string[];
}

export interface OutlineLink {
  readonly target: string;
  readonly text: string;
  readonly line: number;
}

export interface Outline {
  readonly headings: OutlineHeading[];
  readonly links: OutlineLink[];
}

/** A heading with its place in the tree and the end of its section. */
export interface TreeHeading extends DocumentHeading {
  readonly path: string[];
  /** Offset just past its section: the start of the next heading of the same or a lower level number. */
  readonly end: number;
}

/**
 * Nests headings by the section rule: a section runs from its heading to just before the next heading
 * whose level number is at most its own, so the enclosing headings of a heading are the open sections
 * it falls in (a `###` right under a `#` has path `[#, ###]`).
 */
export function headingTree(headings: readonly DocumentHeading[], contentLength: number): TreeHeading[] {
  const open: Array<{ index: number; level: number; text: string }> = [];
  const ends: number[] = headings.map(() => contentLength);
  const paths = headings.map((heading, index) => {
    while (open.length > 0 && open[open.length - 1]!.level >= heading.level) {
      ends[open.pop()!.index] = heading.start;
    }
    open.push({ index, level: heading.level, text: heading.text });
    return open.map((entry) => entry.text);
  });
  return headings.map((heading, index) => ({ ...heading, path: paths[index]!, end: ends[index]! }));
}

export function outlineOf(document: ParsedDocument, contentLength: number): Outline {
  return {
    headings: headingTree(document.headings, contentLength).map((heading) => ({
      level: heading.level,
      text: heading.text,
      line: heading.line,
      path: heading.path,
    })),
    links: document.links.map((link) => ({ target: link.target, text: link.text, line: link.line })),
  };
}

/**
 * The outline of `GET …/outline`: headings with their paths, and links outside code and HTML. Its
 * estimated cost (cost.ts) is checked before the parse: past `OUTLINE_MAX_LENGTH` or the step bound of
 * where it runs (`limits`, inline by default), `OUTLINE_TOO_LARGE` (413) and no parse.
 */
export function outline(
  content: string,
  options: ParseOptions,
  limits: ContentWorkLimits = INLINE_WORK_LIMITS,
): Outline {
  if (outlineCost(content, options.mdx, limits.mdx) > limits.stepWork || content.length > OUTLINE_MAX_LENGTH)
    throw new OutlineTooLargeError();
  return outlineOf(parseDocument(content, { ...options, mdxLimits: limits.mdx }), content.length);
}
