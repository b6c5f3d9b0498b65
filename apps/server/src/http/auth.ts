import type { IncomingMessage, ServerResponse } from 'node:http';
import { type MdStore, type Principal, type RateLimitStatus, refusedBudgetStatus } from '@mdstore/core';
import type { NextFunction, Request, Response } from 'express';
import { runForAccount } from '../content-work/owner.js';
import { type AccountShare, holdShareFor } from './account-share.js';

/** `Bearer <token68>`; the scheme word is case-insensitive. */
const BEARER = /^bearer[ \t]+([A-Za-z0-9\-._~+/]+=*)[ \t]*$/i;

/**
 * The API key of the request, or undefined when there is none that can be used: no header, another
 * scheme, or more than one `Authorization` header (Node would silently join those, so the raw headers
 * are counted).
 */
export function bearerKey(req: IncomingMessage): string | undefined {
  const value = req.headers.authorization;
  if (value === undefined) return undefined;
  let headers = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i];
    // Most names differ in length: only a name of 13 characters is lower-cased and compared.
    if (name?.length === 13 && name.toLowerCase() === 'authorization') headers++;
  }
  if (headers !== 1) return undefined;
  return BEARER.exec(value)?.[1];
}

export function setRateLimitHeaders(res: ServerResponse, status: RateLimitStatus): void {
  res.setHeader('X-RateLimit-Limit', String(status.limit));
  res.setHeader('X-RateLimit-Remaining', String(status.remaining));
  res.setHeader('X-RateLimit-Reset', String(status.resetAtSeconds));
}

/** The principal the authentication step stored on the response. */
export function principalOf(res: Response): Principal {
  const principal = res.locals.principal as Principal | undefined;
  if (!principal) throw new Error('Route reached without authentication');
  return principal;
}

/** The fair share of requests per account (`account-share.ts`), and the requests it does not count. */
export interface RequestShare {
  readonly share: AccountShare;
  /** Requests with bounds of their own that hold no store connection while they wait (held requests). */
  readonly exempt: (req: Request) => boolean;
}

/**
 * Runs first for every path under `/api`: resolves the key to a principal, then counts the request
 * against the key's budget. Every response after this point carries the rate-limit headers. With a
 * `share`, the request then takes one of its account's running places (or waits for one, or is refused
 * past the account's queue) and keeps it until its response is done.
 */
export function authenticateRequests(store: MdStore, share?: RequestShare) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const principal = await store.authenticate({ apiKey: bearerKey(req), clientAddress: req.ip });
    await consumeRequestBudget(store, res, principal);
    res.locals.principal = principal;
    if (share && !share.exempt(req) && !(await takeShare(share.share, principal.accountId, req, res))) return;
    // The content work pool counts the request's tasks against its account's share.
    runForAccount(principal.accountId, next);
  };
}

/**
 * Counts one request against the key's budget and sets the rate-limit headers, on a refusal too (the
 * 429 reports the spent budget), for the API and the MCP endpoint alike.
 */
export async function consumeRequestBudget(store: MdStore, res: ServerResponse, principal: Principal) {
  try {
    setRateLimitHeaders(res, await store.consumeRequestBudget(principal));
  } catch (error) {
    const refused = refusedBudgetStatus(error);
    if (refused) setRateLimitHeaders(res, refused);
    throw error;
  }
}

/** Takes a running place for the request; false when its client went away while it waited. */
export async function takeShare(
  share: AccountShare,
  account: string,
  req: Request,
  res: Response,
): Promise<boolean> {
  try {
    await holdShareFor(share, account, req, res);
    return true;
  } catch (error) {
    if (res.destroyed || req.destroyed) return false;
    throw error;
  }
}
