/**
 * The fair share of the content work pool (the server's worker threads for large parses, renders and
 * JSON bodies), defined once: the server's configuration reads it, docs/operations.md and
 * docs/reliability.md quote it.
 */
export const CONTENT_WORK_LIMITS = Object.freeze({
  /**
   * Pool tasks of one account at once, running and waiting (`MDSTORE_CONTENT_WORK_PER_ACCOUNT`): one
   * more of the same account is refused at once (`503` `CONTENT_WORK_BUSY`, `Retry-After: 1`) while the
   * pool's other places stay open to other accounts. With the pool's defaults (1 thread, 8 waiting)
   * one account takes at most 3 of the 9 places.
   */
  defaultTasksPerAccount: 3,
});
