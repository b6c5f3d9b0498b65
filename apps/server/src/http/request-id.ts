import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { requestContext } from '../request-context.js';

/** What a client may choose as its request id; anything else is replaced. */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * The request's id: the client's `X-Request-Id` when it is 1–128 characters of `[A-Za-z0-9._-]`, else a
 * new UUID. Several `X-Request-Id` headers arrive joined with `, ` and so are replaced too.
 */
export function requestIdFor(headers: IncomingHttpHeaders): string {
  const given = headers['x-request-id'];
  return typeof given === 'string' && CLIENT_REQUEST_ID.test(given) ? given : randomUUID();
}

/** The id `assignRequestId` gave this request. */
export const requestIdOf = (res: Response): string | undefined => res.locals.requestId as string | undefined;

/**
 * Runs first: gives the request its id, sends it back as `X-Request-Id` on every answer (the error
 * handler keeps the header), and serves the rest of the request inside its context so that every log
 * line written on its behalf carries `request_id`.
 */
export function assignRequestId(req: Request, res: Response, next: NextFunction): void {
  const requestId = requestIdFor(req.headers);
  res.locals.requestId = requestId;
  res.setHeader('X-Request-Id', requestId);
  requestContext.run({ requestId }, next);
}
