import { InvalidInputError, type ValidationIssue } from '../errors.js';

/**
 * Lines as the interface counts them: a line ends after LF, a final LF starts no new line, and a lone
 * CR is not a line ending (the parser may still treat it as one; see parse.ts). Line numbers are
 * 1-based. Everything works on the decoded string and slices it: no line ending is ever rewritten.
 */

/** Offsets where each line starts (`[0]` for the first). An empty text has no line. */
export function lineStarts(text: string): number[] {
  if (text.length === 0) return [];
  const starts = [0];
  for (let at = text.indexOf('\n'); at !== -1 && at + 1 < text.length; at = text.indexOf('\n', at + 1)) {
    starts.push(at + 1);
  }
  return starts;
}

export function lineCount(text: string): number {
  return lineStarts(text).length;
}

/** The 1-based line holding `offset`, by binary search over `starts` (from `lineStarts`). */
export function lineAt(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle]! <= offset) low = middle;
    else high = middle - 1;
  }
  return low + 1;
}

export interface LineSlice {
  /** Lines `first`..`last` with their line endings, exactly as in the text. */
  readonly text: string;
  readonly first: number;
  /** The requested last line, clipped to the last line of the text. */
  readonly last: number;
  /** Lines in the whole text. */
  readonly total: number;
}

export const LINES_LOC = ['query', 'lines'] as const;

const linesIssue = (loc: readonly (string | number)[], msg: string): ValidationIssue => ({
  loc,
  msg: `Value error, ${msg}`,
  type: 'value_error',
});

/**
 * Parses `a-b` (two unsigned decimal integers, nothing else): the syntax half of `?lines=`. Whether the
 * range fits the text is `sliceLines`' concern, which knows the line count.
 */
export function parseLineRange(
  raw: string,
  loc: readonly (string | number)[] = LINES_LOC,
): { first: number; last: number } {
  const match = /^(\d+)-(\d+)$/.exec(raw);
  if (!match) {
    throw new InvalidInputError([linesIssue(loc, 'lines must be two integers a-b, such as 10-20')]);
  }
  return { first: Number(match[1]), last: Number(match[2]) };
}

/**
 * Lines `first`..`last` (1-based, inclusive) of `text`. `last` past the end is clipped; `first` below 1
 * or past the last line, `last` below `first` and non-integers are 422 issues at `loc`.
 */
export function sliceLines(
  text: string,
  first: number,
  last: number,
  loc: readonly (string | number)[] = LINES_LOC,
): LineSlice {
  if (!Number.isInteger(first) || !Number.isInteger(last)) {
    throw new InvalidInputError([linesIssue(loc, 'lines must be two integers a-b, such as 10-20')]);
  }
  const starts = lineStarts(text);
  const total = starts.length;
  if (first < 1) throw new InvalidInputError([linesIssue(loc, 'the first line is 1')]);
  if (first > total) {
    throw new InvalidInputError([linesIssue(loc, `line ${first} is past the last line (${total})`)]);
  }
  if (last < first) {
    throw new InvalidInputError([linesIssue(loc, 'the last line must not come before the first')]);
  }
  const clipped = Math.min(last, total);
  const end = clipped === total ? text.length : starts[clipped]!;
  return { text: text.slice(starts[first - 1], end), first, last: clipped, total };
}
