import { ApiKeyExpiredError, isMdStoreError, RateLimitedError, UnauthenticatedError } from '../errors.js';
import type { ApiKeyRecord, Role, Tier } from '../model/records.js';
import type { MdStoreContext } from './context.js';

/** Who is calling: the account, the key it used, and what that key may do (extensions §8). */
export interface Principal {
  readonly accountId: string;
  readonly keyId: string;
  readonly tier: Tier;
  readonly role: Role;
  /** The projects the key reaches, or null for every project of the account. */
  readonly projectIds: readonly string[] | null;
  /** The folders the key reaches (extensions §14), each ending with `/`, or null for every file. */
  readonly pathPrefixes: readonly string[] | null;
  readonly expiresAt: number | null;
}

/**
 * How often one instance writes a key's `lastUsedAt`: a listing is at most this (plus the time to the
 * next use) stale, and a busy key costs one small write per interval instead of one per request.
 */
export const LAST_USED_WRITE_INTERVAL_MS = 30_000;

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
  state: AuthenticationState,
  input: { apiKey: string | undefined; clientAddress?: string },
): Promise<Principal> {
  const blockedAddresses = state.blockedAddresses;
  const address = input.clientAddress;
  const now = ctx.clock.now();
  const blockedUntil = address === undefined ? undefined : blockedAddresses.get(address);
  if (blockedUntil !== undefined) {
    if (blockedUntil > now) throw new RateLimitedError(Math.max(1, Math.ceil((blockedUntil - now) / 1000)));
    blockedAddresses.delete(address!);
  }
  const principal = input.apiKey ? await findPrincipal(ctx, input.apiKey) : null;
  if (principal) {
    // A valid key past its expiry: its own answer, and not a failure of the address.
    if (principal.expiresAt !== null && principal.expiresAt <= now) throw new ApiKeyExpiredError();
    await noteUse(ctx, state.lastUseWritten, principal.key, now);
    return principal.principal;
  }
  if (address !== undefined) await countFailure(ctx, blockedAddresses, address, now);
  throw new UnauthenticatedError();
}

/** Per instance: the failed-authentication blocks, and when each key's last use was last written. */
export interface AuthenticationState {
  readonly blockedAddresses: Map<string, number>;
  readonly lastUseWritten: Map<string, number>;
}

export const newAuthenticationState = (): AuthenticationState => ({
  blockedAddresses: new Map(),
  lastUseWritten: new Map(),
});

/**
 * The key is read from the store on every request (no cache), so a revocation or a change is seen by
 * every instance sharing the store on its next request.
 */
async function findPrincipal(ctx: MdStoreContext, apiKey: string) {
  const keyHash = await ctx.secrets.hash(apiKey);
  const found = await ctx.records.findApiKeyWithAccount({ keyHash });
  if (!found) return null;
  const { apiKey: stored, account } = found;
  if (stored.revokedAt !== null || !constantTimeEqual(stored.keyHash, keyHash)) return null;
  const principal: Principal = {
    accountId: account.id,
    keyId: stored.id,
    tier: account.tier,
    role: stored.role,
    projectIds: stored.projectIds,
    pathPrefixes: stored.pathPrefixes,
    expiresAt: stored.expiresAt,
  };
  return { principal, key: stored, expiresAt: stored.expiresAt };
}

/**
 * Writes the key's last use when neither the store nor this instance has noted one in the last
 * `LAST_USED_WRITE_INTERVAL_MS`. A failed write is reported and never fails the request.
 */
async function noteUse(ctx: MdStoreContext, written: Map<string, number>, key: ApiKeyRecord, now: number) {
  const interval = LAST_USED_WRITE_INTERVAL_MS;
  if (key.lastUsedAt !== null && now - key.lastUsedAt < interval) return;
  const last = written.get(key.id);
  if (last !== undefined && now - last < interval) return;
  if (written.size >= MAX_BLOCKED_ADDRESSES) written.delete(written.keys().next().value!);
  written.set(key.id, now);
  try {
    await ctx.records.withTransaction((tx) => tx.touchApiKey({ keyId: key.id, lastUsedAt: now }));
  } catch (error) {
    ctx.events.warn('could not note the last use of an API key', { keyId: key.id, error });
  }
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
