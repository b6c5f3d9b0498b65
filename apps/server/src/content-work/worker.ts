import {
  type ContentWorkTask,
  headingsTask,
  isMdStoreError,
  outlineTask,
  POOL_WORK_LIMITS,
  type RenderLinks,
  renderTask,
} from '@mdstore/core';

/**
 * A content work pool's worker (pool.ts): the core's pure functions, with the pool's limits. Errors do
 * not cross threads with their codes, so a refusal of the core comes back as data.
 */
export interface WorkRequest extends ContentWorkTask {
  readonly op: 'outline' | 'headings' | 'render';
  /** For `render`: the file rendered and where its links lead. */
  readonly filename?: string;
  readonly links?: RenderLinks;
}

export type WorkAnswer =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly code: string };

export default function work(request: WorkRequest): WorkAnswer {
  const task = { text: request.text, mdx: request.mdx };
  try {
    const value =
      request.op === 'outline'
        ? outlineTask(task, POOL_WORK_LIMITS)
        : request.op === 'render'
          ? renderTask({ ...task, filename: request.filename!, links: request.links! }, POOL_WORK_LIMITS)
          : headingsTask(task, POOL_WORK_LIMITS);
    return { ok: true, value };
  } catch (error) {
    if (isMdStoreError(error)) return { ok: false, code: error.code };
    throw error;
  }
}
