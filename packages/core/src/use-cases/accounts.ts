import {
  AccountNameTakenError,
  AccountNotFoundError,
  ApiKeyNotFoundError,
  isRecordConflict,
} from '../errors.js';
import {
  type AccountRecord,
  type ApiKeyRecord,
  DEFAULT_PROJECT_SETTINGS,
  type ProjectRecord,
  type ProjectSettings,
  type Tier,
} from '../model/records.js';
import type { RecordsReader } from '../ports/records.js';
import { type CreateKeyInput, parseCreateKeyBody } from '../validation/keys.js';
import { parseAccountName, parseTier } from '../validation/schemas.js';
import type { Principal } from './authentication.js';
import { withStagedResource } from './blob-intents.js';
import { emitProjectEvent } from './changes/emit.js';
import type { MdStoreContext } from './context.js';
import { assertAccountProjects, type KeyView, newKey, toKeyView } from './keys.js';
import { type ProjectView, toProjectView } from './views.js';

export const DEFAULT_PROJECT_NAME = 'Default';

/** A key as shown right after its creation: the only time the secret is ever visible. */
export interface IssuedApiKey {
  readonly keyId: string;
  readonly accountId: string;
  readonly apiKey: string;
  readonly createdAt: number;
}

export interface ApiKeyView extends KeyView {
  readonly accountId: string;
  readonly revokedAt: number | null;
}

/** The name of keys made by the admin CLI when it is given none. */
export const ADMIN_CLI_KEY_NAME = 'admin CLI';

export interface CreatedAccount {
  readonly account: AccountRecord;
  readonly apiKey: IssuedApiKey;
  readonly defaultProject: ProjectView;
}

const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Finds an account by id, or by name when the text is not an id. */
export async function resolveAccount(records: RecordsReader, idOrName: string): Promise<AccountRecord> {
  const byId = UUID_TEXT.test(idOrName)
    ? await records.findAccountById({ accountId: idOrName.toLowerCase() })
    : null;
  const account = byId ?? (await records.findAccountByName({ name: idOrName }));
  if (!account) throw new AccountNotFoundError(idOrName);
  return account;
}

/** The `keyId` of a principal made in process: it names no API key (there is none to revoke or count). */
export const IN_PROCESS_KEY_ID = 'in-process';

/**
 * The principal of an account (by id or name) for in-process use, embedding the core: no API key is
 * created or authenticated. It acts with the account's rights on its projects, as an `admin` key of the
 * whole account would (no scope, no expiry); the rate budget is the edges' (`consumeRequestBudget`), so
 * calls made with it are not counted.
 */
export async function inProcessPrincipal(
  ctx: MdStoreContext,
  input: { account: string },
): Promise<Principal> {
  const account = await resolveAccount(ctx.records, input.account);
  return {
    accountId: account.id,
    keyId: IN_PROCESS_KEY_ID,
    tier: account.tier,
    role: 'admin',
    projectIds: null,
    pathPrefixes: null,
    expiresAt: null,
  };
}

export function newProjectRecord(
  ctx: MdStoreContext,
  fields: {
    accountId: string;
    name: string;
    description: string | null;
    isDefault: boolean;
    at: number;
    settings?: Partial<ProjectSettings>;
  },
): ProjectRecord {
  const id = ctx.ids.uuid();
  return {
    ...DEFAULT_PROJECT_SETTINGS,
    ...fields.settings,
    id,
    accountId: fields.accountId,
    name: fields.name,
    description: fields.description,
    bucketName: `${ctx.settings.bucketPrefix}${id}`,
    isDefault: fields.isDefault,
    status: 'active',
    fileCount: 0,
    totalSizeBytes: 0,
    historySizeBytes: 0,
    trashSizeBytes: 0,
    attachmentCount: 0,
    attachmentBytes: 0,
    createdAt: fields.at,
    updatedAt: fields.at,
  };
}

const ADMIN_KEY: CreateKeyInput = {
  name: ADMIN_CLI_KEY_NAME,
  role: 'admin',
  projectIds: null,
  pathPrefixes: null,
  expiresAt: null,
};

async function newApiKey(ctx: MdStoreContext, accountId: string, at: number, fields = ADMIN_KEY) {
  const { record, secret } = await newKey(ctx, accountId, fields, at);
  const issued: IssuedApiKey = { keyId: record.id, accountId, apiKey: secret, createdAt: at };
  return { record, issued };
}

