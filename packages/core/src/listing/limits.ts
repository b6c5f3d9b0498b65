import { LIMITS } from '../validation/schemas.js';

/** The bounds of paged lists (extensions §3), each written once. */
export const LIST_LIMITS = {
  /** `limit` is 1 to 1000. */
  maxLimit: 1000,
  /** The page size of a request with `cursor` and no `limit`. */
  defaultLimit: 100,
  /** A longer prefix than the longest filename matches nothing; longer ones are refused. */
  maxPrefixBytes: LIMITS.filenameMaxBytes,
  /**
   * Rows read per statement when a list is walked without `limit` (or past folders): bounded memory
   * per statement whatever the project's size.
   */
  batchRows: 1000,
} as const;
