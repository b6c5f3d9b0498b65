import { randomUUID } from 'node:crypto';
import http, {
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { onResponseClose } from './close-hook.js';
import { lingerBeforeClosing } from './linger.js';
import { requestIdFor } from './request-id.js';
import type { HttpLogger } from './routes/index.js';
import { httpsRedirectLocation, urlHost } from './transport.js';

export interface ServerTimeouts {
  /** Time allowed to receive the request headers (slow-loris protection). */
  readonly headersTimeoutMs: number;
  /** Time allowed to receive a whole request, body included (a 10 MB upload on a slow link). */
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  /** A connection with no activity at all for this long is closed. */
  readonly idleTimeoutMs: number;
  /**
   * How often the header and request timeouts are checked: a slow client is cut at most this long after
   * its deadline (Node's own default, 30 s, would let a 20 s header deadline stretch to 50 s).
   */
  readonly checkIntervalMs: number;
}

export const DEFAULT_TIMEOUTS: ServerTimeouts = {
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 300_000,
  keepAliveTimeoutMs: 5_000,
  idleTimeoutMs: 120_000,
  checkIntervalMs: 5_000,
};

export interface StartHttpServerOptions {
  readonly app: RequestListener;
  readonly host: string;
  readonly port: number;
  /** PEM certificate and key: the API is then served over HTTPS. */
  readonly tls?: { readonly cert: Buffer; readonly key: Buffer };
  /** With `tls`: a plain-HTTP listener on this port answering every request with a 308 to HTTPS. */
  readonly redirectPort?: number;
  readonly logger: HttpLogger;
  /** How long `close()` waits for requests in flight before cutting their connections. Default 10 s. */
  readonly shutdownGraceMs?: number;
  readonly timeouts?: Partial<ServerTimeouts>;
}

export interface RunningHttpServer {
  /** e.g. `http://127.0.0.1:8080`, with the port actually bound. */
  readonly url: string;
  /** The redirecting listener's URL, when there is one. */
  readonly redirectUrl: string | undefined;
  readonly server: Server;
  /** Stops accepting, lets requests in flight finish (up to the grace period), then closes everything. */
  close(): Promise<void>;
}

const HSTS = 'Strict-Transport-Security: max-age=31536000\r\n';

export async function startHttpServer(options: StartHttpServerOptions): Promise<RunningHttpServer> {
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const secure = options.tls !== undefined;
  const checks = { connectionsCheckingInterval: timeouts.checkIntervalMs };
  const server: Server = options.tls
    ? https.createServer(
        { cert: options.tls.cert, key: options.tls.key, minVersion: 'TLSv1.2', ...checks },
        options.app,
      )
    : http.createServer(checks, options.app);
  const shutdown = prepare(server, { secure, timeouts, logger: options.logger });
  // Node would send `100 Continue` at once to every `Expect: 100-continue`; with this listener it is the
  // app that sends it, only when it starts reading a body (see `sendContinue`), so that an answer the
  // body cannot change (401, 404, 412, 413, …) goes out first and the body is never sent.
  server.on('checkContinue', options.app);
  const port = await listenOrExplain(server, options.host, options.port);
  const url = `${secure ? 'https' : 'http'}://${urlHost(options.host, port)}`;

  let redirect: { server: Server; url: string; shutdown: Shutdown } | undefined;
  if (secure && options.redirectPort !== undefined) {
    try {
      redirect = await startRedirectListener(options, port, timeouts);
    } catch (error) {
      await shutdown.close(0);
      throw error;
    }
  }
  const grace = options.shutdownGraceMs ?? 10_000;
  return {
    url,
    redirectUrl: redirect?.url,
    server,
    close: async () => {
      await Promise.all([shutdown.close(grace), redirect?.shutdown.close(grace)]);
    },
  };
}

async function startRedirectListener(
  options: StartHttpServerOptions,
  httpsPort: number,
  timeouts: ServerTimeouts,
) {
  const server = http.createServer({ connectionsCheckingInterval: timeouts.checkIntervalMs }, (req, res) =>
    redirectToHttps(req, res, httpsPort),
  );
  const shutdown = prepare(server, { secure: false, timeouts, logger: options.logger });
  const port = await listenOrExplain(server, options.host, options.redirectPort!);
  return { server, url: `http://${urlHost(options.host, port)}`, shutdown };
}

function redirectToHttps(req: IncomingMessage, res: ServerResponse, httpsPort: number): void {
  req.on('error', () => {});
  req.resume();
  const location = httpsRedirectLocation({
    hostHeader: req.headers.host,
    url: req.url ?? '/',
    port: httpsPort,
  });
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('X-Request-Id', requestIdFor(req.headers));
  if (!location) {
    res.writeHead(400).end(JSON.stringify({ detail: 'Bad Request' }));
    return;
  }
  res.writeHead(308, { Location: location }).end(JSON.stringify({ detail: 'Permanent Redirect: use HTTPS' }));
}

interface Shutdown {
  close(graceMs: number): Promise<void>;
}

/** Timeouts, raw answers to requests the HTTP parser refuses, and a graceful close. */
function prepare(
  server: Server,
  context: { secure: boolean; timeouts: ServerTimeouts; logger: HttpLogger },
): Shutdown {
  server.headersTimeout = context.timeouts.headersTimeoutMs;
  server.requestTimeout = context.timeouts.requestTimeoutMs;
  server.keepAliveTimeout = context.timeouts.keepAliveTimeoutMs;
  server.timeout = context.timeouts.idleTimeoutMs;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) =>
    answerClientError(error, socket, context.secure),
  );
  // CONNECT (tunnelling) is no method of this API; without a listener Node would drop the socket silently.
  server.on('connect', (req: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => {});
    answerRaw(socket, 405, 'Method Not Allowed', context.secure, requestIdFor(req.headers));
  });
  // An `Expect` other than 100-continue: Node would answer 417 itself, with an empty body.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) =>
    answerExpectationFailed(req, res, context.secure),
  );
  // Errors of `listen` itself are the caller's (a `ListenError`); only later ones are logged here.
  server.on('error', (error) => {
    if (server.listening) context.logger.error('http server error', { error: error.message });
  });
  lingerBeforeClosing(server);
  // Answers not yet sent when closing starts end their connection, so that keep-alive clients move on.
  const unanswered = new Set<ServerResponse>();
  let closing = false;
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    if (closing && !res.headersSent) res.setHeader('Connection', 'close');
    unanswered.add(res);
    onResponseClose(res, () => unanswered.delete(res));
  });
  return {
    close: (graceMs) =>
      new Promise<void>((resolve) => {
        if (!server.listening) {
          resolve();
          return;
        }
        closing = true;
        for (const res of unanswered) if (!res.headersSent) res.setHeader('Connection', 'close');
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}

const CLIENT_ERRORS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout'],
};

/** A request the parser refused never reaches Express: answer it in the interface's error shape. */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, secure: boolean): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, text] = CLIENT_ERRORS[error.code ?? ''] ?? [400, 'Bad Request'];
  answerRaw(socket, status, text, secure);
}

