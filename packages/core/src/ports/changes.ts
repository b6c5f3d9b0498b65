import type { ChangeEventInput, ChangeEventRecord } from '../model/changes.js';

/** A page of an account's events (extensions §7): `seq` > `afterSeq`, oldest first, at most `limit`. */
export interface ChangeEventQuery {
  readonly accountId: string;
  readonly afterSeq: number;
  readonly limit: number;
  /** Events of these projects only, when given. */
  readonly projectIds?: readonly string[];
}

/** Where an account's feed stands: the last `seq` handed out, and the last one retention removed. */
export interface ChangeFeedHead {
  readonly lastSeq: number;
  /** Every event of the account with `seq` ≤ this is gone (0: none ever removed). */
  readonly prunedThrough: number;
}

/** Reading the feed; the records store implements it. */
export interface ChangeFeedReader {
  listChangeEvents(q: ChangeEventQuery): Promise<ChangeEventRecord[]>;
  /** The account's head (zeros for an account that never had an event). */
  findChangeFeedHead(q: { accountId: string }): Promise<ChangeFeedHead>;
}

/** Writing the feed, inside the transaction of the change (a transactional outbox). */
export interface ChangeFeedWriter {
  /**
   * Gives the events their `seq`s (per account, contiguous within one call, in the order given, larger
   * than every `seq` of the account committed before this transaction commits) and stores them. Returns
   * them with their `seq`s. The store serialises the writers of one account from here to the commit
   * (a row lock on the account's head), so `seq` order is commit order within an account.
   */
  appendChangeEvents(c: { events: readonly ChangeEventInput[] }): Promise<ChangeEventRecord[]>;
  /**
   * Retention: deletes up to about `limit` of the oldest events written before `before`, and raises
   * each account's `prunedThrough` to the largest `seq` deleted. Returns how many were deleted.
   */
  deleteChangeEventsBefore(c: { before: number; limit: number }): Promise<number>;
}

/**
 * Tells this process that an account has new events, whichever instance committed them (in process for
 * SQLite; Postgres `LISTEN/NOTIFY` across instances). A hint only: a listener reads the feed to learn what.
 */
export interface ChangeNotifier {
  /** Calls `listener` after events of an account commit; returns the unsubscribe. */
  subscribe(listener: (accountId: string) => void): () => void;
}
