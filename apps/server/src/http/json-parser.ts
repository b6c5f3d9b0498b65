import { type ContentWork, isMdStoreError } from '@mdstore/core';
import { JSON_MAX_VALUES } from '../content-work/json.js';
import { JsonRefusal, PiscinaContentWork } from '../content-work/pool.js';
import { INLINE_JSON_MAX_BYTES, type JsonParser, jsonInvalid } from './body.js';
import { HttpError } from './errors.js';

/**
 * The server's `JsonParser` (http/body.ts): JSON bodies above the inline bound are decoded and parsed in
 * the content work pool, within its deadline, memory limit and queue (503 when busy), so a changeset of
 * 81 MiB never holds the thread serving requests. Refusals keep the interface's shapes: 400
 * `json_invalid` as inline, 413 for a body past the pool's bounds (more than `JSON_MAX_VALUES` values,
 * its deadline or memory). Without a pool (`MDSTORE_CONTENT_WORK_THREADS=0`) a body above the inline
 * bound is refused with 413 before it is parsed, as an outline above one inline step's bound is.
 */
export function jsonParserOf(work: ContentWork): JsonParser {
  if (!(work instanceof PiscinaContentWork)) {
    return async () => {
      throw tooLarge(`the maximum without a content work pool is ${INLINE_JSON_MAX_BYTES} bytes`);
    };
  }
  return async (bytes, signal) => {
    try {
      return await work.parseJson(bytes, signal);
    } catch (error) {
      if (error instanceof JsonRefusal)
        throw error.reason === 'invalid' ? jsonInvalid() : tooLarge(`at most ${JSON_MAX_VALUES} JSON values`);
      if (isMdStoreError(error, 'WORK_LIMIT_EXCEEDED'))
        throw tooLarge('past the parse limits of the worker pool');
      throw error;
    }
  };
}

const tooLarge = (why: string) => new HttpError(413, `Request body too large: ${why}`);
