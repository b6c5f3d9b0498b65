import type { IncomingMessage } from 'node:http';
import type { MdStore, Principal } from '@mdstore/core';
import type { NextFunction, Request, Response } from 'express';
import { continueForAccount } from '../content-work/owner.js';
import type { AccountShare } from '../http/account-share.js';
import { type AuditQueue, isAudited } from '../http/audit.js';
import { bearerKey, consumeRequestBudget, takeShare } from '../http/auth.js';
import { type JsonParser, mediaTypeOf, readJsonBody } from '../http/body.js';
import { onResponseClose } from '../http/close-hook.js';
import { HttpError } from '../http/errors.js';
import { requestIdOf } from '../http/request-id.js';
import { type HttpLogger, signalOf } from '../http/routes/context.js';
import type { ToolCallOutcome } from './tool-kit.js';
import { toolRole } from './tool-roles.js';

/**
 * `POST /mcp`: the MCP endpoint over Streamable HTTP (extensions §4), stateless: every request gets a
 * server and a transport of its own and no session id, so any instance can answer any request (and
 * there is no stream to open with `GET` or session to end with `DELETE`: those are 405, see app.ts).
 *
 * Before the transport sees the request, the API's own rules: a request whose `Origin` names another
 * origin is 403 (a browser page must not drive a local server: DNS rebinding), the API key is the one of
 * `/api` (a missing or bad one is its 401), and each JSON-RPC request in the body counts once against
 * the key's budget (a spent budget is its 429, with the rate-limit headers). Answers are JSON, not
 * event streams: no tool streams progress, and JSON passes every proxy.
 */
export interface McpEndpointOptions {
  readonly store: MdStore;
  readonly logger: HttpLogger;
  /** Largest body: tool calls may carry a whole file, JSON-escaped. */
  readonly maxBodyBytes: number;
  /** Where a body above the inline bound is parsed (the server's content work pool); else here. */
  readonly jsonParser?: JsonParser;
  readonly origins: OwnOrigins;
  /** Where tool calls are recorded (extensions §8), as `/api` requests are; without one, none is. */
  readonly audit?: AuditQueue;
  /** The account share of running requests the `/api` routes count in too (`http/account-share.ts`). */
  readonly share?: AccountShare;
}

/**
 * The MCP SDK and the tools, loaded on the first `/mcp` request: with their dependencies (zod, ajv, a
 * second HTTP framework) they are about 25 MB of a server's resident memory, which a server nobody
 * drives through MCP does not pay (docs/performance.md, "Memory").
 */
let loaded:
  | Promise<
      typeof import('./server.js') & typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js')
    >
  | undefined;
