import * as v from 'valibot';
import { ApiKeyNotFoundError, InvalidInputError, mdStoreError, OperationNotAllowedError } from '../errors.js';
import type { ApiKeyRecord, Role } from '../model/records.js';
import { issueAt } from '../validation/issues.js';
import { type CreateKeyInput, KEY_LIMITS, parseCreateKeyBody } from '../validation/keys.js';
import { UuidSchema } from '../validation/schemas.js';
import { assertOwnedActive, inFolders, inKeyScope, roleCovers } from './access.js';
import type { Principal } from './authentication.js';
import type { MdStoreContext } from './context.js';
import { deferred } from './deferred-body.js';

/** What a key may do: the part of a key that "no more than its creator" compares. */
export interface KeyReach {
  readonly role: Role;
  readonly projectIds: readonly string[] | null;
  readonly pathPrefixes: readonly string[] | null;
  readonly expiresAt: number | null;
}

/** A key as listed (extensions §8): never its secret nor its hash. */
export interface KeyView extends KeyReach {
  readonly keyId: string;
  readonly name: string;
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
}

/** A key right after its creation: the only time its secret is shown. */
export interface CreatedKey extends KeyView {
  readonly apiKey: string;
}

/**
 * Whether `wanted` reaches no further than `held`: a role no higher, a subset of its projects when it is
 * scoped, only folders inside its folders when it has some (extensions §14), an expiry no later when it
 * expires.
 */
export function reachesNoFurther(held: KeyReach, wanted: KeyReach): boolean {
  if (!roleCovers(held.role, wanted.role)) return false;
  if (held.projectIds !== null) {
    if (wanted.projectIds === null) return false;
    if (!wanted.projectIds.every((id) => held.projectIds!.includes(id))) return false;
  }
  if (held.pathPrefixes !== null) {
    if (wanted.pathPrefixes === null) return false;
    if (!wanted.pathPrefixes.every((folder) => inFolders(held.pathPrefixes, folder))) return false;
  }
  if (held.expiresAt !== null && (wanted.expiresAt === null || wanted.expiresAt > held.expiresAt))
    return false;
  return true;
}

export const toKeyView = (key: ApiKeyRecord): KeyView => ({
  keyId: key.id,
  name: key.name,
  role: key.role,
  projectIds: key.projectIds,
  pathPrefixes: key.pathPrefixes,
  expiresAt: key.expiresAt,
  createdAt: key.createdAt,
  lastUsedAt: key.lastUsedAt,
});

/** A new key record and its secret. */
export async function newKey(
  ctx: MdStoreContext,
  accountId: string,
  fields: CreateKeyInput,
  at: number,
): Promise<{ record: ApiKeyRecord; secret: string }> {
  const secret = ctx.secrets.generate();
  const record: ApiKeyRecord = {
    id: ctx.ids.uuid(),
    accountId,
    keyHash: await ctx.secrets.hash(secret),
    name: fields.name,
    role: fields.role,
    projectIds: fields.projectIds,
    pathPrefixes: fields.pathPrefixes,
    expiresAt: fields.expiresAt,
    createdAt: at,
    revokedAt: null,
    lastUsedAt: null,
  };
  return { record, secret };
}

/**
 * Each project of a new key's scope must be an active project of the account (`422` at its index): the
 * admin CLI's check, which has an account and no key. `POST /api/keys` decides as the project routes do
 * (`assertReachableProjects`), after the creator's reach, so a scoped creator naming a project outside
 * its own gets `403` "API key does not allow this operation".
 */
export async function assertAccountProjects(
  ctx: MdStoreContext,
  accountId: string,
  projectIds: readonly string[] | null,
  loc: readonly (string | number)[],
): Promise<void> {
  if (projectIds === null) return;
  const found = await Promise.all(projectIds.map((projectId) => ctx.records.findProjectById({ projectId })));
  const issues = found.flatMap((project, index) =>
    project?.accountId === accountId && project.status === 'active'
      ? []
      : [{ loc: [...loc, index], msg: 'Value error, not a project of this account', type: 'value_error' }],
  );
  if (issues.length > 0) throw new InvalidInputError(issues);
}

/**
 * Each project of a key's scope, named by a key: decided as on every project route (`assertOwnedActive`:
 * another account's is `403`, a missing or inactive one `404`).
 */
async function assertReachableProjects(
  ctx: MdStoreContext,
  principal: Principal,
  projectIds: readonly string[] | null,
): Promise<void> {
  for (const projectId of projectIds ?? []) {
    assertOwnedActive(await ctx.records.findProjectById({ projectId }), principal, projectId);
  }
}

