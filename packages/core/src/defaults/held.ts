/**
 * The fair share of held requests (extensions §7: long polls `GET /api/changes?wait=` and SSE streams)
 * on one instance, defined once: the server's configuration reads the defaults, docs/operations.md and
 * docs/reliability.md quote them.
 *
 * A held request costs a socket, a timer and a notifier listener while it waits, and a feed read per
 * notice of its account; so the key, the account (across all its keys) and the instance each have a
 * bound on how many are open at once, and the keys of held requests are checked together (one store
 * read per key per `keyCheckMs`, whatever the number of its requests).
 */
export const HELD_LIMITS = Object.freeze({
  /** Streams and held polls of one key (`MDSTORE_CHANGES_MAX_STREAMS_PER_KEY`): past it `429`. */
  defaultMaxPerKey: 5,
  /** Streams and held polls of one account, all its keys (`MDSTORE_CHANGES_MAX_STREAMS_PER_ACCOUNT`): past it `429`. */
  defaultMaxPerAccount: 20,
  /** Streams and held polls of every account (`MDSTORE_CHANGES_MAX_STREAMS`): past it `503`. */
  defaultMaxPerInstance: 1000,
  /** `Retry-After` of a held request refused past one of the bounds above, in seconds. */
  retryAfterSeconds: 5,
  /**
   * The keys of held requests are read again this often (one read per key, shared by its requests);
   * a revoked or expired key's streams end and its polls answer `401`. Before anything is delivered the
   * key is also checked by a read that started after the events were read.
   */
  keyCheckMs: 1_000,
});