/** Creates an account with its first API key and its default project (and that project's bucket). */
export async function createAccount(
  ctx: MdStoreContext,
  input: { name: string; tier?: Tier },
): Promise<CreatedAccount> {
  const name = parseAccountName(input.name);
  const tier = parseTier(input.tier ?? 'standard');
  if (await ctx.records.findAccountByName({ name })) throw new AccountNameTakenError(name);
  const at = ctx.clock.now();
  const account: AccountRecord = { id: ctx.ids.uuid(), name, tier, createdAt: at };
  const project = newProjectRecord(ctx, {
    accountId: account.id,
    name: DEFAULT_PROJECT_NAME,
    description: null,
    isDefault: true,
    at,
  });
  const key = await newApiKey(ctx, account.id, at);
  try {
    await withStagedResource(
      ctx,
      { bucket: project.bucketName, key: null },
      (signal) => ctx.blobs.createBucket({ bucket: project.bucketName, signal }),
      async (tx) => {
        await tx.insertAccount({ account });
        await tx.insertApiKey({ apiKey: key.record });
        await tx.insertProject({ project });
        await emitProjectEvent(ctx, tx, { project, type: 'project.created' });
      },
    );
  } catch (error) {
    if (isRecordConflict(error, 'account_name')) throw new AccountNameTakenError(name);
    throw error;
  }
  return { account, apiKey: key.issued, defaultProject: toProjectView(project) };
}

export async function setAccountTier(
  ctx: MdStoreContext,
  input: { account: string; tier: Tier },
): Promise<AccountRecord> {
  const tier: Tier = parseTier(input.tier);
  const account = await resolveAccount(ctx.records, input.account);
  await ctx.records.withTransaction((tx) => tx.updateAccountTier({ accountId: account.id, tier }));
  return { ...account, tier };
}

/**
 * The admin CLI's key: `admin` of the whole account unless told otherwise (`role`, `project_ids`,
 * `path_prefixes`, `expires_date`, `name`: the fields and rules of `POST /api/keys`, without a creating key's limits).
 */
export async function createApiKey(
  ctx: MdStoreContext,
  input: {
    account: string;
    role?: string;
    projectIds?: readonly string[];
    pathPrefixes?: readonly string[];
    expiresDate?: string;
    name?: string;
  },
): Promise<IssuedApiKey> {
  const account = await resolveAccount(ctx.records, input.account);
  const at = ctx.clock.now();
  const fields = parseCreateKeyBody(
    {
      name: input.name ?? ADMIN_CLI_KEY_NAME,
      role: input.role ?? 'admin',
      project_ids: input.projectIds ?? null,
      path_prefixes: input.pathPrefixes ?? null,
      expires_date: input.expiresDate ?? null,
    },
    at,
  );
  await assertAccountProjects(ctx, account.id, fields.projectIds, ['body', 'project_ids']);
  const key = await newApiKey(ctx, account.id, at, fields);
  await ctx.records.withTransaction((tx) => tx.insertApiKey({ apiKey: key.record }));
  return key.issued;
}

const toApiKeyView = (key: ApiKeyRecord): ApiKeyView => ({
  ...toKeyView(key),
  accountId: key.accountId,
  revokedAt: key.revokedAt,
});

export async function listApiKeys(ctx: MdStoreContext, input: { account: string }): Promise<ApiKeyView[]> {
  const account = await resolveAccount(ctx.records, input.account);
  return (await ctx.records.listApiKeys({ accountId: account.id })).map(toApiKeyView);
}

/** Revokes a key at once: the next request that presents it is refused. */
export async function revokeApiKey(ctx: MdStoreContext, input: { keyId: string }): Promise<ApiKeyView> {
  const keyId = input.keyId.toLowerCase();
  const revokedAt = ctx.clock.now();
  const revoked = UUID_TEXT.test(keyId)
    ? await ctx.records.withTransaction((tx) => tx.revokeApiKey({ keyId, revokedAt }))
    : false;
  if (!revoked) throw new ApiKeyNotFoundError(input.keyId);
  const key = await ctx.records.findApiKeyById({ keyId });
  if (!key) throw new ApiKeyNotFoundError(input.keyId);
  return toApiKeyView(key);
}
