import { HELD_LIMITS } from './held.js';

/** Limits, defaults and timings of the change feed (extensions §7), defined once. */
export const CHANGES_LIMITS = Object.freeze({
  defaultLimit: 100,
  maxLimit: 1000,
  /** `wait` of a long poll, in seconds: at most this. */
  maxWaitSeconds: 60,
  /** Days an event is kept (`MDSTORE_CHANGES_RETENTION_DAYS`). */
  defaultRetentionDays: 30,
  /** Events removed per transaction when old ones expire. */
  expiryBatch: 1000,
  /** Open streams and held polls per key (`MDSTORE_CHANGES_MAX_STREAMS_PER_KEY`; see `HELD_LIMITS`). */
  defaultMaxStreamsPerKey: HELD_LIMITS.defaultMaxPerKey,
  /** A held request or stream reads the feed again at least this often, notice or not (a safety net). */
  safetyPollMs: 5_000,
  /** An SSE stream sends a comment line at least this often (§7: at most 15 s). */
  heartbeatMs: 10_000,
  /** Held requests check that their key is still valid this often (see `HELD_LIMITS.keyCheckMs`). */
  keyCheckMs: HELD_LIMITS.keyCheckMs,
});
