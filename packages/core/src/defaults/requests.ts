/**
 * The fair share of an instance's request handling (issue 34, "fair share"): one account cannot take the
 * store's connections from the others. Every request of an account works in the store (one connection at
 * a time) while it runs, so bounding the requests of one account that run at once bounds the connections
 * it can hold: with the Postgres pool's 10 connections and 4 per account, two busy accounts still leave
 * two connections to everyone else, and a third account's request waits behind at most the running ones,
 * never behind another account's queue.
 *
 * Held requests (`GET /api/changes` long polls and streams) are not counted here: they hold no connection
 * while they wait and have their own bounds (`HELD_LIMITS`).
 */
export const REQUEST_SHARE_LIMITS = Object.freeze({
  /** Requests of one account running at once on an instance (`MDSTORE_MAX_REQUESTS_PER_ACCOUNT`). */
  defaultRunningPerAccount: 4,
  /**
   * Requests of one account waiting for a running place (`MDSTORE_MAX_QUEUED_REQUESTS_PER_ACCOUNT`),
   * first come first served; past it the request is refused at once: `429` with `Retry-After`.
   */
  defaultWaitingPerAccount: 64,
  /** `Retry-After` of a request refused past the waiting bound, in seconds. */
  retryAfterSeconds: 1,
});
