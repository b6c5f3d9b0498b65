import { createHash, timingSafeEqual } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bearerKey } from '../http/auth.js';
import { listenOrExplain } from '../http/server.js';
import { urlHost } from '../http/transport.js';
import type { Logger } from '../logger.js';
import type { ServerMetrics } from './metrics.js';

export interface MetricsListenerOptions {
  readonly host: string;
  readonly port: number;
  /** When set, `GET /metrics` needs `Authorization: Bearer <token>`. */
  readonly token: string | null;
  readonly metrics: Pick<ServerMetrics, 'registry'>;
  readonly logger: Pick<Logger, 'error'>;
}

export interface RunningMetricsListener {
  readonly url: string;
  close(): Promise<void>;
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * Prometheus's scrape endpoint, `GET /metrics` in the text format, on a listener of its own so that it
 * can stay on loopback or a private address while the API is public. Anything else is a JSON 404/405.
 * The token is compared in constant time (digests of equal length, so its length does not leak either).
 */
export async function startMetricsListener(options: MetricsListenerOptions): Promise<RunningMetricsListener> {
  const expected = options.token === null ? null : digest(options.token);
  const server = http.createServer((req, res) => {
    req.on('error', () => {});
    res.on('error', () => {});
    req.resume();
    void answer(req, res, options, expected);
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
  server.on('error', (error) => options.logger.error('metrics listener error', { error }));
  const port = await listenOrExplain(server, options.host, options.port);
  return {
    url: `http://${urlHost(options.host, (server.address() as AddressInfo | null)?.port ?? port)}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function answer(
  req: IncomingMessage,
  res: ServerResponse,
  options: MetricsListenerOptions,
  expected: Buffer | null,
): Promise<void> {
  const path = (req.url ?? '/').split('?', 1)[0];
  if (path !== '/metrics') return json(res, 404, { detail: 'Not Found' });
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return json(res, 405, { detail: 'Method Not Allowed' }, { Allow: 'GET, HEAD' });
  }
  if (expected !== null) {
    const given = bearerKey(req);
    if (given === undefined || !timingSafeEqual(digest(given), expected)) {
      return json(
        res,
        401,
        { detail: 'Invalid authentication credentials' },
        { 'WWW-Authenticate': 'Bearer' },
      );
    }
  }
  try {
    const text = await options.metrics.registry.metrics();
    res.writeHead(200, {
      'Content-Type': options.metrics.registry.contentType,
      'Content-Length': String(Buffer.byteLength(text)),
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    });
    res.end(req.method === 'HEAD' ? undefined : text);
  } catch (error) {
    options.logger.error('collecting metrics failed', { error });
    json(res, 500, { detail: 'Internal Server Error' });
  }
}

function json(res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
    'X-Content-Type-Options': 'nosniff',
    ...headers,
  });
  res.end(text);
}