const mcpModules = () =>
  (loaded ??= Promise.all([
    import('./server.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
  ]).then(([tools, sdk]) => ({ ...tools, ...sdk })));

export function mcpEndpoint(options: McpEndpointOptions) {
  const { store, logger } = options;
  return async (req: Request, res: Response): Promise<void> => {
    res.setHeader('Cache-Control', 'no-store');
    refuseOtherOrigins(req, options.origins);
    const principal = await store.authenticate({ apiKey: bearerKey(req), clientAddress: req.ip });
    // The content work pool counts the call's tasks (a large body's parse, the tools') against its account.
    continueForAccount(principal.accountId);
    // One unit before the body is read, so a spent budget is refused without reading it; the other
    // requests of a batch once it is.
    await consumeBudget(store, res, principal, 1);
    // The account's share of running requests, counted with its `/api` requests.
    if (options.share && !(await takeShare(options.share, principal.accountId, req, res))) return;
    let body: unknown;
    if (mediaTypeOf(req.headers['content-type']) === 'application/json') {
      try {
        body = await readJsonBody(req, options.maxBodyBytes, options.jsonParser, signalOf(res));
      } catch (error) {
        if (!(error instanceof HttpError && error.status === 400)) throw error;
        res.status(400).json({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
        return;
      }
      await consumeBudget(store, res, principal, jsonRpcRequests(body) - 1);
    }
    // Otherwise the transport refuses the media type (415) without reading the body.
    const audit = options.audit && toolCallAuditor(options.audit, principal, req, res);
    const { createMcpServer, StreamableHTTPServerTransport } = await mcpModules();
    const server = createMcpServer({ store, principal, signal: signalOf(res), audit }, logger);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    onResponseClose(res, () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };
}

/**
 * Records a tool call as `isAudited` picks an `/api` request (extensions §8): a call of a tool that
 * changes something and succeeded, and every refusal (`401`, `403`, `412`, `428`, a project's `404`).
 * Its action is `POST /mcp <tool>`; its project and file are the call's arguments. Never an argument's
 * content or metadata.
 */
function toolCallAuditor(queue: AuditQueue, principal: Principal, req: Request, res: Response) {
  const at = queue.now();
  return (call: ToolCallOutcome): void => {
    const route = { method: 'POST' as const, path: '/mcp', role: toolRole(call.tool) };
    if (!isAudited(route, call.status, call.errorCode, call.change === true)) return;
    queue.push({
      at,
      accountId: principal.accountId,
      keyId: principal.keyId,
      action: `POST /mcp ${call.tool}`,
      projectId: call.projectId,
      filename: call.filename,
      status: call.status,
      requestId: requestIdOf(res) ?? null,
      ip: req.ip ?? null,
    });
  };
}

/**
 * Any other method on `/mcp` goes through the same gate (Origin, key, one unit of the budget) before
 * its `405`, as a wrong method under `/api` does.
 */
export function mcpGate(store: MdStore, origins: OwnOrigins) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    res.setHeader('Cache-Control', 'no-store');
    refuseOtherOrigins(req, origins);
    const principal = await store.authenticate({ apiKey: bearerKey(req), clientAddress: req.ip });
    await consumeBudget(store, res, principal, 1);
    next();
  };
}

/** The requests in a JSON-RPC message or batch (notifications and responses are not requests). */
export function jsonRpcRequests(body: unknown): number {
  const messages = Array.isArray(body) ? body : [body];
  return messages.filter(
    (message) =>
      typeof message === 'object' &&
      message !== null &&
      typeof (message as { method?: unknown }).method === 'string' &&
      (message as { id?: unknown }).id !== undefined,
  ).length;
}

async function consumeBudget(store: MdStore, res: Response, principal: Principal, units: number) {
  for (let unit = 0; unit < units; unit++) await consumeRequestBudget(store, res, principal);
}

/** What the server knows its own origins to be: never what a request says (`Host`, `X-Forwarded-Host`). */
export interface OwnOrigins {
  /** The server speaks HTTPS on its port. */
  readonly tls: boolean;
  /** `MDSTORE_PUBLIC_ORIGINS`, each as `URL.origin` spells it. */
  readonly publicOrigins: readonly string[];
}

const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * An `Origin` header must name one of the server's own origins: the loopback names of the port the
 * connection arrived on (`http(s)://127.0.0.1:PORT`, `localhost`, `[::1]`), or one of the configured
 * public origins. Never the request's `Host`: a DNS-rebinding page sends `Host` and `Origin` alike
 * (`evil.example:PORT`). No header: not a browser's cross-origin request.
 */
function refuseOtherOrigins(req: Request & IncomingMessage, own: OwnOrigins): void {
  const origin = req.headers.origin;
  if (origin === undefined) return;
  if (!isOwnOrigin(origin, own, req.socket.localPort)) {
    throw new HttpError(403, 'Forbidden: the Origin header names another origin');
  }
}

export function isOwnOrigin(origin: string, own: OwnOrigins, port: number | undefined): boolean {
  if (!URL.canParse(origin)) return false;
  const given = new URL(origin).origin;
  if (own.publicOrigins.includes(given)) return true;
  if (port === undefined) return false;
  const scheme = own.tls ? 'https' : 'http';
  // `URL` drops a scheme's default port: `http://localhost:80` is `http://localhost`.
  return LOOPBACK_HOSTS.some((host) => new URL(`${scheme}://${host}:${port}`).origin === given);
}
