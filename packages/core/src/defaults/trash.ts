/** Limits and defaults of the trash (extensions §5), defined once. */
export const TRASH_LIMITS = Object.freeze({
  /** Expired items one reconciliation claims per transaction. */
  expiryBatch: 100,
});

export const DAY_MS = 86_400_000;
