import type { ChangeEventRecord } from '../model/changes.js';

/** A page of an account's events (extensions §7): `seq` > `afterSeq`, oldest first, at most `limit`. */
export interface ChangeEventQuery {
  readonly accountId: string;
  readonly afterSeq: number;
  readonly limit: number;
  /** Events of these projects only, when given. */
  readonly projectIds?: readonly string[];
}

/** Reading the feed; the records store implements it. */
export interface ChangeFeedReader {
  listChangeEvents(q: ChangeEventQuery): Promise<ChangeEventRecord[]>;
}

/**
 * Tells this process that an account has new events, whichever instance committed them (in process for
 * SQLite; Postgres `LISTEN/NOTIFY` across instances). A hint only: a listener reads the feed to learn what.
 */
export interface ChangeNotifier {
  /** Calls `listener` after events of an account commit; returns the unsubscribe. */
  subscribe(listener: (accountId: string) => void): () => void;
}
