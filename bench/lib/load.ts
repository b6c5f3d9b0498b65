import http from 'node:http';
import autocannon, { type Options as AutocannonOptions, type Result as AutocannonResult } from 'autocannon';

/** What one load run measured. Latencies are per request, in milliseconds. */
export interface Measurement {
  readonly count: number;
  readonly seconds: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

/**
 * Runs autocannon against one URL and turns its result into a `Measurement`. Any transport error,
 * timeout or non-2xx answer fails the run: a benchmark of error responses would measure the wrong thing.
 * Samples every 100 ms, so a run ends within 100 ms of its duration (the default of 1 s would round every
 * run up to whole seconds). autocannon keeps latencies in whole milliseconds, so sub-millisecond medians read as 0 or 1; the growth
 * scenarios, which need precise latencies, use `runLoop` instead.
 */
export async function runAutocannon(options: AutocannonOptions & { title: string }): Promise<Measurement> {
  const { title, ...rest } = options;
  const result = await new Promise<AutocannonResult>((resolve, reject) => {
    autocannon({ timeout: 60, sampleInt: 100, ...rest, skipAggregateResult: false }, (error, value) =>
      error ? reject(error) : resolve(value),
    );
  });
  if (result.errors > 0 || result.non2xx > 0) {
    const statuses = Object.entries(result.statusCodeStats)
      .map(([status, { count }]) => `${status}×${count}`)
      .join(', ');
    throw new Error(
      `${title}: ${result.errors} errors (${result.timeouts} timeouts), ${result.non2xx} non-2xx [${statuses}]`,
    );
  }
  const count = result.latency.totalCount;
  const seconds = result.duration;
  return {
    count,
    seconds,
    requestsPerSecond: count / seconds,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
  };
}

export interface LoopOptions {
  readonly concurrency: number;
  readonly durationMs: number;
  /** Stops earlier once this many operations have completed. */
  readonly maxCount?: number;
  /** One operation; `index` is unique across the run. Must throw on failure. */
  readonly task: (index: number) => Promise<void>;
}

/**
 * A closed-loop load generator: `concurrency` workers each run `task` back to back until the time (or
 * count) is used up. Latencies are timed with `process.hrtime` (sub-millisecond precision).
 */
export async function runLoop(options: LoopOptions): Promise<Measurement> {
  const latencies: number[] = [];
  const started = process.hrtime.bigint();
  const deadline = started + BigInt(Math.round(options.durationMs * 1e6));
  const limit = options.maxCount ?? Number.POSITIVE_INFINITY;
  let issued = 0;
  const worker = async () => {
    while (issued < limit && process.hrtime.bigint() < deadline) {
      const index = issued++;
      const begin = process.hrtime.bigint();
      await options.task(index);
      latencies.push(Number(process.hrtime.bigint() - begin) / 1e6);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return summarise(latencies, seconds);
}

export function summarise(latencies: number[], seconds: number): Measurement {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    count: sorted.length,
    seconds,
    requestsPerSecond: sorted.length / seconds,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
  };
}

function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
}

/** The nearest-rank `p`th percentile (0–100) of latencies sorted ascending; NaN when there are none. */
export function nearestRank(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export interface HttpResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

/** One keep-alive agent for the bench's own requests (setup and latency loops). */
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** A plain HTTP request over the shared keep-alive agent; the whole response body is read. */
export function httpRequest(options: {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
}): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      options.url,
      { method: options.method ?? 'GET', headers: options.headers, agent },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

/** `httpRequest` that throws unless the status is the expected one; returns the parsed JSON body, if any. */
export async function httpJson<T = unknown>(
  options: Parameters<typeof httpRequest>[0] & { expect: number },
): Promise<T> {
  const response = await httpRequest(options);
  if (response.status !== options.expect) {
    const text = response.body.toString('utf8').slice(0, 300);
    throw new Error(
      `${options.method ?? 'GET'} ${options.url}: expected ${options.expect}, got ${response.status} ${text}`,
    );
  }
  return (response.body.length > 0 ? JSON.parse(response.body.toString('utf8')) : undefined) as T;
}

export function closeHttpAgent(): void {
  agent.destroy();
}

/** One POST on `agent` (keep-alive, its own pool); the body is discarded, the status returned. */
export function postStatus(
  agent: http.Agent,
  url: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: 'POST', agent, headers: { ...headers, 'content-length': String(body.length) } },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** The median of some values (the upper one of an even count). */
export const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** POSTs a zip to `url` with the key (an import), on a connection of its own; its status and text. */
export function postZip(
  url: string,
  apiKey: string,
  body: Buffer,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${apiKey}`,
          'content-type': 'application/zip',
          'content-length': String(body.length),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
