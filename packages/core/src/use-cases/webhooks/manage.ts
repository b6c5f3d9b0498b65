import * as v from 'valibot';
import { DAY_MS } from '../../defaults/trash.js';
import { WEBHOOK_LIMITS } from '../../defaults/webhooks.js';
import {
  InvalidInputError,
  mdStoreError,
  OperationNotAllowedError,
  type ValidationIssue,
} from '../../errors.js';
import type { WebhookDeliveryRecord, WebhookRecord } from '../../model/records.js';
import { issueAt } from '../../validation/issues.js';
import { UuidSchema } from '../../validation/schemas.js';
import { parseCreateWebhookBody } from '../../validation/webhooks.js';
import { assertOwnedActive, assertWholeProjectReach, inKeyScope } from '../access.js';
import { decodeCursor, encodeCursor, integerIn } from '../audit.js';
import type { Principal } from '../authentication.js';
import type { MdStoreContext } from '../context.js';
import { deferred } from '../deferred-body.js';
import { newWebhookSecret } from './signing.js';

/** A webhook as listed (extensions §7): never its secret nor its delivery lease. */
export interface WebhookView {
  readonly id: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly projectId: string | null;
  readonly active: boolean;
  readonly disabledReason: string | null;
  readonly createdAt: number;
}

/** A webhook right after its creation: the only time its secret is shown. */
export interface CreatedWebhook extends WebhookView {
  readonly secret: string;
}

export interface DeliveryPage {
  readonly deliveries: WebhookDeliveryRecord[];
  readonly nextCursor: string | null;
}

export const toWebhookView = (w: WebhookRecord): WebhookView => ({
  id: w.id,
  url: w.url,
  events: w.events,
  projectId: w.projectId,
  active: w.active,
  disabledReason: w.disabledReason,
  createdAt: w.createdAt,
});

const notFound = (webhookId: string) => mdStoreError('WEBHOOK_NOT_FOUND', { webhookId });

/** Whether the key sees the webhook: its account's, and (for a scoped key) of a project it reaches. */
const visibleTo = (principal: Principal, w: WebhookRecord): boolean =>
  w.accountId === principal.accountId &&
  (principal.projectIds === null || (w.projectId !== null && inKeyScope(principal, w.projectId)));

/** The webhook of a path id the key sees, else 404 (a malformed id is 422). */
async function loadWebhook(ctx: MdStoreContext, principal: Principal, rawId: string): Promise<WebhookRecord> {
  assertWholeProjectReach(principal);
  const parsed = v.safeParse(UuidSchema, rawId);
  if (!parsed.success) throw new InvalidInputError([issueAt(['path', 'webhook_id'], 'uuid')]);
  const webhook = await ctx.records.findWebhook({ webhookId: parsed.output });
  if (!webhook || !visibleTo(principal, webhook)) throw notFound(parsed.output);
  return webhook;
}

/**
 * A `project_id` must name an active project the key reaches, decided as on every project route
 * (`assertOwnedActive`: another account's is `403`, a missing one or one outside the key's scope `404`).
 */
async function assertReachableProject(ctx: MdStoreContext, principal: Principal, projectId: string | null) {
  if (projectId === null) {
    // A scoped key reaches some projects only: a webhook of every project would reach further.
    if (principal.projectIds !== null) throw new OperationNotAllowedError();
    return;
  }
  assertOwnedActive(await ctx.records.findProjectById({ projectId }), principal, projectId);
}

/** The URL's host must be allowed now (public addresses unless private ones are allowed): 422 at `url`. */
async function assertAllowedTarget(ctx: MdStoreContext, url: string): Promise<void> {
  if (!ctx.webhookTransport) return;
  const check = await ctx.webhookTransport.checkTarget(url);
  if (!check.allowed) {
    throw new InvalidInputError([
      { loc: ['body', 'url'], msg: `Value error, ${check.reason}`, type: 'value_error' },
    ]);
  }
}

/** `POST /api/webhooks`: a new active webhook; its secret shown once. */
export async function createWebhook(
  ctx: MdStoreContext,
  input: { principal: Principal; body: unknown },
): Promise<CreatedWebhook> {
  // Extensions §14: a webhook sees every change of its projects, so not for a key confined to folders.
  assertWholeProjectReach(input.principal);
  const body = deferred<unknown>(input.body);
  body.check();
  const fields = parseCreateWebhookBody(await body.read());
  await assertReachableProject(ctx, input.principal, fields.projectId);
  await assertAllowedTarget(ctx, fields.url);
  // Issue 34: a bounded number of webhooks per account, so that their listing is bounded.
  const max = WEBHOOK_LIMITS.maxPerAccount;
  if ((await ctx.records.listWebhooks({ accountId: input.principal.accountId, limit: max })).length >= max) {
    throw mdStoreError('COUNT_LIMIT_REACHED', { what: 'webhooks', max });
  }
  const webhook: WebhookRecord = {
    id: ctx.ids.uuid(),
    accountId: input.principal.accountId,
    url: fields.url,
    events: fields.events,
    projectId: fields.projectId,
    secret: newWebhookSecret(WEBHOOK_LIMITS.secretBytes),
    active: true,
    disabledReason: null,
    createdAt: ctx.clock.now(),
    cursorSeq: null,
    attempt: 0,
    nextAttemptAt: null,
    leaseOwner: null,
    leaseExpiresAt: null,
  };
  await ctx.records.withTransaction((tx) => tx.insertWebhook({ webhook }));
  return { ...toWebhookView(webhook), secret: webhook.secret };
}