/**
 * A JSON error answer written straight to the socket, which is then closed. The request never got
 * parsed, so its id is a new one unless the caller has the headers.
 */
function answerRaw(
  socket: Duplex,
  status: number,
  text: string,
  secure: boolean,
  requestId: string = randomUUID(),
): void {
  const body = JSON.stringify({ detail: text });
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'X-Content-Type-Options: nosniff\r\n' +
      `X-Request-Id: ${requestId}\r\n` +
      (secure ? HSTS : '') +
      'Connection: close\r\n\r\n' +
      body,
  );
}

export function answerExpectationFailed(req: IncomingMessage, res: ServerResponse, secure: boolean): void {
  req.on('error', () => {});
  res.on('error', () => {});
  const body = JSON.stringify({ detail: 'Expectation Failed' });
  res.writeHead(417, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'X-Content-Type-Options': 'nosniff',
    'X-Request-Id': requestIdFor(req.headers),
    Connection: 'close',
    ...(secure ? { 'Strict-Transport-Security': 'max-age=31536000' } : {}),
  });
  res.end(body);
}

const LISTEN_PROBLEMS: Record<string, string> = {
  EADDRINUSE: 'the address is already in use (another mdstore, or another program, listens there)',
  EACCES: 'permission denied (ports below 1024 need privileges)',
  EADDRNOTAVAIL: "the address is not one of this machine's",
};

/** A listener could not be opened; the message is one line naming the address. */
export class ListenError extends Error {
  readonly code: string | undefined;
  constructor(address: string, cause: NodeJS.ErrnoException) {
    super(`cannot listen on ${address}: ${LISTEN_PROBLEMS[cause.code ?? ''] ?? cause.message}`, { cause });
    this.name = 'ListenError';
    this.code = cause.code;
  }
}

/** Listens on `host:port`; resolves with the port bound, rejects with a `ListenError`. */
export function listenOrExplain(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => reject(new ListenError(urlHost(host, port), error));
    server.once('error', onError);
    server.listen({ host, port }, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
