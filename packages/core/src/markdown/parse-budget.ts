import { EditConflictError } from '../errors.js';
import { type DocumentHeading, parseDocument } from './parse.js';

/**
 * Parsing is the costly part of editing and reading Markdown: markdown-it needs about 0.2 s of CPU per
 * MiB for a whole parse and a third of that for headings only (measured on real READMEs), all of it on
 * the thread that serves every request. A request that names sections re-parses after each edit that
 * changed the text, so one PATCH of 100 section edits on a 10 MiB file would hold the thread for over
 * a minute. A budget bounds the work of one request instead: each parse spends the length of the text
 * it parses, and a parse the budget cannot pay is refused (409, `type` `parse_budget`) before it
 * starts. The numbers are in UTF-16 code units, what the parser walks.
 */
export interface ParseBudget {
  readonly total: number;
  /** Code units still allowed; spent by each parse. */
  remaining: number;
}

/**
 * Heading parses (sections) one request may make in all: three parses of a 10 MiB file, or all 100
 * edits of a request on a file up to 320 KiB. About two seconds of CPU at worst, in slices of one parse
 * each (see `applyEditsInTurns`), so the thread is never held for more than one parse at a time.
 */
export const SECTION_PARSE_BUDGET = 32 * 1024 * 1024;

/**
 * The largest text whose outline (a whole parse, links included) is given: under a second of CPU.
 * Above it, `GET …/outline` is refused (413) rather than holding the thread for seconds.
 */
export const OUTLINE_MAX_LENGTH = 4 * 1024 * 1024;

export const newParseBudget = (units: number = SECTION_PARSE_BUDGET): ParseBudget => ({
  total: units,
  remaining: units,
});

/** Spends `length` from the budget, or refuses: the request needs more parsing than it may have. */
export function spendParse(
  budget: ParseBudget | undefined,
  length: number,
  loc: readonly (string | number)[],
): void {
  if (!budget) return;
  if (length > budget.remaining) {
    throw new EditConflictError([
      {
        loc,
        msg:
          `Too much Markdown to parse for one request: finding this section needs a parse of ${length} ` +
          `characters and ${budget.remaining} are left of the ${budget.total} one request may parse; ` +
          'send the remaining section edits in another request',
        type: 'parse_budget',
      },
    ]);
  }
  budget.remaining -= length;
}

/** The headings of `text` (no links), paid from `budget` when there is one. */
export function parseHeadings(
  text: string,
  o: { mdx: boolean; budget: ParseBudget | undefined; loc: readonly (string | number)[] },
): DocumentHeading[] {
  spendParse(o.budget, text.length, o.loc);
  return parseDocument(text, { mdx: o.mdx, links: false }).headings;
}
