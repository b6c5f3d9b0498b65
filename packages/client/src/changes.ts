import { MdStoreApiError } from './errors.js';
import type { components } from './generated/openapi.js';
import type { RequestOptions, TypedApi } from './transport.js';

export type ChangeEvent = components['schemas']['ChangeEvent'];
export type ChangeList = components['schemas']['ChangeList'];

export interface ChangesQuery {
  /** Events with a greater `seq` (default 0). */
  since?: number;
  /** 1–1000, default 100. */
  limit?: number;
  project_id?: string;
  /** Seconds the server may hold the request while there is nothing new (0–60). */
  wait?: number;
}

export interface FollowOptions {
  /** Where to start: events with a greater `seq` (default 0). */
  since?: number;
  projectId?: string;
  /** Seconds each long poll is held (default 30). */
  waitSeconds?: number;
  /** Ends the iteration. */
  signal?: AbortSignal;
  /** Pause after a failed poll before the next, growing to `maxBackoffMs` (default 500 ms, 10 s). */
  backoffMs?: number;
  maxBackoffMs?: number;
}

/** Answers after which polling again cannot help: the caller must act (a `410` means list again). */
const FINAL_STATUSES = new Set([400, 401, 403, 404, 410, 422]);

const pause = (ms: number, signal: AbortSignal | undefined): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/** The change feed (extensions §7): pages, and a follower that resumes after disconnects. */
export class ChangesApi {
  constructor(private readonly api: TypedApi) {}

  /** One read of the feed: events after `since`, oldest first; with `wait`, held until one commits. */
  async list(query: ChangesQuery = {}, options?: RequestOptions): Promise<ChangeList> {
    return (await this.api.json('get', '/api/changes', { query }, options)).data;
  }

  /**
   * Every event from `since` on, as they commit: long polls one after the other, each from the last
   * `seq` seen, so a dropped connection or a restarted server loses nothing (the next poll resumes
   * there, after a growing pause). Ends when `signal` aborts; throws on an answer polling again cannot
   * mend (`410`: retention overtook the follower, list the project again; `401`, `403`, `404`).
   */
  async *follow(options: FollowOptions = {}): AsyncGenerator<ChangeEvent, void, undefined> {
    let since = options.since ?? 0;
    const minBackoff = options.backoffMs ?? 500;
    const maxBackoff = options.maxBackoffMs ?? 10_000;
    let backoff = minBackoff;
    const { signal } = options;
    while (!signal?.aborted) {
      let page: ChangeList;
      try {
        page = await this.list(
          {
            since,
            limit: 1000,
            wait: options.waitSeconds ?? 30,
            ...(options.projectId !== undefined && { project_id: options.projectId }),
          },
          signal ? { signal } : {},
        );
      } catch (error) {
        if (signal?.aborted) return;
        if (error instanceof MdStoreApiError && FINAL_STATUSES.has(error.status)) throw error;
        await pause(backoff, signal);
        backoff = Math.min(backoff * 2, maxBackoff);
        continue;
      }
      backoff = minBackoff;
      for (const event of page.changes) {
        since = event.seq;
        yield event;
      }
      since = Math.max(since, page.next_since);
    }
  }
}
