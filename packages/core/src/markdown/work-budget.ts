import { EditConflictError } from '../errors.js';
import { headingsParseCost } from './cost.js';
import { type ContentWorkLimits, INLINE_WORK_LIMITS } from './limits.js';
import { type DocumentHeading, parseDocument } from './parse.js';
import { STEP_WORK_LIMIT, WORK_BUDGET } from './work-limits.js';

/**
 * Work on user content runs on the thread that serves every request, so every step of it (one parse,
 * one edit, one outline) has its cost estimated from its input BEFORE it runs (cost.ts, a linear scan),
 * and is refused past a bound, never started:
 *
 * - one step may cost at most `STEP_WORK_LIMIT` (about 100 ms of CPU on this service's CI machine):
 *   that is how long the event loop may be held by one request at a time;
 * - one request (a PATCH of up to 100 edits) may cost at most `WORK_BUDGET` in all (about 3 s of CPU),
 *   paid step by step with a turn of the event loop between steps (`applyEditsInTurns`).
 *
 * Units are estimated nanoseconds of CPU, from the measurements in docs/reliability.md. An edit the
 * budget cannot pay is refused (409, `type` `work_budget`) and, edits being all or nothing, so is the
 * request: the client splits its edits (or, for a step too large by itself, works on a smaller file).
 */
export interface WorkBudget {
  readonly total: number;
  /** Units still allowed. */
  remaining: number;
}

/** What one pass over a code unit costs (search, splice, line count). */
export const SCAN_COST = 2;
/** What one replaced occurrence costs (one more string piece made and joined). */
export const OCCURRENCE_COST = 50;

export { STEP_WORK_LIMIT, WORK_BUDGET };

/**
 * From this length on (UTF-16 units), one linear step over a text (decoding, searching, splicing,
 * encoding, diff trimming) is worth a turn of the event loop after it: about ten milliseconds.
 */
export const LARGE_TEXT = 1024 * 1024;

/** Lets every other request run before the next step of this one. */
export const giveTurn = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** A turn after a step on `text` when the text is large (see `LARGE_TEXT`). */
export const turnAfterLargeStep = async (text: { readonly length: number }): Promise<void> => {
  if (text.length >= LARGE_TEXT) await giveTurn();
};

export const newWorkBudget = (units: number = WORK_BUDGET): WorkBudget => ({
  total: units,
  remaining: units,
});

const EDIT_ADVICE = 'send the edits in several requests, or edit a smaller file';

/**
 * Spends `units` on one step, or refuses before the work is done: the step alone costs more than
 * `stepLimit` (`STEP_WORK_LIMIT` inline; more for a step run in a worker pool, limits.ts), or the request
 * needs more than it may have. Without a budget only the step is bounded.
 */
export function spendWork(
  budget: WorkBudget | undefined,
  units: number,
  loc: readonly (string | number)[],
  advice: string = EDIT_ADVICE,
  stepLimit: number = STEP_WORK_LIMIT,
): void {
  if (units > stepLimit || (budget !== undefined && units > budget.remaining)) throw workRefusal(loc, advice);
  if (budget) budget.remaining -= units;
}

export const SECTION_ADVICE = 'read the file by lines (?lines=) instead';

/** A refusal of a step's work past its bound (409 `work_budget`), when the estimate or a pool says so. */
export const workRefusal = (
  loc: readonly (string | number)[],
  advice: string = EDIT_ADVICE,
): EditConflictError =>
  new EditConflictError([
    {
      loc,
      msg:
        'Too much work for one request on this text: this step would pass the limit of what one ' +
        `request may do (nothing was changed); ${advice}`,
      type: 'work_budget',
    },
  ]);

/**
 * The headings of `text` (no links), its estimated cost paid first (from `budget` when there is one),
 * within the step bound of where it runs (`limits`, inline by default).
 */
export function parseHeadings(
  text: string,
  o: {
    mdx: boolean;
    budget: WorkBudget | undefined;
    loc: readonly (string | number)[];
    advice?: string;
    limits?: ContentWorkLimits;
  },
): DocumentHeading[] {
  const limits = o.limits ?? INLINE_WORK_LIMITS;
  spendWork(o.budget, headingsParseCost(text, o.mdx, limits.mdx), o.loc, o.advice, limits.stepWork);
  return parseDocument(text, { mdx: o.mdx, links: false, mdxLimits: limits.mdx }).headings;
}