/**
 * `GET /api/webhooks`: the webhooks the key sees, oldest first; one bounded read (`LIMIT`
 * `WEBHOOK_LIMITS.maxPerAccount`, the most an account may create: issue 34).
 */
export async function listWebhooks(
  ctx: MdStoreContext,
  input: { principal: Principal },
): Promise<WebhookView[]> {
  assertWholeProjectReach(input.principal);
  const all = await ctx.records.listWebhooks({
    accountId: input.principal.accountId,
    limit: WEBHOOK_LIMITS.maxPerAccount,
  });
  return all.filter((w) => visibleTo(input.principal, w)).map(toWebhookView);
}

/** `GET /api/webhooks/{id}`. */
export async function getWebhook(
  ctx: MdStoreContext,
  input: { principal: Principal; webhookId: string },
): Promise<WebhookView> {
  return toWebhookView(await loadWebhook(ctx, input.principal, input.webhookId));
}

/** `DELETE /api/webhooks/{id}`: the webhook and its deliveries log; nothing more is sent. */
export async function deleteWebhook(
  ctx: MdStoreContext,
  input: { principal: Principal; webhookId: string },
): Promise<void> {
  const webhook = await loadWebhook(ctx, input.principal, input.webhookId);
  if (!(await ctx.records.withTransaction((tx) => tx.deleteWebhook({ webhookId: webhook.id })))) {
    throw notFound(webhook.id);
  }
}

/** `POST /api/webhooks/{id}/enable`: active again, from its pending event, with a fresh retry schedule. */
export async function enableWebhook(
  ctx: MdStoreContext,
  input: { principal: Principal; webhookId: string },
): Promise<WebhookView> {
  const webhook = await loadWebhook(ctx, input.principal, input.webhookId);
  await assertAllowedTarget(ctx, webhook.url);
  if (!(await ctx.records.withTransaction((tx) => tx.enableWebhook({ webhookId: webhook.id })))) {
    throw notFound(webhook.id);
  }
  return { ...toWebhookView(webhook), active: true, disabledReason: null };
}

/** `GET /api/webhooks/{id}/deliveries` (`limit`, `cursor`): attempts, newest first. */
export async function listDeliveries(
  ctx: MdStoreContext,
  input: { principal: Principal; webhookId: string; params?: Partial<Record<'limit' | 'cursor', string>> },
): Promise<DeliveryPage> {
  const params = input.params ?? {};
  const issues: ValidationIssue[] = [];
  const limit =
    params.limit === undefined
      ? WEBHOOK_LIMITS.deliveriesPageDefault
      : integerIn(params.limit, 1, WEBHOOK_LIMITS.deliveriesPageMax);
  if (limit === undefined) {
    const msg = `Input should be an integer from 1 to ${WEBHOOK_LIMITS.deliveriesPageMax}`;
    issues.push({ loc: ['query', 'limit'], msg, type: 'value_error' });
  }
  const after = params.cursor === undefined ? undefined : decodeCursor(params.cursor);
  if (params.cursor !== undefined && after === undefined) {
    issues.push({
      loc: ['query', 'cursor'],
      msg: 'Value error, not a cursor of this list',
      type: 'value_error',
    });
  }
  if (issues.length > 0 || limit === undefined) throw new InvalidInputError(issues);
  const webhook = await loadWebhook(ctx, input.principal, input.webhookId);
  const rows = await ctx.records.listWebhookDeliveries({
    webhookId: webhook.id,
    limit: limit + 1,
    ...(after !== undefined && { after }),
  });
  const deliveries = rows.slice(0, limit);
  const last = deliveries.at(-1);
  return {
    deliveries,
    nextCursor: rows.length > limit && last ? encodeCursor({ at: last.at, id: last.id }) : null,
  };
}

/** Reconciliation's part: delivery attempts older than the log's retention, in batches. */
export async function expireDeliveries(ctx: MdStoreContext): Promise<number> {
  const before = ctx.clock.now() - WEBHOOK_LIMITS.deliveriesRetentionDays * DAY_MS;
  const limit = WEBHOOK_LIMITS.deliveriesExpiryBatch;
  let removed = 0;
  for (;;) {
    const batch = await ctx.records.withTransaction((tx) =>
      tx.deleteWebhookDeliveriesBefore({ before, limit }),
    );
    removed += batch;
    if (batch < limit) return removed;
  }
}
