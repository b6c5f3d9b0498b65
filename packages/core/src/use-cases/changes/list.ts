import { CHANGES_LIMITS } from '../../defaults/changes.js';
import { ChangesExpiredError, InvalidInputError, type ValidationIssue } from '../../errors.js';
import type { ChangeEventRecord } from '../../model/changes.js';
import { assertReachable, inKeyScope, inPathScope } from '../access.js';
import type { Principal } from '../authentication.js';
import type { MdStoreContext } from '../context.js';

/** The query parameters of `GET /api/changes`, as given. */
export type ChangesParams = Partial<Record<'since' | 'limit' | 'project_id' | 'wait', string>>;

/** What a read of the feed asks, parsed once. */
export interface ChangesRequest {
  readonly since: number;
  readonly limit: number;
  readonly projectId: string | undefined;
  /** Seconds a long poll may be held (0: answer at once). */
  readonly waitSeconds: number;
}

export interface ChangesPage {
  readonly changes: ChangeEventRecord[];
  /** The `seq` to ask after next: the last event read's (shown or not), or `since` when there is none. */
  readonly nextSince: number;
  /**
   * Whether the read filled its `limit` (more may follow at once), whatever it shows: a key confined to
   * folders (extensions §14) is shown only some of the events read.
   */
  readonly full: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const integerIn = (text: string, min: number, max: number): number | undefined => {
  if (!/^\d{1,15}$/.test(text)) return undefined;
  const value = Number(text);
  return value >= min && value <= max ? value : undefined;
};

/** Every parameter checked, every problem reported at once (`422` at `["query", NAME]`). */
export function parseChangesParams(params: ChangesParams): ChangesRequest {
  const issues: ValidationIssue[] = [];
  const number = (name: keyof ChangesParams, min: number, max: number, fallback: number): number => {
    const text = params[name];
    if (text === undefined) return fallback;
    const value = integerIn(text, min, max);
    if (value !== undefined) return value;
    issues.push({
      loc: ['query', name],
      msg: `Input should be an integer from ${min} to ${max}`,
      type: 'value_error',
    });
    return fallback;
  };
  const since = number('since', 0, Number.MAX_SAFE_INTEGER, 0);
  const limit = number('limit', 1, CHANGES_LIMITS.maxLimit, CHANGES_LIMITS.defaultLimit);
  const waitSeconds = number('wait', 0, CHANGES_LIMITS.maxWaitSeconds, 0);
  let projectId: string | undefined;
  if (params.project_id !== undefined) {
    if (UUID.test(params.project_id)) projectId = params.project_id.toLowerCase();
    else
      issues.push({
        loc: ['query', 'project_id'],
        msg: 'Input should be a valid UUID',
        type: 'uuid_parsing',
      });
  }
  if (issues.length > 0) throw new InvalidInputError(issues);
  return { since, limit, projectId, waitSeconds };
}

/**
 * A read of the feed as asked (extensions §7), checked once before any read, however many a held request
 * makes: the parameters, and a `project_id` the key reaches (`assertReachable`: another account's is `403`, a missing one or
 * one outside the key's scope `404`, as everywhere; a deleted project's events stay readable).
 */
export async function openChanges(
  ctx: MdStoreContext,
  input: { principal: Principal; params?: ChangesParams },
): Promise<ChangesRequest> {
  const request = parseChangesParams(input.params ?? {});
  const { principal } = input;
  if (request.projectId !== undefined) {
    const project = inKeyScope(principal, request.projectId)
      ? await ctx.records.findProjectById({ projectId: request.projectId })
      : null;
    assertReachable(project, principal, request.projectId);
  }
  return request;
}

/**
 * One read of the account's feed (a request `openChanges` checked): events after `since`, oldest first,
 * of the key's projects only. `410` when retention removed an event the reader has not seen.
 */
export async function readChanges(
  ctx: MdStoreContext,
  input: { principal: Principal; request: ChangesRequest },
): Promise<ChangesPage> {
  const { principal, request } = input;
  const projectIds =
    request.projectId !== undefined ? [request.projectId] : (principal.projectIds ?? undefined);
  const changes = await ctx.records.listChangeEvents({
    accountId: principal.accountId,
    afterSeq: request.since,
    limit: request.limit,
    ...(projectIds !== undefined && { projectIds }),
  });
  // Read after the page: an event pruned between the two reads is then seen as pruned, never skipped.
  const head = await ctx.records.findChangeFeedHead({ accountId: principal.accountId });
  if (head.prunedThrough > request.since) throw new ChangesExpiredError();
  // The position moves past every event read, shown or not, so a folder key's next read goes on.
  return {
    changes: visibleChanges(principal, changes),
    nextSince: changes.at(-1)?.seq ?? request.since,
    full: changes.length >= request.limit,
  };
}

/**
 * The events a key sees (extensions §14): for a key confined to folders, those of files and attachments
 * inside them (a move from outside shows no old name) and of its projects themselves; drafts span the
 * project and are not shown. A page may thus hold fewer events than `limit`, never more.
 */
function visibleChanges(principal: Principal, changes: readonly ChangeEventRecord[]): ChangeEventRecord[] {
  if (principal.pathPrefixes === null) return [...changes];
  return changes.flatMap((event) => {
    if (event.filename === null) return event.type.startsWith('project.') ? [event] : [];
    if (!inPathScope(principal, event.filename)) return [];
    return event.from !== null && !inPathScope(principal, event.from) ? [{ ...event, from: null }] : [event];
  });
}

/** `GET /api/changes` without waiting (and the MCP tool): check, then one read. */
export async function listChanges(
  ctx: MdStoreContext,
  input: { principal: Principal; params?: ChangesParams },
): Promise<ChangesPage> {
  return readChanges(ctx, { principal: input.principal, request: await openChanges(ctx, input) });
}

/** Retention: events older than `retentionDays` go, a batch per transaction; returns how many. */
export async function expireChanges(ctx: MdStoreContext, retentionDays: number): Promise<number> {
  const before = ctx.clock.now() - retentionDays * 86_400_000;
  let total = 0;
  for (;;) {
    const deleted = await ctx.records.withTransaction((tx) =>
      tx.deleteChangeEventsBefore({ before, limit: CHANGES_LIMITS.expiryBatch }),
    );
    total += deleted;
    if (deleted === 0) return total;
  }
}

/** What a held request's key may still do: read (`valid`), or nothing more (`revoked` or `expired`). */
export type HeldKeyState = 'valid' | 'revoked' | 'expired';

/**
 * Whether the key of a held request (long poll or stream) may still read: one store read of the key.
 * A held request checks it again before it delivers anything (the server shares one read per key).
 */
export async function heldKeyState(
  ctx: MdStoreContext,
  input: { principal: Principal },
): Promise<HeldKeyState> {
  const key = await ctx.records.findApiKeyById({ keyId: input.principal.keyId });
  if (key === null || key.revokedAt !== null) return 'revoked';
  return key.expiresAt === null || key.expiresAt > ctx.clock.now() ? 'valid' : 'expired';
}
