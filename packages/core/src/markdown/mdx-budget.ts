import { STEP_WORK_LIMIT } from './work-limits.js';

/**
 * micromark (the only MDX parser) is slow, and super-linear on some inputs: deeply nested lists and
 * block quotes, long runs of unmatched emphasis or bracket delimiters in one paragraph, nested MDX
 * expressions (`{`×n … `}`×n, quadratic in n), and every expression is handed to acorn (tens of
 * microseconds each). Measured here (docs/reliability.md): about 1 µs per code unit of plain prose,
 * 6 µs of link-heavy prose, 55 µs per heading line, 60 µs per expression, 200 ms for 1 000 nested
 * braces. So an MDX file is parsed as MDX only when this linear estimate of the parser's work, in
 * estimated nanoseconds, stays within one step's bound (`STEP_WORK_LIMIT`); otherwise it is parsed as
 * CommonMark (linear). The estimate is deliberately pessimistic; a false alarm only means JSX is read
 * as CommonMark (HTML) for that file (`mdxFallback: "too_complex"`).
 */

/** Above this many UTF-16 units an MDX file is parsed as CommonMark, whatever its shape (inline). */
export const MDX_MAX_LENGTH = 64 * 1024;

/** The most estimated work micromark may be given inline; above it the file is parsed as CommonMark. */
export const MDX_WORK_BUDGET = STEP_WORK_LIMIT;

/**
 * When an MDX file is parsed as MDX: at most `maxLength` UTF-16 units and `maxWork` estimated
 * nanoseconds of micromark's work. Inline (`INLINE_MDX_LIMITS`) one step's bound; in a worker pool
 * (content-work.ts) the limits of before the inline bound, 256 KiB.
 */
export interface MdxLimits {
  readonly maxLength: number;
  readonly maxWork: number;
}

export const INLINE_MDX_LIMITS: MdxLimits = { maxLength: MDX_MAX_LENGTH, maxWork: MDX_WORK_BUDGET };

/** Per code unit, per line, per punctuation character, per expression `{`. */
const UNIT_COST = 1_500;
const LINE_COST = 50_000;
const PUNCTUATION_COST = 25_000;
const EXPRESSION_COST = 60_000;
/** Per unit of the structural estimate below (delimiters squared, container depth, brace nesting). */
const STRUCTURE_COST = 200;

/** Container indentation (`>`, list markers, spaces) up to this width costs nothing extra. */
const FREE_PREFIX = 8;

/** Leading characters that may open or continue containers: spaces, tabs, `>`, list markers. */
const CONTAINER_PREFIX = /^[ \t>*+\-0-9.)]*/;

/** Characters whose unmatched runs make micromark's inline resolution quadratic. */
const DELIMITER = /[*_`[\]]/g;

/** Characters micromark's constructs start at (each one tried by several of them). */
const PUNCTUATION = /[!"#&'()*<>[\\\]_`{}~|:=-]/g;

/**
 * The structural estimate: for each run of non-blank lines (a paragraph can never span a blank line),
 * the square of its delimiter count; for each line, the square of its container prefix beyond
 * `FREE_PREFIX` (container checks grow with depth on every line); the deepest prefix of the run so far,
 * which lazy continuation lines pay for; and for each `{`, the depth of expressions it opens in (nested
 * expressions are re-read at every level).
 */
export function mdxStructureEstimate(text: string): number {
  let work = 0;
  let delimiters = 0;
  let deepest = 0;
  for (const line of text.split('\n')) {
    if (/^[ \t\r]*$/.test(line)) {
      work += delimiters * delimiters;
      delimiters = 0;
      deepest = 0;
      continue;
    }
    const excess = Math.max(0, CONTAINER_PREFIX.exec(line)![0].length - FREE_PREFIX);
    deepest = Math.max(deepest, excess);
    work += excess * excess + deepest;
    delimiters += line.match(DELIMITER)?.length ?? 0;
  }
  return work + delimiters * delimiters + braceNesting(text);
}

/** The sum, over every `{`, of the number of `{` still open around it. */
export function braceNesting(text: string): number {
  let depth = 0;
  let work = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x7b) work += depth++;
    else if (code === 0x7d && depth > 0) depth--;
  }
  return work;
}

function count(text: string, pattern: RegExp): number {
  return text.match(pattern)?.length ?? 0;
}

/** The estimated cost of micromark's parse of `text`, in estimated nanoseconds. */
export function mdxWorkEstimate(text: string): number {
  return (
    UNIT_COST * text.length +
    LINE_COST * (count(text, /\n/g) + 1) +
    PUNCTUATION_COST * count(text, PUNCTUATION) +
    EXPRESSION_COST * count(text, /\{/g) +
    STRUCTURE_COST * mdxStructureEstimate(text)
  );
}

export function mdxWithinBudget(text: string, limits: MdxLimits = INLINE_MDX_LIMITS): boolean {
  return text.length <= limits.maxLength && mdxWorkEstimate(text) <= limits.maxWork;
}
