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
  /** The longest error text kept in the deliveries log. */
  errorMaxChars: 200,
  deliveriesRetentionDays: 30,
  deliveriesExpiryBatch: 1000,
});
