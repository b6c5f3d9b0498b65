import type { IncomingMessage, ServerResponse } from 'node:http';
import { RateLimitedError, REQUEST_SHARE_LIMITS } from '@mdstore/core';
import { onResponseClose } from './close-hook.js';

export interface AccountShareLimits {
  /** Requests of one account running at once (`MDSTORE_MAX_REQUESTS_PER_ACCOUNT`). */
  readonly running: number;
  /** Requests of one account waiting for a running place (`MDSTORE_MAX_QUEUED_REQUESTS_PER_ACCOUNT`). */
  readonly waiting: number;
}

export const DEFAULT_ACCOUNT_SHARE: AccountShareLimits = {
  running: REQUEST_SHARE_LIMITS.defaultRunningPerAccount,
  waiting: REQUEST_SHARE_LIMITS.defaultWaitingPerAccount,
};

interface AccountQueue {
  running: number;
  readonly waiting: Array<() => void>;
}

/**
 * The requests of each account on this instance (`REQUEST_SHARE_LIMITS`): at most `running` of one
 * account run at once, `waiting` more wait their turn in arrival order, and past that a request is
 * refused at once (`RATE_LIMITED`, 429 with `Retry-After`). Accounts never wait for each other here:
 * each has its own queue, so a busy account delays only its own requests. The map holds an entry only
 * while an account has a request running or waiting.
 */
export class AccountShare {
  private readonly accounts = new Map<string, AccountQueue>();

  constructor(private readonly limits: AccountShareLimits = DEFAULT_ACCOUNT_SHARE) {}

  /**
   * A running place for a request of `account`, now or after the requests of that account before it;
   * resolves to the function that gives the place back (call it once). Refused past the waiting bound;
   * a waiting request whose `signal` aborts leaves the queue.
   */
  async enter(account: string, signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    let queue = this.accounts.get(account);
    if (!queue) {
      queue = { running: 0, waiting: [] };
      this.accounts.set(account, queue);
    }
    const own = queue;
    if (own.running < this.limits.running) {
      own.running++;
      return this.leaver(account, own);
    }
    if (own.waiting.length >= this.limits.waiting)
      throw new RateLimitedError(REQUEST_SHARE_LIMITS.retryAfterSeconds);
    await new Promise<void>((resolve, reject) => {
      const turn = () => {
        signal?.removeEventListener('abort', leave);
        resolve();
      };
      const leave = () => {
        own.waiting.splice(own.waiting.indexOf(turn), 1);
        this.forget(account, own);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', leave, { once: true });
      own.waiting.push(turn);
    });
    return this.leaver(account, own);
  }

  /** Requests of `account` running and waiting now (tests, metrics). */
  heldBy(account: string): { running: number; waiting: number } {
    const queue = this.accounts.get(account);
    return { running: queue?.running ?? 0, waiting: queue?.waiting.length ?? 0 };
  }

  /** Accounts with a request running or waiting (tests: the map does not grow without bound). */
  get size(): number {
    return this.accounts.size;
  }

  private leaver(account: string, queue: AccountQueue): () => void {
    let left = false;
    return () => {
      if (left) return;
      left = true;
      // The place passes straight to the next waiting request of the account: `running` stays.
      const next = queue.waiting.shift();
      if (next) next();
      else {
        queue.running--;
        this.forget(account, queue);
      }
    };
  }

  private forget(account: string, queue: AccountQueue): void {
    if (queue.running === 0 && queue.waiting.length === 0) this.accounts.delete(account);
  }
}

/**
 * Takes a place of `share` for the request of `account` and gives it back when the response is done
 * or the connection closes, whichever comes first; a request whose client goes away while it waits
 * leaves the queue.
 */
export async function holdShareFor(
  share: AccountShare,
  account: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const gone = new AbortController();
  const abandon = () => gone.abort(new Error('Client closed the connection'));
  const stopWaiting = onResponseClose(res, abandon);
  let release: () => void;
  try {
    release = await share.enter(account, gone.signal);
  } finally {
    stopWaiting();
  }
  if (res.writableEnded || res.destroyed || req.destroyed) {
    release();
    return;
  }
  onResponseClose(res, release);
  res.once('finish', release);
}
