/**
 * micromark (the only MDX parser) is slow, about 20 times slower than markdown-it, and super-linear on
 * some inputs: deeply nested lists and block quotes, long runs of unmatched emphasis or bracket
 * delimiters in one paragraph. Measured here, 30 KB of nested emphasis takes seconds and 1 MB of nested
 * lists minutes, while the server parses synchronously. So an MDX file is parsed as MDX only when this
 * linear estimate of the parser's work stays within budget; otherwise it is parsed as CommonMark
 * (linear). The estimate is deliberately pessimistic; a false alarm only means JSX is read as
 * CommonMark (HTML) for that file.
 */

/** Above this many UTF-16 units an MDX file is parsed as CommonMark (about a second of micromark). */
export const MDX_MAX_LENGTH = 256 * 1024;

/** The most estimated work micromark may be given; above it the file is parsed as CommonMark. */
export const MDX_WORK_BUDGET = 2_000_000;

/** Container indentation (`>`, list markers, spaces) up to this width costs nothing extra. */
const FREE_PREFIX = 8;

/** Leading characters that may open or continue containers: spaces, tabs, `>`, list markers. */
const CONTAINER_PREFIX = /^[ \t>*+\-0-9.)]*/;

/** Characters whose unmatched runs make micromark's inline resolution quadratic. */
const DELIMITER = /[*_`[\]]/g;

/**
 * The estimate: for each run of non-blank lines (a paragraph can never span a blank line), the square
 * of its delimiter count; for each line, the square of its container prefix beyond `FREE_PREFIX`
 * (container checks grow with depth on every line); and the deepest prefix of the run so far, which
 * lazy continuation lines pay for.
 */
export function mdxWorkEstimate(text: string): number {
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
  return work + delimiters * delimiters;
}

export function mdxWithinBudget(text: string): boolean {
  return text.length <= MDX_MAX_LENGTH && mdxWorkEstimate(text) <= MDX_WORK_BUDGET;
}
