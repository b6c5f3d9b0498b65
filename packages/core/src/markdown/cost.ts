import { mdxWithinBudget, mdxWorkEstimate } from './mdx-budget.js';

/**
 * Cost estimates of the parses, computed from the text by one linear scan BEFORE the parse runs, in
 * estimated nanoseconds of CPU (the units of work-budget.ts). The constants are measured on this
 * service's CI machine (docs/reliability.md) and rounded up: an estimate should never be below the
 * real cost of a text of that shape.
 *
 * CommonMark (markdown-it, linear): a headings-only parse costs a few nanoseconds per code unit and a
 * few microseconds per heading; a whole parse (links too, for the outline) costs more per code unit and
 * per punctuation character (inline delimiters, brackets: what the inline parse works on), and the
 * outline pays per heading for its path. MDX (micromark): mdx-budget.ts; an MDX file beyond its budget
 * is parsed as CommonMark, and one that fails to parse as MDX is parsed again as CommonMark, so an MDX
 * parse is paid as both.
 */

/** A headings-only CommonMark parse, per code unit. */
export const HEADINGS_PARSE_UNIT_COST = 25;
/** A whole CommonMark parse (links included), per code unit. */
export const FULL_PARSE_UNIT_COST = 80;
/** A whole CommonMark parse, per punctuation character the inline parse works on. */
export const FULL_PARSE_PUNCTUATION_COST = 2_500;
/** A heading found by a parse (its block, its inline text, its place in the tree). */
export const HEADING_COST = 6_000;
/** A heading in an outline: the above, its path and its answer object. */
export const OUTLINE_HEADING_COST = 12_000;

/**
 * Lines that may be or make a heading: an ATX `#` after container markers, or a line of only `=` or
 * `-` (a setext underline). A generous count: a thematic break `---` is counted too.
 */
const HEADING_LIKE = /^[ \t>]*(?:#|(?:=+|-+)[ \t]*\r?$)/gm;

/** How many lines of `text` may be headings (see HEADING_LIKE). */
export function headingLikeLines(text: string): number {
  HEADING_LIKE.lastIndex = 0;
  let count = 0;
  while (HEADING_LIKE.exec(text) !== null) count++;
  return count;
}

/** Characters markdown-it's inline parse stops at and works on. */
function isInlinePunctuation(code: number): boolean {
  switch (code) {
    case 0x21: // !
    case 0x26: // &
    case 0x28: // (
    case 0x29: // )
    case 0x2a: // *
    case 0x3c: // <
    case 0x3e: // >
    case 0x5b: // [
    case 0x5c: // \
    case 0x5d: // ]
    case 0x5f: // _
    case 0x60: // `
      return true;
    default:
      return false;
  }
}

export function inlinePunctuation(text: string): number {
  let count = 0;
  for (let index = 0; index < text.length; index++) if (isInlinePunctuation(text.charCodeAt(index))) count++;
  return count;
}

const commonMarkHeadingsCost = (text: string, headings: number): number =>
  HEADINGS_PARSE_UNIT_COST * text.length + HEADING_COST * headings;

const commonMarkFullCost = (text: string, headings: number): number =>
  FULL_PARSE_UNIT_COST * text.length +
  FULL_PARSE_PUNCTUATION_COST * inlinePunctuation(text) +
  OUTLINE_HEADING_COST * headings;

/** What `parseDocument(text, { mdx, links: false })` (sections, section edits) is estimated to cost. */
export function headingsParseCost(text: string, mdx: boolean): number {
  const commonMark = commonMarkHeadingsCost(text, headingLikeLines(text));
  return mdx && mdxWithinBudget(text) ? mdxWorkEstimate(text) + commonMark : commonMark;
}

/** What an outline (`parseDocument(text, { mdx })` and its heading tree) is estimated to cost. */
export function outlineCost(text: string, mdx: boolean): number {
  const headings = headingLikeLines(text);
  const commonMark = commonMarkFullCost(text, headings);
  return mdx && mdxWithinBudget(text)
    ? mdxWorkEstimate(text) + OUTLINE_HEADING_COST * headings + commonMark
    : commonMark;
}
