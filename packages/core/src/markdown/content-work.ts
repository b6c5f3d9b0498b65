import { isMdStoreError, OutlineTooLargeError, WorkLimitExceededError } from '../errors.js';
import { linksTask } from '../links/work.js';
import type { ContentWork, ContentWorkTask } from '../ports/content-work.js';
import { answerItems, headingsParseCost, outlineCost, renderCost } from './cost.js';
import { type ContentWorkLimits, INLINE_WORK_LIMITS, OUTLINE_MAX_LENGTH } from './limits.js';
import { type Outline, outline } from './outline.js';
import { type DocumentHeading, parseDocument } from './parse.js';
import { type RenderTask, renderHtml } from './render/render.js';
import { spendWork, type WorkBudget, workRefusal } from './work-budget.js';
import { STEP_WORK_LIMIT } from './work-limits.js';

/**
 * The rule of where a step of work on user content runs (docs/architecture.md):
 * - its cost is estimated from its input before anything else (cost.ts, a linear scan);
 * - under one inline step's bound (`STEP_WORK_LIMIT`, ~100 ms) it runs inline: no thread hop for a
 *   small file;
 * - above it and under the bounds of the `ContentWork` in use (`limits`: the inline ones by default, so
 *   nothing more is allowed; a worker pool's are larger) it is sent there, with the request's signal;
 * - past those (its estimated work, or the items its answer may hold: what comes back costs this
 *   thread per heading and link) it is refused before any work, with the step's documented answer
 *   (413 for an outline, 409 `work_budget` for a section or a section edit), as it is when the pool
 *   stops it (deadline, memory limit).
 * MDX is parsed as MDX within the MDX limits of the `ContentWork` in use, wherever the step runs, so an
 * answer never depends on where it was computed.
 */

/** The outline of a task's text, where `limits` allow; past them, `WORK_LIMIT_EXCEEDED`. */
export function outlineTask(task: ContentWorkTask, limits: ContentWorkLimits): Outline {
  try {
    return outline(task.text, { mdx: task.mdx }, limits);
  } catch (error) {
    if (isMdStoreError(error, 'OUTLINE_TOO_LARGE')) throw new WorkLimitExceededError('estimate');
    throw error;
  }
}

/** The headings of a task's text (no links), where `limits` allow; past them, `WORK_LIMIT_EXCEEDED`. */
export function headingsTask(task: ContentWorkTask, limits: ContentWorkLimits): DocumentHeading[] {
  if (headingsParseCost(task.text, task.mdx, limits.mdx) > limits.stepWork) {
    throw new WorkLimitExceededError('estimate');
  }
  return parseDocument(task.text, { mdx: task.mdx, links: false, mdxLimits: limits.mdx }).headings;
}

/** The HTML of a render task, where `limits` allow; past them, `WORK_LIMIT_EXCEEDED`. */
export function renderTask(task: RenderTask, limits: ContentWorkLimits): string {
  if (renderCost(task.text, task.mdx) > limits.stepWork) throw new WorkLimitExceededError('estimate');
  return renderHtml(task);
}

/** The default `ContentWork`: inline, with the inline limits (nothing beyond one step's bound). */
export const inlineContentWork: ContentWork = {
  limits: INLINE_WORK_LIMITS,
  outline: async (task) => outlineTask(task, INLINE_WORK_LIMITS),
  headings: async (task) => headingsTask(task, INLINE_WORK_LIMITS),
  render: async (task) => renderTask(task, INLINE_WORK_LIMITS),
  links: async (task) => linksTask(task, INLINE_WORK_LIMITS),
};

/** `limits` with the inline step bound: what runs on this thread. */
const inlineStep = (work: ContentWork): ContentWorkLimits => ({ ...work.limits, stepWork: STEP_WORK_LIMIT });

