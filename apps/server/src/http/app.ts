import type { MdStore } from '@mdstore/core';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { mcpEndpoint, mcpGate } from '../mcp/endpoint.js';
import { AccountShare, type AccountShareLimits } from './account-share.js';
import { methodNotAllowed, mountRoutes } from './api/mount.js';
import { servedOpenApiDocument } from './api/openapi.js';
import { ROUTES } from './api/routes-table.js';
import { type AuditQueue, auditRequests } from './audit.js';
import { authenticateRequests } from './auth.js';
import { DEFAULT_DRAIN_LIMITS, type DrainLimits, type JsonParser, sendAfterDrainingRequest } from './body.js';
import type { ChangeFeedDeps } from './changes-feed.js';
import { consoleRoutes } from './console/index.js';
import { HttpError, httpError, toErrorResponse } from './errors.js';
import { DEFAULT_MULTIPART_LIMITS, type MultipartLimits } from './multipart.js';
import { loggedPath, observeRequests, type RequestMetrics, routeNamer } from './observe.js';
import type { ReadinessCheck } from './readiness.js';
import { referenceRoutes } from './reference/index.js';
import { assignRequestId, requestIdOf } from './request-id.js';
import { editBodyLimit as editBodyLimitOf } from './routes/editing.js';
import type { HttpLogger } from './routes/index.js';
import { sharePageRoutes } from './share-pages/index.js';
import { httpsRedirectLocation } from './transport.js';

export type { HttpLogger } from './routes/index.js';

export interface HttpAppOptions {
  readonly store: MdStore;
  readonly logger: HttpLogger;
  /** Behind a TLS-terminating proxy: honour `X-Forwarded-Proto`/`X-Forwarded-For`/`X-Forwarded-Host`. */
  readonly trustProxy: boolean;
  /** The server itself speaks HTTPS. */
  readonly tls: boolean;
  /** Origins browsers reach the server under besides its loopback names (`MDSTORE_PUBLIC_ORIGINS`). */
  readonly publicOrigins?: readonly string[];
  /** Largest JSON request body, in bytes. Default 1 MiB. */
  readonly maxJsonBytes?: number;
  /**
   * Where JSON bodies above `INLINE_JSON_MAX_BYTES` (changesets, PATCH, `/mcp`) are parsed: the server
   * passes its content work pool's (`jsonParserOf`). Without one (embedding, tests), on this thread.
   */
  readonly jsonParser?: JsonParser;
  readonly multipartLimits?: Partial<MultipartLimits>;
  /** How much of an unread request body is discarded before an early error answer. */
  readonly drainLimits?: DrainLimits;
  /** Answers `/readyz`. Without one (embedding, tests) the app reports ready whenever it answers. */
  readonly readiness?: ReadinessCheck;
  /** Told of every request (the metrics listener); none by default. */
  readonly metrics?: RequestMetrics;
  /** Where `/api` requests are recorded (extensions §8); without one, nothing is audited. */
  readonly audit?: AuditQueue;
  /** Where the console's built files are; default `apps/console/dist`. */
  readonly consoleDir?: string;
  /** Wake-ups and bounds of held change reads (extensions §7); without them, a held read polls slowly. */
  readonly changes?: ChangeFeedDeps;
  /**
   * Requests of one account running and waiting at once on this instance (`REQUEST_SHARE_LIMITS`,
   * `account-share.ts`): its limits (default `DEFAULT_ACCOUNT_SHARE`), or a share made by the caller
   * (tests read its counts).
   */
  readonly accountShare?: AccountShareLimits | AccountShare;
}

const HSTS = 'max-age=31536000';
/** Headers that stay on an error answer; any other header set by a handler before it failed is removed. */
const KEPT_ON_ERROR = new Set([
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-content-type-options',
  'strict-transport-security',
  'cache-control',
  'connection',
  'x-request-id',
]);

/**
 * The HTTP edge of mdstore as an Express app: it parses the transport, calls the core, maps the
 * core's error codes to statuses (see `errors.ts`) and serialises the answers. No business rule here.
 */
