import { isMdStoreError, WorkLimitExceededError } from '../errors.js';
import { answerItems } from '../markdown/cost.js';
import { type ContentWorkLimits, POOL_ANSWER_ITEMS } from '../markdown/limits.js';
import { STEP_WORK_LIMIT } from '../markdown/work-limits.js';
import type { ContentWork, ContentWorkTask } from '../ports/content-work.js';
import type { ContentLinks } from './entry.js';
import { extractLinks, type FoundLinks, LINKS_MAX_BYTES, linksCost, scannedLinks } from './extract.js';

/** The links of a task's text, where `limits` allow; past them, `WORK_LIMIT_EXCEEDED`. */
export function linksTask(task: ContentWorkTask, limits: ContentWorkLimits): FoundLinks {
  if (linksCost(task.text, task.mdx, limits.mdx) > limits.stepWork)
    throw new WorkLimitExceededError('estimate');
  // contentLinks sends a text here only when the scanner gave up on it: the parse, not a second scan.
  return extractLinks(task.text, { mdx: task.mdx, mdxLimits: limits.mdx, scan: false });
}

/** Whether a filename is read as MDX. */
export const isMdx = (filename: string): boolean => filename.endsWith('.mdx');

/**
 * The links of a content for the link index. A CommonMark text is first read by the scanner
 * (scan.ts), here, once: linear in a text capped at `LINKS_MAX_BYTES`, so no estimate of its work is
 * needed before it, and its answer is the parser's. Its size is: a text that may hold more than
 * `POOL_ANSWER_ITEMS` links and headings (`answerItems`: `[` and heading-like lines, an upper bound of
 * what the parser reports) is `too_large` without a scan (its entry would be up to that many rows in
 * the write's transaction; the same bound as an answer from the pool). When the scanner gives up (MDX,
 * or a construct outside its subset), the parse runs, bounded by the rule of work on user content
 * (markdown/content-work.ts): the cost is estimated first; under one inline step's bound the links are
 * extracted here; above it they are extracted in `work` (when it can: `work.links`) within its limits
 * and deadline; past those, or when the pool refuses (busy, deadline, memory), or for a content of
 * more than `LINKS_MAX_BYTES` (`truncated`), the file's links are not indexed: `too_large`. A write is
 * never refused or held for its links.
 */
export async function contentLinks(
  work: ContentWork,
  o: { text: string; truncated: boolean; filename: string; signal?: AbortSignal },
): Promise<ContentLinks> {
  if (o.truncated || o.text.length > LINKS_MAX_BYTES) return 'too_large';
  const task = { text: o.text, mdx: isMdx(o.filename) };
  // An upper bound of the links and headings the text may give, judged once (one pass).
  const items = answerItems(task.text, true);
  if (!task.mdx) {
    if (items > POOL_ANSWER_ITEMS) return 'too_large';
    const scanned = scannedLinks(task.text);
    if (scanned !== null) return scanned;
  }
  const cost = linksCost(task.text, task.mdx, work.limits.mdx);
  if (cost <= STEP_WORK_LIMIT)
    return extractLinks(task.text, { mdx: task.mdx, mdxLimits: work.limits.mdx, scan: false });
  if (!work.links || cost > work.limits.stepWork || items > work.limits.answerItems) {
    return 'too_large';
  }
  try {
    return await work.links(task, o.signal);
  } catch (error) {
    if (isMdStoreError(error, 'WORK_LIMIT_EXCEEDED') || isMdStoreError(error, 'CONTENT_WORK_BUSY'))
      return 'too_large';
    throw error;
  }
}
