import type { DeliveryObserver, DeliveryOutcome, ReconcileReport } from '@mdstore/core';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { ObservedRequest, RequestMetrics } from '../http/observe.js';

/** What a transaction ended with. */
export type TransactionOutcome = 'commit' | 'rollback';

/** Every metric mdstore exports, on a registry of its own (so that several servers in one process do not mix). */
export interface ServerMetrics extends RequestMetrics {
  readonly registry: Registry;
  /** Webhook delivery attempts (extensions §7): by outcome, and the lag of each acknowledged one. */
  readonly webhooks: DeliveryObserver;
  observeTransaction(outcome: TransactionOutcome, seconds: number): void;
  observeReconciliation(report: ReconcileReport | 'failed'): void;
  /** Change events committed by this instance (extensions §7). */
  observeChangeEvents(count: number): void;
  /** Change streams and held polls opened (+1) or ended (−1) on this instance. */
  observeChangeStreams(delta: number): void;
  /** A scheduled backup ended (extensions §16): its outcome, duration and end time. */
  observeBackup(outcome: 'ok' | 'failed', seconds: number, finishedAtMs: number): void;
}

/** Known methods keep their name; anything else is `OTHER` (a label never takes arbitrary values). */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** From a metadata read (a few ms) to a 10 MB upload on a slow link. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** From a receiver on the same host (milliseconds) to a retry hours later. */
const LAG_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 36000];
const DELIVERY_OUTCOMES: readonly DeliveryOutcome[] = ['success', 'failure', 'disabled'];
const TRANSACTION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const RECONCILIATION_KINDS = {
  intentsResolved: 'intents_resolved',
  resourcesRemoved: 'resources_removed',
  deletionsCompleted: 'deletions_completed',
  trashItemsExpired: 'trash_items_expired',
  failures: 'failures',
} as const satisfies Partial<Record<keyof ReconcileReport, string>>;

export function createServerMetrics(): ServerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const requests = new Counter({
    name: 'mdstore_http_requests_total',
    help: 'HTTP requests answered, by route template, method and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
  });
  const duration = new Histogram({
    name: 'mdstore_http_request_duration_seconds',
    help: 'Time from the request reaching the app to its connection being done with it.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: HTTP_BUCKETS,
    registers,
  });
  const bytesIn = new Counter({
    name: 'mdstore_http_request_bytes_total',
    help: 'Bytes read from connections for requests (headers included), by route template and method.',
    labelNames: ['method', 'route'] as const,
    registers,
  });
  const bytesOut = new Counter({
    name: 'mdstore_http_response_bytes_total',
    help: 'Bytes written to connections for answers (headers included), by route template, method and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
  });
  const incomplete = new Counter({
    name: 'mdstore_http_responses_incomplete_total',
    help: 'Answers whose connection ended before they were sent completely.',
    labelNames: ['method', 'route'] as const,
    registers,
  });
  const transactions = new Histogram({
    name: 'mdstore_store_transaction_duration_seconds',
    help: 'Records store transactions, from start to commit or rollback.',
    labelNames: ['outcome'] as const,
    buckets: TRANSACTION_BUCKETS,
    registers,
  });
  const reconciliations = new Counter({
    name: 'mdstore_reconciliation_runs_total',
    help: 'Reconciliation runs (start-up and periodic), by outcome.',
    labelNames: ['outcome'] as const,
    registers,
  });
  const reconciled = new Counter({
    name: 'mdstore_reconciliation_items_total',
    help: 'What reconciliation did: intents resolved, resources removed, deletions completed, failures.',
    labelNames: ['kind'] as const,
    registers,
  });
  const deliveries = new Counter({
    name: 'mdstore_webhook_deliveries_total',
    help: 'Webhook delivery attempts, by outcome: success (2xx), failure (retried), disabled (the last one failed).',
    labelNames: ['outcome'] as const,
    registers,
  });
  const lag = new Histogram({
    name: 'mdstore_webhook_lag_seconds',
    help: 'From an event’s commit to its acknowledged delivery (retries included).',
    buckets: LAG_BUCKETS,
    registers,
  });
  for (const outcome of DELIVERY_OUTCOMES) deliveries.inc({ outcome }, 0);
  // Every series of a kind exists from the start, so that rates over them are defined.
  for (const kind of Object.values(RECONCILIATION_KINDS)) reconciled.inc({ kind }, 0);
  for (const outcome of ['ok', 'failed']) reconciliations.inc({ outcome }, 0);

  const changeEvents = new Counter({
    name: 'mdstore_change_events_total',
    help: 'Change events written by this instance (extensions §7).',
    registers,
  });
  const changeStreams = new Gauge({
    name: 'mdstore_change_streams_open',
    help: 'Open change streams (SSE) and held long polls on this instance.',
    registers,
  });
  // Extensions §16. Gauges aggregate by `max` over a cluster's workers: only the duty holder sets them.
  const backups = new Counter({
    name: 'mdstore_backups_total',
    help: 'Scheduled backups, by outcome: ok (written and verified) or failed.',
    labelNames: ['outcome'] as const,
    registers,
  });
  for (const outcome of ['ok', 'failed']) backups.inc({ outcome }, 0);
  const backupLastSuccess = new Gauge({
    name: 'mdstore_backup_last_success_timestamp_seconds',
    help: 'When the last scheduled backup that verified ended (Unix time); 0 before the first.',
    aggregator: 'max',
    registers,
  });
  const backupLastFailure = new Gauge({
    name: 'mdstore_backup_last_failure_timestamp_seconds',
    help: 'When the last scheduled backup that failed ended (Unix time); 0 before the first.',
    aggregator: 'max',
    registers,
  });
  const backupDuration = new Gauge({
    name: 'mdstore_backup_last_duration_seconds',
    help: 'How long the last scheduled backup took, verification included (ok or failed).',
    aggregator: 'max',
    registers,
  });
  return {
    registry,
    observeBackup(outcome, seconds, finishedAtMs) {
      backups.inc({ outcome });
      backupDuration.set(seconds);
      (outcome === 'ok' ? backupLastSuccess : backupLastFailure).set(finishedAtMs / 1000);
    },
    observeChangeEvents(count) {
      changeEvents.inc(count);
    },
    observeChangeStreams(delta) {
      changeStreams.inc(delta);
    },
    webhooks: {
      attempted({ outcome, lagMs }) {
        deliveries.inc({ outcome });
        if (lagMs !== null) lag.observe(lagMs / 1000);
      },
    },
    observeRequest(request: ObservedRequest) {
      const method = METHODS.has(request.method) ? request.method : 'OTHER';
      const labels = { method, route: request.route, status: String(request.status) };
      requests.inc(labels);
      duration.observe(labels, request.durationSeconds);
      bytesIn.inc({ method, route: request.route }, request.bytesIn);
      bytesOut.inc(labels, request.bytesOut);
      if (!request.completed) incomplete.inc({ method, route: request.route });
    },
    observeTransaction(outcome, seconds) {
      transactions.observe({ outcome }, seconds);
    },
    observeReconciliation(report) {
      if (report === 'failed') {
        reconciliations.inc({ outcome: 'failed' });
        return;
      }
      reconciliations.inc({ outcome: 'ok' });
      for (const [field, kind] of Object.entries(RECONCILIATION_KINDS)) {
        reconciled.inc({ kind }, report[field as keyof typeof RECONCILIATION_KINDS]);
      }
    },
  };
}
