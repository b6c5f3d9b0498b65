export interface WebhookLimits {
  readonly retryDelaysMs: readonly number[];
  readonly timeoutMs: number;
  readonly leaseMs: number;
  readonly feedPage: number;
  readonly sweepMs: number;
  readonly urlMaxBytes: number;
  readonly secretBytes: number;
  readonly deliveriesPageMax: number;
  readonly deliveriesPageDefault: number;
  /** Webhooks of one account (issue 34): the listing's bound; past it `POST /api/webhooks` is 409. */
  readonly maxPerAccount: number;
  readonly errorMaxChars: number;
  /** Days a delivery attempt stays in the log (removed by reconciliation), and how many per transaction. */
  readonly deliveriesRetentionDays: number;
  readonly deliveriesExpiryBatch: number;
}

/** Timings and limits of webhook delivery (extensions §7), defined once. */
export const WEBHOOK_LIMITS: WebhookLimits = Object.freeze({
  /** Waits after each failed attempt (Standard Webhooks' schedule); after the last one the webhook is disabled. */
  retryDelaysMs: Object.freeze([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]),
  /** One attempt's whole time: connect, send, answer. */
  timeoutMs: 10_000,
  /** How long a claim on a webhook lasts; longer than an attempt, renewed at each one. */
  leaseMs: 60_000,
  /** Events read from the feed per step. */
  feedPage: 100,
  /** How often an idle engine looks for due retries and expired leases (besides notifier wake-ups). */
  sweepMs: 30_000,
  urlMaxBytes: 2048,
  /** The secret's random bytes (`whsec_` + base64). */
  secretBytes: 24,
  /** Deliveries per page of the log. */
  deliveriesPageMax: 100,
  deliveriesPageDefault: 20,
  maxPerAccount: 100,
  /** The longest error text kept in the deliveries log. */
  errorMaxChars: 200,
  deliveriesRetentionDays: 30,
  deliveriesExpiryBatch: 1000,
});

/** The timings `scaledWebhookTimings` shortens: the retry schedule, an attempt's timeout, the lease, the sweep. */
export type WebhookTimings = Pick<WebhookLimits, 'retryDelaysMs' | 'timeoutMs' | 'leaseMs' | 'sweepMs'>;

/**
 * Every delivery timing times `scale` (0 < scale ≤ 1; `MDSTORE_WEBHOOK_TIME_SCALE`), at least 1 ms each:
 * for test rigs and labs that must see retries and crash recovery in seconds, not hours. The schedule
 * keeps its shape (the same number of attempts before a webhook is disabled).
 */
export function scaledWebhookTimings(scale: number): WebhookTimings {
  const times = (ms: number) => Math.max(1, Math.round(ms * scale));
  return {
    retryDelaysMs: Object.freeze(WEBHOOK_LIMITS.retryDelaysMs.map(times)),
    timeoutMs: times(WEBHOOK_LIMITS.timeoutMs),
    leaseMs: times(WEBHOOK_LIMITS.leaseMs),
    sweepMs: times(WEBHOOK_LIMITS.sweepMs),
  };
}