export function createHttpApp(options: HttpAppOptions): Express {
  const app = express();
  app.set('x-powered-by', false);
  app.set('etag', false);
  // One hop: the TLS-terminating proxy in front. Trusting every hop would let a client pick its own
  // address with a forged X-Forwarded-For (and so dodge, or aim, the failed-authentication throttle).
  app.set('trust proxy', options.trustProxy ? 1 : false);
  app.set('strict routing', false);
  app.set('case sensitive routing', true);
  app.set('query parser', false);

  const deps = {
    store: options.store,
    logger: options.logger,
    maxJsonBytes: options.maxJsonBytes ?? 1024 * 1024,
    ...(options.jsonParser && { jsonParser: options.jsonParser }),
    multipartLimits: { ...DEFAULT_MULTIPART_LIMITS, ...options.multipartLimits },
    ...(options.readiness && { readiness: options.readiness }),
    ...(options.changes && { changes: options.changes }),
  };
  const editBodyLimit = editBodyLimitOf(deps);
  const routeOf = routeNamer(['/mcp', ...new Set(ROUTES.map((route) => route.description.path))]);

  app.use(assignRequestId);
  app.use(baseHeaders(options));
  app.use(
    observeRequests({
      logger: options.logger,
      routeOf,
      ...(options.metrics && { metrics: options.metrics }),
    }),
  );
  if (options.trustProxy) app.use(redirectForwardedHttp);

  // The reference itself (`/openapi.json`, `/docs`) is not an operation of the document it serves.
  // Generated on its first request, not at start-up: converting every schema takes about 0.1 s and a
  // passing 30 MB of heap, which a server that nobody asks for its document should not keep as RSS.
  // The OpenAPI tests generate it from the same table, so a schema the converter cannot read fails CI.
  app.use(referenceRoutes({ document: servedOpenApiDocument }));
  for (const path of ['/openapi.json', '/docs', '/docs/redoc.standalone.js']) {
    app.all(path, methodNotAllowed(['GET', 'HEAD']));
  }
  // The web console (extensions §11): its page and its hashed assets, no key.
  app.use(consoleRoutes(options.consoleDir === undefined ? {} : { dir: options.consoleDir }));
  app.all('/', methodNotAllowed(['GET', 'HEAD']));

  // Share pages (extensions §11): no key, limited per client address.
  app.use(sharePageRoutes(deps));

  if (options.audit) {
    app.use(
      '/api',
      auditRequests(
        options.audit,
        ROUTES.map((route) => route.description),
        routeOf,
      ),
    );
  }
  // One share for `/api` and `/mcp`: an account's requests count together wherever they arrive.
  const share =
    options.accountShare instanceof AccountShare
      ? options.accountShare
      : new AccountShare(options.accountShare);
  // Held change reads have bounds of their own (HELD_LIMITS) and hold no connection while they wait.
  const held = (req: Request) => req.method === 'GET' && req.path === '/changes';
  app.use('/api', authenticateRequests(options.store, { share, exempt: held }));
  // Every route of the interface, `/healthz` and `/readyz` included: mounted from the table only.
  mountRoutes(app, ROUTES, deps);

  // MCP (extensions §4): stateless, so POST only; it authenticates and counts requests itself.
  const origins = { tls: options.tls, publicOrigins: options.publicOrigins ?? [] };
  app.post(
    '/mcp',
    mcpEndpoint({
      store: options.store,
      logger: options.logger,
      maxBodyBytes: editBodyLimit,
      ...(options.jsonParser && { jsonParser: options.jsonParser }),
      origins,
      audit: options.audit,
      share,
    }),
  );
  app.all('/mcp', mcpGate(options.store, origins), methodNotAllowed(['POST']));

  app.use((_req, _res, next) => next(httpError(404)));
  app.use(errorHandler(options.logger, options.drainLimits ?? DEFAULT_DRAIN_LIMITS));
  return app;
}

const ignore = () => {};

function baseHeaders(options: HttpAppOptions) {
  // Plain HTTP without a trusted proxy: no request is secure, so Express's `req.secure` (a getter that
  // parses the protocol) need not run on every request.
  const mayBeSecure = options.trustProxy;
  return (req: Request, res: Response, next: NextFunction) => {
    // A failing socket must never take the process down.
    req.on('error', ignore);
    res.on('error', ignore);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // `req.url` is origin-form (`/api/…`) but for the rare absolute-form request, which `req.path` parses.
    if (req.url.startsWith('/api') || (req.url[0] !== '/' && req.path.startsWith('/api'))) {
      res.setHeader('Cache-Control', 'no-store');
    }
    if (options.tls || (mayBeSecure && req.secure)) res.setHeader('Strict-Transport-Security', HSTS);
    next();
  };
}

/** Behind a trusted proxy: a request the proxy received over plain HTTP is sent to HTTPS with a 308. */
function redirectForwardedHttp(req: Request, res: Response, next: NextFunction) {
  const forwarded = req.headers['x-forwarded-proto'];
  const proto = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',', 1)[0]?.trim().toLowerCase();
  if (proto !== 'http') {
    next();
    return;
  }
  const location = httpsRedirectLocation({ hostHeader: req.hostname, url: req.originalUrl });
  if (!location) {
    next(httpError(400));
    return;
  }
  res.setHeader('Location', location);
  res.status(308).json({ detail: 'Permanent Redirect: use HTTPS' });
}

function errorHandler(logger: HttpLogger, drainLimits: DrainLimits) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const response = toErrorResponse(error);
    // For the audit log (extensions §8): which refusal this was (a project's 404, not a file's).
    res.locals.errorCode = (error as { code?: unknown } | null)?.code;
    if (response.status >= 500) logServerError(logger, req, res, error);
    if (res.headersSent) {
      // Part of a success answer is already out: cutting the connection is the only honest signal.
      res.destroy();
      return;
    }
    for (const name of res.getHeaderNames()) if (!KEPT_ON_ERROR.has(name)) res.removeHeader(name);
    sendAfterDrainingRequest(
      req,
      res,
      () => {
        for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
        res.status(response.status).json({ detail: response.detail, ...response.fields });
      },
      drainLimits,
    );
  };
}

function logServerError(logger: HttpLogger, req: Request, res: Response, error: unknown): void {
  const described =
    error instanceof Error
      ? {
          name: error.name,
          code: (error as { code?: unknown }).code,
          message: error.message,
          stack: error.stack,
        }
      : { value: String(error) };
  const requestId = requestIdOf(res);
  logger.error('request failed', {
    method: req.method,
    path: loggedPath(req.originalUrl),
    error: described,
    ...(requestId !== undefined && { request_id: requestId }),
  });
}

export { HttpError };
