import { isMdStoreError, RateLimitedError, UnauthenticatedError } from '../errors.js';
import type { Tier } from '../model/records.js';
import type { MdStoreContext } from './context.js';

/** Who is calling: the account and the key it used. */
export interface Principal {
  readonly accountId: string;
  readonly keyId: string;
  readonly tier: Tier;
}

/** The rate-limit state to report on a response. */
export interface RateLimitStatus {
  readonly limit: number;
  readonly remaining: number;
  /** Unix time in whole seconds at which the budget is restored. */
  readonly resetAtSeconds: number;
}

export class RequestRateLimitedError extends RateLimitedError {
  constructor(
    retryAfterSeconds: number,
    readonly status: RateLimitStatus,
  ) {
    super(retryAfterSeconds);
  }
}

/**
 * The budget a request refused for its rate limit reports (its `X-RateLimit-*` headers), or
 * `undefined` for any other error. By code, like `isMdStoreError`: the error may come from another copy
 * of the core.
 */
export const refusedBudgetStatus = (error: unknown): RateLimitStatus | undefined =>
  isMdStoreError(error, 'RATE_LIMITED') ? (error as Partial<RequestRateLimitedError>).status : undefined;

/** Equal-length strings compared without an early exit, so timing reveals nothing of the stored hash. */
export function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/**
 * Resolves an API key to its principal. Unknown or revoked keys are refused; an address that keeps
 * failing is refused with 429 before its keys are even looked at, until its failure window ends.
 */
export async function authenticate(
  ctx: MdStoreContext,
  blockedAddresses: Map<string, number>,
  input: { apiKey: string | undefined; clientAddress?: string },
): Promise<Principal> {
  const address = input.clientAddress;
  const now = ctx.clock.now();
  const blockedUntil = address === undefined ? undefined : blockedAddresses.get(address);
  if (blockedUntil !== undefined) {
    if (blockedUntil > now) throw new RateLimitedError(Math.max(1, Math.ceil((blockedUntil - now) / 1000)));
    blockedAddresses.delete(address!);
  }
  const principal = input.apiKey ? await findPrincipal(ctx, input.apiKey) : null;
  if (principal) return principal;
  if (address !== undefined) await countFailure(ctx, blockedAddresses, address, now);
  throw new UnauthenticatedError();
}

async function findPrincipal(ctx: MdStoreContext, apiKey: string): Promise<Principal | null> {
  const keyHash = await ctx.secrets.hash(apiKey);
  const found = await ctx.records.findApiKeyWithAccount({ keyHash });
  if (!found) return null;
  const { apiKey: stored, account } = found;
  if (stored.revokedAt !== null || !constantTimeEqual(stored.keyHash, keyHash)) return null;
  return { accountId: account.id, keyId: stored.id, tier: account.tier };
}

const MAX_BLOCKED_ADDRESSES = 10_000;

async function countFailure(ctx: MdStoreContext, blocked: Map<string, number>, address: string, now: number) {
  const decision = await ctx.rateLimiter.consume({
    key: `auth-failure:${address}`,
    limit: ctx.settings.authFailureLimit,
    windowMs: ctx.settings.authFailureWindowMs,
    now,
  });
  if (decision.allowed) return;
  // Bounded: under an address-spraying attack the oldest entries go first.
  if (blocked.size >= MAX_BLOCKED_ADDRESSES) blocked.delete(blocked.keys().next().value!);
  blocked.set(address, decision.resetAt);
  throw new RateLimitedError(Math.max(1, Math.ceil((decision.resetAt - now) / 1000)));
}

/** Counts one request against the key's hourly budget; throws when the budget is spent. */
export async function consumeRequestBudget(
  ctx: MdStoreContext,
  principal: Principal,
): Promise<RateLimitStatus> {
  const limit = ctx.settings.rateLimits[principal.tier];
  const now = ctx.clock.now();
  const decision = await ctx.rateLimiter.consume({
    key: `api-key:${principal.keyId}`,
    limit,
    windowMs: ctx.settings.rateLimitWindowMs,
    now,
  });
  const status = { limit, remaining: decision.remaining, resetAtSeconds: Math.ceil(decision.resetAt / 1000) };
  if (!decision.allowed) {
    throw new RequestRateLimitedError(Math.max(1, Math.ceil((decision.resetAt - now) / 1000)), status);
  }
  return status;
}