/** `GET …/outline`'s outline: inline, in `work`, or refused (413) by the rule above. */
export async function outlineWithin(
  work: ContentWork,
  task: ContentWorkTask,
  signal?: AbortSignal,
): Promise<Outline> {
  if (task.text.length > OUTLINE_MAX_LENGTH) throw new OutlineTooLargeError();
  const cost = outlineCost(task.text, task.mdx, work.limits.mdx);
  if (cost <= STEP_WORK_LIMIT) return outline(task.text, { mdx: task.mdx }, inlineStep(work));
  if (cost > work.limits.stepWork || answerItems(task.text, true) > work.limits.answerItems) {
    throw new OutlineTooLargeError();
  }
  try {
    return await work.outline(task, signal);
  } catch (error) {
    if (isMdStoreError(error, 'WORK_LIMIT_EXCEEDED')) throw new OutlineTooLargeError();
    throw error;
  }
}

export interface HeadingsWithinOptions {
  readonly budget: WorkBudget | undefined;
  readonly loc: readonly (string | number)[];
  readonly advice?: string;
  readonly signal?: AbortSignal;
}

/** A headings parse's estimated cost with `work`'s MDX limits, and whether it runs inline. */
export function headingsCost(work: ContentWork, task: ContentWorkTask): { cost: number; inline: boolean } {
  const cost = headingsParseCost(task.text, task.mdx, work.limits.mdx);
  return { cost, inline: cost <= STEP_WORK_LIMIT };
}

/** The inline half of `headingsWithin`: for a step `headingsCost` says is inline. */
export function inlineHeadings(
  work: ContentWork,
  task: ContentWorkTask,
  cost: number,
  o: HeadingsWithinOptions,
): DocumentHeading[] {
  spendWork(o.budget, cost, o.loc, o.advice, STEP_WORK_LIMIT);
  return parseDocument(task.text, { mdx: task.mdx, links: false, mdxLimits: inlineStep(work).mdx }).headings;
}

/** The pooled half of `headingsWithin`: for a step above the inline bound. */
export async function pooledHeadings(
  work: ContentWork,
  task: ContentWorkTask,
  cost: number,
  o: HeadingsWithinOptions,
): Promise<DocumentHeading[]> {
  if (answerItems(task.text, false) > work.limits.answerItems) throw workRefusal(o.loc, o.advice);
  spendWork(o.budget, cost, o.loc, o.advice, work.limits.stepWork);
  try {
    return await work.headings(task, o.signal);
  } catch (error) {
    if (isMdStoreError(error, 'WORK_LIMIT_EXCEEDED')) throw workRefusal(o.loc, o.advice);
    throw error;
  }
}

/**
 * The headings of a text for sections and section edits: inline, in `work`, or refused (409
 * `work_budget`) by the rule above; the estimated cost is paid from `budget` first.
 */
export async function headingsWithin(
  work: ContentWork,
  task: ContentWorkTask,
  o: HeadingsWithinOptions,
): Promise<DocumentHeading[]> {
  const { cost, inline } = headingsCost(work, task);
  return inline ? inlineHeadings(work, task, cost, o) : pooledHeadings(work, task, cost, o);
}

/**
 * `GET …/files/{filename}?format=html`'s HTML: inline, in `work`, or refused by the rule above with the
 * outline's answer (413): a file too large to render is too large to outline.
 */
export async function renderWithin(
  work: ContentWork,
  task: RenderTask,
  signal?: AbortSignal,
): Promise<string> {
  if (task.text.length > OUTLINE_MAX_LENGTH) throw new OutlineTooLargeError();
  const cost = renderCost(task.text, task.mdx);
  if (cost <= STEP_WORK_LIMIT) return renderHtml(task);
  if (cost > work.limits.stepWork) throw new OutlineTooLargeError();
  try {
    return await work.render(task, signal);
  } catch (error) {
    if (isMdStoreError(error, 'WORK_LIMIT_EXCEEDED')) throw new OutlineTooLargeError();
    throw error;
  }
}
