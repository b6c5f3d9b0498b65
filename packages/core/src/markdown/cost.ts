import { INLINE_MDX_LIMITS, type MdxLimits, mdxWithinBudget, mdxWorkEstimate } from './mdx-budget.js';

/**
 * Cost estimates of the parses, computed from the text by one linear scan BEFORE the parse runs, in
 * estimated nanoseconds of CPU (the units of work-budget.ts). The constants are measured on this
 * service's CI machine (docs/reliability.md) and rounded up: an estimate should never be below the
 * real cost of a text of that shape.
 *
 * CommonMark (markdown-it, linear): a parse costs per code unit, per line (the block parse), more per
 * list item line and per heading (their tokens), and a whole parse (links too, for the outline) also
 * per punctuation character (inline delimiters, brackets: what the inline parse works on); the outline
 * pays per heading for its path and answer. MDX (micromark): mdx-budget.ts; an MDX file beyond its budget
 * is parsed as CommonMark, and one that fails to parse as MDX is parsed again as CommonMark, so an MDX
 * parse is paid as both.
 */

/** A headings-only CommonMark parse: per code unit, line, list item line and heading. */
export const HEADINGS_PARSE_COST = { unit: 25, line: 2_000, listItem: 6_000, heading: 8_000 } as const;
/**
 * A whole CommonMark parse (links included) and its outline: per code unit, line, list item line,
 * heading (with its path and answer object) and punctuation character.
 */
export const OUTLINE_COST = {
  unit: 80,
  line: 6_000,
  listItem: 12_000,
  heading: 15_000,
  punctuation: 4_000,
} as const;

/** Lines that open a list item: a bullet or an ordered marker, after spaces or `>`. */
const LIST_ITEM = /^[ \t>]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|\r?$)/gm;

/**
 * Lines that may be or make a heading: an ATX `#` after container markers, or a line of only `=` or
 * `-` (a setext underline). A generous count: a thematic break `---` is counted too.
 */
const HEADING_LIKE = /^[ \t>]*(?:#|(?:=+|-+)[ \t]*\r?$)/gm;

function matches(text: string, pattern: RegExp): number {
  pattern.lastIndex = 0;
  let count = 0;
  while (pattern.exec(text) !== null) count++;
  return count;
}

/** The counts the CommonMark estimates are made of, from one pass per pattern. */
export function textShape(text: string): { lines: number; listItems: number; headings: number } {
  return {
    lines: matches(text, /\n/g) + 1,
    listItems: matches(text, LIST_ITEM),
    headings: matches(text, HEADING_LIKE),
  };
}

/**
 * Characters markdown-it's inline parse stops at and works on (its text rule's terminators: each one
 * ends a text run and is tried by every inline rule).
 */
const TERMINATORS = new Set('\n!#$%&*+-:<=>@[\\]^_`{}~'.split('').map((char) => char.charCodeAt(0)));
const isInlinePunctuation = (code: number): boolean => TERMINATORS.has(code);

export function inlinePunctuation(text: string): number {
  let count = 0;
  for (let index = 0; index < text.length; index++) if (isInlinePunctuation(text.charCodeAt(index))) count++;
  return count;
}

type Shape = ReturnType<typeof textShape>;

const commonMarkCost = (
  text: string,
  shape: Shape,
  costs: { unit: number; line: number; listItem: number; heading: number },
): number =>
  costs.unit * text.length +
  costs.line * shape.lines +
  costs.listItem * shape.listItems +
  costs.heading * shape.headings;

/** What `parseDocument(text, { mdx, links: false })` (sections, section edits) is estimated to cost. */
export function headingsParseCost(text: string, mdx: boolean, limits: MdxLimits = INLINE_MDX_LIMITS): number {
  const commonMark = commonMarkCost(text, textShape(text), HEADINGS_PARSE_COST);
  return mdx && mdxWithinBudget(text, limits) ? mdxWorkEstimate(text) + commonMark : commonMark;
}

/** What an outline (`parseDocument(text, { mdx })` and its heading tree) is estimated to cost. */
export function outlineCost(text: string, mdx: boolean, limits: MdxLimits = INLINE_MDX_LIMITS): number {
  const shape = textShape(text);
  const commonMark =
    commonMarkCost(text, shape, OUTLINE_COST) + OUTLINE_COST.punctuation * inlinePunctuation(text);
  return mdx && mdxWithinBudget(text, limits)
    ? mdxWorkEstimate(text) + OUTLINE_COST.heading * shape.headings + commonMark
    : commonMark;
}

/**
 * An upper bound of the items (headings, and links when `links`) a parse of `text` gives: lines that
 * may be headings, and `[` characters (every link, Markdown or wiki, has one). What comes back from a
 * worker costs the thread serving requests per item (structured clone, heading tree), so a step sent
 * to a pool is bounded by it too (limits.ts, `answerItems`).
 */
export function answerItems(text: string, links: boolean): number {
  // The heading-like lines alone: one pass, not textShape's three.
  const headings = matches(text, HEADING_LIKE);
  if (!links) return headings;
  let brackets = 0;
  for (let at = text.indexOf('['); at !== -1; at = text.indexOf('[', at + 1)) brackets++;
  return headings + brackets;
}

/**
 * Rendering as HTML (render/render.ts): the whole parse, paid as two and a half outlines (markdown-it's
 * renderer and the sanitiser's parse of its output are linear too; measured at 2.0–2.3 outlines on
 * prose, READMEs and link lists, docs/reliability.md), plus per link (`[`: resolving and rewriting its
 * target in the sanitiser) and per tag (`<`: each element the sanitiser judges). MDX is shown as
 * escaped source: per code unit.
 */
export const RENDER_COST = { outlineFactor: 2.5, bracket: 15_000, tag: 3_000, mdxUnit: 20 } as const;

function count(text: string, char: string): number {
  let found = 0;
  for (let at = text.indexOf(char); at !== -1; at = text.indexOf(char, at + 1)) found++;
  return found;
}

/** What `renderHtml` of `text` is estimated to cost. */
export function renderCost(text: string, mdx: boolean): number {
  if (mdx) return RENDER_COST.mdxUnit * text.length;
  return (
    RENDER_COST.outlineFactor * outlineCost(text, false) +
    RENDER_COST.bracket * count(text, '[') +
    RENDER_COST.tag * count(text, '<')
  );
}
