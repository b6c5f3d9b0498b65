import type { BlobStore, RecordsReader } from '@mdstore/core';
import type { Request, Response } from 'express';
import type { HttpLogger } from './routes/index.js';

/** What `/readyz` answers: ready, or the stores that did not answer (in a fixed order). */
export type ReadinessReport =
  | { readonly ready: true }
  | { readonly ready: false; readonly failed: readonly ReadinessFailure[]; readonly detail: string };

export interface ReadinessFailure {
  /** `records store` or `blob store`. */
  readonly store: string;
  readonly reason: 'timeout' | 'error';
}

export type ReadinessCheck = () => Promise<ReadinessReport>;

export interface ReadinessOptions {
  readonly records: Pick<RecordsReader, 'listInstances'>;
  readonly blobs: Pick<BlobStore, 'probe'>;
  readonly logger: HttpLogger;
  /** A store that has not answered within this is not ready. Default 2 s. */
  readonly timeoutMs?: number;
  /** How long one result is reused. Default 1 s. */
  readonly cacheMs?: number;
  readonly now?: () => number;
}

interface Probe {
  readonly store: string;
  run(signal: AbortSignal): Promise<unknown>;
  /** The probe still running, with when it started: never more than one per store. */
  pending?: { readonly answer: Promise<'ok' | 'error'>; readonly startedAt: number };
}

/**
 * Readiness of the two stores, each asked something cheap that fails when it cannot serve: the records
 * store `listInstances` (a handful of rows), the blob store its port's `probe` (a filesystem root that is
 * a readable, writable folder; an authenticated S3 request). A store that fails, or has not
 * answered within `timeoutMs`, makes the service not ready. A result is reused for `cacheMs`, and a
 * store that hangs is asked again only once its previous probe has ended, so a load balancer polling
 * a stuck store never piles up requests on it.
 */
export function createReadinessCheck(options: ReadinessOptions): ReadinessCheck {
  const timeoutMs = options.timeoutMs ?? 2_000;
  const cacheMs = options.cacheMs ?? 1_000;
  const now = options.now ?? Date.now;
  const probes: Probe[] = [
    { store: 'records store', run: () => options.records.listInstances() },
    {
      store: 'blob store',
      run: (signal) => options.blobs.probe({ signal }),
    },
  ];
  let cached: { report: Promise<ReadinessReport>; at: number } | undefined;
  /** The `detail` of the last report, undefined while ready. */
  let lastState: string | undefined;

  const check = async (): Promise<ReadinessReport> => {
    const results = await Promise.all(probes.map((probe) => answerOf(probe, timeoutMs, now)));
    const failed = probes.flatMap((probe, i) => {
      const result = results[i];
      return result === 'ok' ? [] : [{ store: probe.store, reason: result ?? 'error' }];
    });
    const report: ReadinessReport =
      failed.length === 0
        ? { ready: true }
        : { ready: false, failed, detail: notReadyDetail(failed, timeoutMs) };
    // Logged on changes only: a load balancer polls every few seconds.
    const state = report.ready ? undefined : report.detail;
    if (state !== lastState) {
      if (report.ready) options.logger.info('ready: the stores answer again');
      else options.logger.warn('not ready', { failed: failed.map((f) => `${f.store} (${f.reason})`) });
      lastState = state;
    }
    return report;
  };

  return () => {
    const at = now();
    if (!cached || at - cached.at >= cacheMs) cached = { report: check(), at };
    return cached.report;
  };
}

/** `ok`, `error`, or `timeout` when the probe has not answered `timeoutMs` after it started. */
async function answerOf(probe: Probe, timeoutMs: number, now: () => number) {
  if (!probe.pending) {
    const controller = new AbortController();
    const startedAt = now();
    const timer = setTimeout(() => controller.abort(new Error('readiness probe timed out')), timeoutMs);
    const answer = Promise.resolve()
      .then(() => probe.run(controller.signal))
      .then(
        () => 'ok' as const,
        () => 'error' as const,
      );
    const pending = { answer, startedAt };
    probe.pending = pending;
    void answer.finally(() => {
      clearTimeout(timer);
      if (probe.pending === pending) probe.pending = undefined;
    });
  }
  const { answer, startedAt } = probe.pending;
  const left = Math.max(0, startedAt + timeoutMs - now());
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), left);
  });
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The `detail` of a `503` from `/readyz`, naming the stores that failed. */
function notReadyDetail(failed: readonly ReadinessFailure[], timeoutMs: number): string {
  const parts = failed.map((f) =>
    f.reason === 'timeout'
      ? `the ${f.store} did not answer within ${timeoutMs / 1000} s`
      : `the ${f.store} failed`,
  );
  return `Not ready: ${parts.join('; ')}`;
}

/** `GET /readyz`: `200 {"status":"ready"}`, or `503` with a `detail` naming the stores that failed. */
export function serveReadiness(check: ReadinessCheck | undefined) {
  return async (_req: Request, res: Response): Promise<void> => {
    const report = check ? await check() : ({ ready: true } as const);
    res.setHeader('Cache-Control', 'no-store');
    if (report.ready) res.status(200).json({ status: 'ready' });
    else res.status(503).json({ detail: report.detail });
  };
}
