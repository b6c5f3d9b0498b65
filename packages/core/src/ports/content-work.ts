import type { FoundLinks } from '../links/extract.js';
import type { ContentWorkLimits } from '../markdown/limits.js';
import type { Outline } from '../markdown/outline.js';
import type { DocumentHeading } from '../markdown/parse.js';
import type { RenderTask } from '../markdown/render/render.js';

/** One step of work on a text: plain data, so that it can be sent to another thread. */
export interface ContentWorkTask {
  readonly text: string;
  /** Parse as MDX (within `limits.mdx`), else CommonMark. */
  readonly mdx: boolean;
}

/**
 * Where the steps of work on user content that are too costly for the thread serving every request run
 * (markdown/content-work.ts decides which step goes where: a step estimated under one inline step's
 * bound never comes here). The core's default runs them inline with the inline limits (embedders
 * without threads); the server's runs them in a worker pool with a deadline and a memory limit, and so
 * can afford larger `limits`.
 *
 * Both methods answer what the core's pure functions of the same name answer for `limits`, or reject
 * with `WORK_LIMIT_EXCEEDED` (the step's estimate passes `limits.stepWork`, or it passed its deadline
 * or memory limit) or `CONTENT_WORK_BUSY` (no capacity now). `signal` aborts the step (the request
 * went away).
 */
export interface ContentWork {
  readonly limits: ContentWorkLimits;
  outline(task: ContentWorkTask, signal?: AbortSignal): Promise<Outline>;
  /** The headings of the text (no links), as the sections use them. */
  headings(task: ContentWorkTask, signal?: AbortSignal): Promise<DocumentHeading[]>;
  /** The sanitised HTML of the text (extensions §11), as `renderHtml` gives it. */
  render(task: RenderTask, signal?: AbortSignal): Promise<string>;
  /**
   * The links of the text for the link index (extensions §9). Optional: without it, a text above one
   * inline step's bound gets no link index (`too_large`).
   */
  links?(task: ContentWorkTask, signal?: AbortSignal): Promise<FoundLinks>;
}
