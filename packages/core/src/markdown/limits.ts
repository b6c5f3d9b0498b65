import { INLINE_MDX_LIMITS, type MdxLimits } from './mdx-budget.js';
import { STEP_WORK_LIMIT } from './work-limits.js';

/**
 * What one step of work on user content may be given where it runs (in estimated nanoseconds of CPU,
 * work-budget.ts), and when an MDX file is parsed as MDX there.
 *
 * - Inline, on the thread that serves every request: one step's bound (`STEP_WORK_LIMIT`, ~100 ms).
 * - In a worker pool with a deadline and a memory limit (`ContentWork`, apps/server's piscina pool):
 *   the bounds of before the inline limit came back: an outline of up to 3 MiB, MDX parsed as MDX up
 *   to 256 KiB, a step of up to `POOL_STEP_WORK_LIMIT` (~3 s, one request's whole budget).
 */
export interface ContentWorkLimits {
  readonly stepWork: number;
  readonly mdx: MdxLimits;
  /**
   * The most headings (and links, for an outline) a step run elsewhere may give back, estimated before
   * the work (cost.ts, `answerItems`): receiving an answer and building its heading tree cost the
   * thread serving requests per item, about 5 µs each on a loaded machine (docs/reliability.md).
   */
  readonly answerItems: number;
}

/** The most items an answer from a pool may hold: ~100 ms of this thread's work on a loaded machine. */
export const POOL_ANSWER_ITEMS = 20_000;

/** The most estimated work one step may be given in a worker pool (as much as a whole request). */
export const POOL_STEP_WORK_LIMIT = 3_000_000_000;

/** The largest text an outline is made of, wherever it runs (as before the inline bound). */
export const OUTLINE_MAX_LENGTH = 3 * 1024 * 1024;

export const INLINE_WORK_LIMITS: ContentWorkLimits = {
  stepWork: STEP_WORK_LIMIT,
  mdx: INLINE_MDX_LIMITS,
  answerItems: Number.POSITIVE_INFINITY,
};

export const POOL_WORK_LIMITS: ContentWorkLimits = {
  stepWork: POOL_STEP_WORK_LIMIT,
  mdx: { maxLength: 256 * 1024, maxWork: 1_000_000_000 },
  answerItems: POOL_ANSWER_ITEMS,
};