/** `POST /api/keys`: a key with no more than the creating key has (else 403); its secret shown once. */
export async function createKey(
  ctx: MdStoreContext,
  input: { principal: Principal; body: unknown },
): Promise<CreatedKey> {
  const body = deferred<unknown>(input.body);
  body.check();
  const at = ctx.clock.now();
  const fields = parseCreateKeyBody(await body.read(), at);
  if (!reachesNoFurther(input.principal, fields)) throw new OperationNotAllowedError();
  await assertReachableProjects(ctx, input.principal, fields.projectIds);
  await assertBelowKeyLimit(ctx, input.principal.accountId);
  const { record, secret } = await newKey(ctx, input.principal.accountId, fields, at);
  await ctx.records.withTransaction((tx) => tx.insertApiKey({ apiKey: record }));
  return { ...toKeyView(record), apiKey: secret };
}

/**
 * Issue 34: an account holds at most `KEY_LIMITS.maxActive` keys not revoked, so that their listing is
 * bounded. Checked before the insert, not in its transaction: two creations at once may pass it by one.
 */
async function assertBelowKeyLimit(ctx: MdStoreContext, accountId: string): Promise<void> {
  const max = KEY_LIMITS.maxActive;
  const active = await ctx.records.listApiKeys({ accountId, activeOnly: true, limit: max });
  if (active.length >= max) throw mdStoreError('COUNT_LIMIT_REACHED', { what: 'API keys', max });
}

/**
 * Whether a key lies within the project scope of `principal` (extensions §8): every key for an unscoped
 * principal; for a project-scoped one, only keys scoped to a subset of its projects, so that a listing
 * never names a project that is `404` to it everywhere else (nor a key reaching every project).
 */
export const withinKeyScope = (
  principal: Principal,
  key: Pick<ApiKeyRecord, 'projectIds' | 'pathPrefixes'>,
): boolean =>
  (principal.projectIds === null || (key.projectIds?.every((id) => inKeyScope(principal, id)) ?? false)) &&
  // Extensions §14: a key confined to folders sees the keys confined inside them.
  (principal.pathPrefixes === null ||
    (key.pathPrefixes?.every((folder) => inFolders(principal.pathPrefixes, folder)) ?? false));

/**
 * `GET /api/keys`: the account's keys that are not revoked and lie within the key's scope, oldest first
 * (at most `KEY_LIMITS.maxActive`, read with that LIMIT).
 */
export async function listKeys(ctx: MdStoreContext, input: { principal: Principal }): Promise<KeyView[]> {
  const keys = await ctx.records.listApiKeys({
    accountId: input.principal.accountId,
    activeOnly: true,
    limit: KEY_LIMITS.maxActive,
  });
  return keys.filter((key) => withinKeyScope(input.principal, key)).map(toKeyView);
}

/**
 * `GET /api/keys/current`: the key that makes the request, as the listing shows it, so that a client
 * (the console) learns its own role and reach without the admin-only listing. The principal was just
 * authenticated from this key, so it exists and is not revoked; one revoked in between is 404.
 */
export async function currentKey(ctx: MdStoreContext, input: { principal: Principal }): Promise<KeyView> {
  const key = await ctx.records.findApiKeyById({ keyId: input.principal.keyId });
  if (!key || key.accountId !== input.principal.accountId || key.revokedAt !== null) {
    throw new ApiKeyNotFoundError(input.principal.keyId);
  }
  return toKeyView(key);
}

/**
 * `DELETE /api/keys/{id}`: revokes a key of the account at once (the next request presenting it, on any
 * instance, is refused: keys are never cached). A key may revoke itself, or a key reaching no further
 * than it does (else 403); an unknown, other account's or already revoked key is 404.
 */
export async function revokeKey(
  ctx: MdStoreContext,
  input: { principal: Principal; keyId: string },
): Promise<void> {
  const parsed = v.safeParse(UuidSchema, input.keyId);
  if (!parsed.success) {
    throw new InvalidInputError([issueAt(['path', 'key_id'], 'uuid')]);
  }
  const keyId = parsed.output;
  const key = await ctx.records.findApiKeyById({ keyId });
  if (!key || key.accountId !== input.principal.accountId || key.revokedAt !== null) {
    throw new ApiKeyNotFoundError(keyId);
  }
  if (key.id !== input.principal.keyId && !reachesNoFurther(input.principal, key)) {
    throw new OperationNotAllowedError();
  }
  const revokedAt = ctx.clock.now();
  if (!(await ctx.records.withTransaction((tx) => tx.revokeApiKey({ keyId, revokedAt })))) {
    throw new ApiKeyNotFoundError(keyId);
  }
}
