import {
  type ContentWorkTask,
  headingsTask,
  isMdStoreError,
  linksTask,
  outlineTask,
  POOL_WORK_LIMITS,
  type RenderLinks,
  type RenderTarget,
  renderTask,
} from '@mdstore/core';
import { type JsonParseAnswer, parseJsonTask } from './json.js';

/**
 * A content work pool's worker (pool.ts): the core's pure functions, with the pool's limits. Errors do
 * not cross threads with their codes, so a refusal of the core comes back as data.
 */
export interface ContentRequest extends ContentWorkTask {
  readonly op: 'outline' | 'headings' | 'render' | 'links';
  /** For `render`: the file rendered and where its links lead. */
  readonly filename?: string;
  readonly links?: RenderLinks;
  readonly targets?: ReadonlyArray<readonly [string, RenderTarget]>;
}

/** A large JSON request body to decode and parse (json.ts); its bytes are moved, not copied. */
export interface JsonRequest {
  readonly op: 'json';
  readonly bytes: Uint8Array;
}

export type WorkRequest = ContentRequest | JsonRequest;

export type WorkAnswer =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly code: string };

export default function work(request: WorkRequest): WorkAnswer | JsonParseAnswer {
  if (request.op === 'json') return parseJsonTask(request.bytes);
  const task = { text: request.text, mdx: request.mdx };
  try {
    const value =
      request.op === 'outline'
        ? outlineTask(task, POOL_WORK_LIMITS)
        : request.op === 'render'
          ? renderTask(
              { ...task, filename: request.filename!, links: request.links!, targets: request.targets ?? [] },
              POOL_WORK_LIMITS,
            )
          : request.op === 'links'
            ? linksTask(task, POOL_WORK_LIMITS)
            : headingsTask(task, POOL_WORK_LIMITS);
    return { ok: true, value };
  } catch (error) {
    if (isMdStoreError(error)) return { ok: false, code: error.code };
    throw error;
  }
}
