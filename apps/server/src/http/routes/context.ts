import type { MdStore } from '@mdstore/core';
import type { Request, Response } from 'express';
import type { JsonParser } from '../body.js';
import type { ChangeFeedDeps } from '../changes-feed.js';
import { onResponseClose } from '../close-hook.js';
import type { MultipartLimits } from '../multipart.js';
import type { ReadinessCheck } from '../readiness.js';

export interface HttpLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export type Handler = (req: Request, res: Response) => Promise<void> | void;

export interface RouteDeps {
  readonly store: MdStore;
  readonly logger: HttpLogger;
  readonly maxJsonBytes: number;
  /**
   * Where JSON bodies above the inline bound (`INLINE_JSON_MAX_BYTES`) are parsed: the server's content
   * work pool. Without one (embedding, tests), on this thread.
   */
  readonly jsonParser?: JsonParser;
  readonly multipartLimits: MultipartLimits;
  /** Answers `/readyz`; without one (embedding, tests) the app is ready whenever it answers. */
  readonly readiness?: ReadinessCheck;
  /** Wake-ups and bounds of held change reads (extensions §7); without them, a held read polls slowly. */
  readonly changes?: ChangeFeedDeps;
}

/** Path parameters, percent-decoded by the router (`%2F` in a filename stays inside its segment). */
export const projectIdOf = (req: Request): string => String(req.params.project_id ?? '');
export const filenameOf = (req: Request): string => String(req.params.filename ?? '');

/**
 * Aborted when the client goes away before the answer is complete. Made on first use, by the routes that
 * stream (uploads, downloads, content): an AbortController and a listener per request cost the JSON
 * routes measurable time for nothing.
 */
export const signalOf = (res: Response): AbortSignal => {
  const existing = res.locals.signal as AbortSignal | undefined;
  if (existing) return existing;
  const controller = new AbortController();
  const abortIfIncomplete = () => {
    if (!res.writableFinished) controller.abort(new Error('The client went away'));
  };
  if (res.closed) abortIfIncomplete();
  else onResponseClose(res, abortIfIncomplete);
  res.locals.signal = controller.signal;
  return controller.signal;
};
