import { EditConflictError } from '../errors.js';
import { type DocumentHeading, parseDocument } from './parse.js';

/**
 * Editing runs on the thread that serves every request, and one PATCH may carry 100 edits on a 10 MiB
 * file: measured on this service's CI machine, each edit's linear pass over such a text (search, splice)
 * costs about 20 ms of CPU, a `replace` with a million occurrences about 200 ms, and a parse of its
 * headings (sections) about 0.8 s. Unbounded, one small request could cost half a minute of CPU.
 *
 * So each request gets a budget of work, in rough units of one pass over one UTF-16 code unit, and
 * every edit pays before it works: its pass over the text, each occurrence a `replace` replaces, each
 * parse. An edit the budget cannot pay is refused (409, `type` `work_budget`) and, edits being all or
 * nothing, so is the request: the client splits its edits. The budget is about 3 s of CPU: three
 * heading parses of a 10 MiB file, or 100 linear edits of it; every request on files up to about 2 MiB
 * fits whatever its edits. `applyEditsInTurns` gives the event loop a turn between edits, so that the
 * thread is held for one edit's work at a time (one parse, at most about 0.8 s, on 10 MiB).
 */
export interface WorkBudget {
  readonly total: number;
  /** Units still allowed. */
  remaining: number;
}

/** What one pass over a code unit costs. */
export const SCAN_COST = 1;
/** What a parse costs per code unit (headings only: block structure, and the inline text of headings). */
export const PARSE_COST = 40;
/** What one replaced occurrence costs (one more string piece made and joined). */
export const OCCURRENCE_COST = 100;

export const WORK_BUDGET = 1536 * 1024 * 1024;

/**
 * The largest text whose outline (a whole parse, links included, about four times a headings parse) is
 * given: about 0.8 s of CPU, as much as one heading parse of a 10 MiB file. Above it, `GET …/outline`
 * is refused (413) rather than holding the thread for seconds.
 */
export const OUTLINE_MAX_LENGTH = 3 * 1024 * 1024;

export const newWorkBudget = (units: number = WORK_BUDGET): WorkBudget => ({
  total: units,
  remaining: units,
});

/** Spends `units`, or refuses before the work is done: the request needs more than it may have. */
export function spendWork(
  budget: WorkBudget | undefined,
  units: number,
  loc: readonly (string | number)[],
): void {
  if (!budget) return;
  if (units > budget.remaining) {
    throw new EditConflictError([
      {
        loc,
        msg:
          'Too much work for one request on a text this large: this edit would pass the limit of what ' +
          'one request may do (nothing was changed); send the edits in several requests',
        type: 'work_budget',
      },
    ]);
  }
  budget.remaining -= units;
}

/** The headings of `text` (no links), paid from `budget` when there is one. */
export function parseHeadings(
  text: string,
  o: { mdx: boolean; budget: WorkBudget | undefined; loc: readonly (string | number)[] },
): DocumentHeading[] {
  spendWork(o.budget, PARSE_COST * text.length, o.loc);
  return parseDocument(text, { mdx: o.mdx, links: false }).headings;
}
