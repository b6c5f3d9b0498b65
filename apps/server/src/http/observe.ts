import type { Socket } from 'node:net';
import { redactApiKeys } from '@mdstore/core';
import type { NextFunction, Request, Response } from 'express';
import { onResponseClose } from './close-hook.js';
import { requestIdOf } from './request-id.js';
import type { HttpLogger } from './routes/index.js';

/** One answered (or abandoned) request, as the access log and the metrics see it. */
export interface ObservedRequest {
  readonly method: string;
  /** The route template (`/api/projects/:project_id`), never the raw path; `unmatched` otherwise. */
  readonly route: string;
  readonly status: number;
  readonly durationSeconds: number;
  /** Bytes read from / written to the connection for this request, headers included. */
  readonly bytesIn: number;
  readonly bytesOut: number;
  /** The answer was sent completely (false: the connection ended first). */
  readonly completed: boolean;
}

/** Receives every request once its connection is done with it (the metrics listener's side). */
export interface RequestMetrics {
  observeRequest(request: ObservedRequest): void;
}

export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Names requests by route template. Express tells the template of the route that handled a request;
 * requests refused before routing (401 and 429 under `/api`) are matched against the known templates
 * here, segment by segment (`:name` matches one non-empty segment).
 */
export function routeNamer(templates: readonly string[]): (req: Request) => string {
  const patterns = templates.map((template) => ({ template, segments: template.split('/') }));
  return (req) => {
    const route = (req.route as { path?: unknown } | undefined)?.path;
    if (typeof route === 'string') return route;
    const segments = pathOf(req.originalUrl).replace(/\/+$/, '').split('/');
    const found = patterns.find(
      (p) =>
        p.segments.length === segments.length &&
        p.segments.every((s, i) => (s.startsWith(':') ? segments[i] !== '' : s === segments[i])),
    );
    return found?.template ?? UNMATCHED_ROUTE;
  };
}

/** Connection counters already attributed to earlier requests on the same keep-alive connection. */
const attributed = new WeakMap<Socket, { read: number; written: number }>();

function connectionBytes(socket: Socket | null): { bytesIn: number; bytesOut: number } {
  if (!socket) return { bytesIn: 0, bytesOut: 0 };
  const before = attributed.get(socket) ?? { read: 0, written: 0 };
  const now = { read: socket.bytesRead, written: socket.bytesWritten };
  attributed.set(socket, now);
  return { bytesIn: now.read - before.read, bytesOut: now.written - before.written };
}

/**
 * The access log (`http request`: method, path without query, route, status, duration, request id) and
 * the request metrics, written when the response is done with its connection. The path is logged,
 * the query string never (it could carry anything).
 */
export function observeRequests(options: {
  logger: HttpLogger;
  metrics?: RequestMetrics;
  routeOf: (req: Request) => string;
}) {
  const { logger, metrics, routeOf } = options;
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = performance.now();
    onResponseClose(res, () => {
      const durationMs = performance.now() - started;
      const route = routeOf(req);
      const completed = res.writableFinished;
      const requestId = requestIdOf(res);
      logger.info('http request', {
        method: req.method,
        path: loggedPath(req.originalUrl),
        route,
        status: res.statusCode,
        completed,
        duration_ms: Math.trunc(durationMs),
        ...(requestId !== undefined && { request_id: requestId }),
      });
      if (metrics) {
        metrics.observeRequest({
          method: req.method,
          route,
          status: res.statusCode,
          durationSeconds: durationMs / 1000,
          completed,
          ...connectionBytes(req.socket),
        });
      }
    });
    next();
  };
}

/** The URL without its query string. */
export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * The path of a URL as logs may show it: no query string, and anything shaped like an API key (a key
 * pasted as a path segment, `GET /api/projects/mds_…`) redacted, and a share page's token (`/s/…`).
 */
export const loggedPath = (url: string): string =>
  redactApiKeys(pathOf(url)).replace(SHARE_TOKEN_SEGMENT, '/s/[share-token]');

/** The token of a share page's path (extensions §11): a secret, never logged. */
const SHARE_TOKEN_SEGMENT = /^\/s\/[^/]+/;
