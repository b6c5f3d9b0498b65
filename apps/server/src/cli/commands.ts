import { parseArgs } from 'node:util';
import { type AccountRecord, type ApiKeyView, type MdStore, parseTier } from '@mdstore/core';

/** A mistake in the command line itself. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export type Command =
  | { readonly kind: 'help' }
  | { readonly kind: 'accounts create'; readonly name: string; readonly tier: string | undefined }
  | { readonly kind: 'accounts list' }
  | { readonly kind: 'accounts set-tier'; readonly account: string; readonly tier: string }
  | {
      readonly kind: 'keys create';
      readonly account: string;
      readonly role?: string;
      readonly projectIds?: readonly string[];
      readonly pathPrefixes?: readonly string[];
      readonly expiresDate?: string;
      readonly name?: string;
    }
  | { readonly kind: 'keys list'; readonly account: string }
  | { readonly kind: 'keys revoke'; readonly keyId: string }
  | { readonly kind: 'backup create'; readonly to: string }
  | { readonly kind: 'backup verify'; readonly path: string }
  | { readonly kind: 'restore'; readonly path: string };

/** The commands about backups (`cli/backup.ts`): they open the store's adapters, not the store. */
export type BackupCommand = Extract<Command, { kind: 'backup create' | 'backup verify' | 'restore' }>;

export const isBackupCommand = (command: Command): command is BackupCommand =>
  command.kind === 'backup create' || command.kind === 'backup verify' || command.kind === 'restore';

export const USAGE = `Usage: npm run -s mdstore -- <command> [options]

Commands:
  accounts create --name NAME [--tier standard|premium]
      Creates an account with its default project and a first API key (shown once).
  accounts list
  accounts set-tier ACCOUNT --tier standard|premium    (or --account ACCOUNT)
  keys create --account ACCOUNT [--role read|propose|write|admin] [--project PROJECT_ID]... [--folder FOLDER]...
              [--expires DATE] [--name NAME]
      Issues a new API key (shown once): admin of every project, never expiring, unless told otherwise.
      --project (repeatable, or comma-separated) confines the key to those projects; --folder (repeatable,
      or comma-separated) to the files under those folders (e.g. memories/); --expires takes an ISO 8601
      date or instant in the future.
  keys list --account ACCOUNT                          Lists keys without their secrets.
  keys revoke KEY_ID                                   Revokes a key at once.
  backup create --to DIR|s3://BUCKET/PREFIX
      Copies the whole store (records and blobs, one consistent snapshot; the server may keep running)
      into DIR, a new directory, renamed into place only when complete; or under an empty S3 prefix,
      manifest.json written last (MDSTORE_S3_ENDPOINT, _REGION, _FORCE_PATH_STYLE, _CHECKSUM apply).
  backup verify PATH|s3://BUCKET/PREFIX                Recomputes every checksum of a backup; exit 1 if
                                                       anything is wrong, each problem named on stderr.
  restore PATH
      Verifies the backup, then restores it into the configured store, which must be empty (or hold an
      unfinished restore, which is redone). Either adapter pair restores a backup of either pair.

ACCOUNT is an account id or name. The store is the one the server uses: the same environment variables
(MDSTORE_DATA_DIR, MDSTORE_DATABASE_URL, MDSTORE_BLOB_STORE, ...) apply.

Output: JSON on stdout. Exit status: 0 on success, 1 on a usage, configuration or input error (one line on
stderr), 2 when the store fails.
`;

type OptionName = 'name' | 'tier' | 'account' | 'role' | 'project' | 'folder' | 'expires' | 'to';

/** Options that may be given several times (their values are joined with commas). */
const REPEATABLE: ReadonlySet<OptionName> = new Set(['project', 'folder']);

interface CommandSpec {
  readonly options: readonly OptionName[];
  /** Names of the positional arguments, in order; each may also be given as the option of that name. */
  readonly positionals: readonly string[];
  build(values: Partial<Record<string, string>>): Command;
}

const COMMANDS: Record<string, CommandSpec> = {
  'accounts create': {
    options: ['name', 'tier'],
    positionals: [],
    build: (o) => ({ kind: 'accounts create', name: required(o, 'name'), tier: o.tier }),
  },
  'accounts list': { options: [], positionals: [], build: () => ({ kind: 'accounts list' }) },
  'accounts set-tier': {
    options: ['account', 'tier'],
    positionals: ['account'],
    build: (o) => ({ kind: 'accounts set-tier', account: required(o, 'account'), tier: required(o, 'tier') }),
  },
  'keys create': {
    options: ['account', 'role', 'project', 'folder', 'expires', 'name'],
    positionals: ['account'],
    build: (o) => ({
      kind: 'keys create',
      account: required(o, 'account'),
      ...(o.role !== undefined && { role: o.role }),
      ...(o.project !== undefined && { projectIds: o.project.split(',').map((id) => id.trim()) }),
      ...(o.folder !== undefined && { pathPrefixes: o.folder.split(',').map((folder) => folder.trim()) }),
      ...(o.expires !== undefined && { expiresDate: o.expires }),
      ...(o.name !== undefined && { name: o.name }),
    }),
  },
  'keys list': {
    options: ['account'],
    positionals: ['account'],
    build: (o) => ({ kind: 'keys list', account: required(o, 'account') }),
  },
  'keys revoke': {
    options: [],
    positionals: ['key_id'],
    build: (o) => ({ kind: 'keys revoke', keyId: required(o, 'key_id') }),
  },
  'backup create': {
    options: ['to'],
    positionals: [],
    build: (o) => ({ kind: 'backup create', to: required(o, 'to') }),
  },
  'backup verify': {
    options: [],
    positionals: ['path'],
    build: (o) => ({ kind: 'backup verify', path: required(o, 'path') }),
  },
  restore: {
    options: [],
    positionals: ['path'],
    build: (o) => ({ kind: 'restore', path: required(o, 'path') }),
  },
};

const GROUPS = ['accounts', 'keys', 'backup', 'restore'];

/** Commands of one word (no action). */
const SINGLE = new Set(['restore']);

/** Reads the command line (without `node` and the script). Throws `UsageError` for anything unexpected. */
export function parseCommand(argv: readonly string[]): Command {
  if (argv.includes('--help') || argv.includes('-h') || argv[0] === 'help') return { kind: 'help' };
  const [group, action, ...rest] = argv;
  if (group === undefined) throw new UsageError('missing command (run with --help for the list)');
  if (!GROUPS.includes(group)) throw new UsageError(`unknown command '${group}' (run with --help)`);
  if (SINGLE.has(group)) return COMMANDS[group]!.build(readArguments(group, COMMANDS[group]!, argv.slice(1)));
  if (action === undefined || action.startsWith('-')) {
    throw new UsageError(`missing ${group} command: ${actionsOf(group)}`);
  }
  const spec = COMMANDS[`${group} ${action}`];
  if (!spec) throw new UsageError(`unknown command '${group} ${action}' (expected ${actionsOf(group)})`);
  return spec.build(readArguments(`${group} ${action}`, spec, rest));
}

const actionsOf = (group: string) =>
  Object.keys(COMMANDS)
    .filter((name) => name.startsWith(`${group} `))
    .map((name) => name.slice(group.length + 1))
    .join(', ');

function readArguments(command: string, spec: CommandSpec, args: string[]): Partial<Record<string, string>> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args,
      options: Object.fromEntries(
        spec.options.map((name) => [name, { type: 'string' as const, multiple: REPEATABLE.has(name) }]),
      ),
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(`${command}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const values: Partial<Record<string, string>> = {};
  for (const [name, value] of Object.entries(parsed.values)) {
    if (typeof value === 'string') values[name] = value;
    else if (Array.isArray(value)) values[name] = value.join(',');
  }
  if (parsed.positionals.length > spec.positionals.length) {
    throw new UsageError(`${command}: unexpected argument '${parsed.positionals[spec.positionals.length]}'`);
  }
  spec.positionals.forEach((name, index) => {
    const positional = parsed.positionals[index];
    if (positional === undefined) return;
    if (values[name] !== undefined && values[name] !== positional) {
      throw new UsageError(`${command}: ${name} given twice ('${positional}' and '${values[name]}')`);
    }
    values[name] = positional;
  });
  return values;
}

function required(values: Partial<Record<string, string>>, name: string): string {
  const value = values[name];
  if (value === undefined) {
    const flag = name === 'key_id' ? 'KEY_ID' : name === 'path' ? 'PATH' : `--${name}`;
    throw new UsageError(`missing ${flag}`);
  }
  return value;
}

const iso = (epochMillis: number) => new Date(epochMillis).toISOString();

export const accountJson = (account: AccountRecord) => ({
  account_id: account.id,
  name: account.name,
  tier: account.tier,
  created_date: iso(account.createdAt),
});

export const keyJson = (key: ApiKeyView) => ({
  key_id: key.keyId,
  account_id: key.accountId,
  name: key.name,
  role: key.role,
  project_ids: key.projectIds,
  path_prefixes: key.pathPrefixes,
  expires_date: key.expiresAt === null ? null : iso(key.expiresAt),
  last_used_date: key.lastUsedAt === null ? null : iso(key.lastUsedAt),
  created_date: iso(key.createdAt),
  revoked: key.revokedAt !== null,
  revoked_date: key.revokedAt === null ? null : iso(key.revokedAt),
});

/** Runs a command against the store and returns what to print as JSON. */
export async function runCommand(
  store: MdStore,
  command: Exclude<Command, { kind: 'help' } | BackupCommand>,
): Promise<unknown> {
  switch (command.kind) {
    case 'accounts create': {
      const tier = command.tier === undefined ? undefined : parseTier(command.tier);
      const created = await store.accounts.create({ name: command.name, ...(tier && { tier }) });
      return {
        ...accountJson(created.account),
        api_key: created.apiKey.apiKey,
        key_id: created.apiKey.keyId,
        default_project_id: created.defaultProject.id,
      };
    }
    case 'accounts list':
      return (await store.accounts.list()).map(accountJson);
    case 'accounts set-tier':
      return accountJson(
        await store.accounts.setTier({ account: command.account, tier: parseTier(command.tier) }),
      );
    case 'keys create': {
      const { kind: _, ...input } = command;
      const issued = await store.apiKeys.create(input);
      const key = (await store.apiKeys.list({ account: issued.accountId })).find(
        (k) => k.keyId === issued.keyId,
      );
      return {
        key_id: issued.keyId,
        account_id: issued.accountId,
        ...(key && {
          name: key.name,
          role: key.role,
          project_ids: key.projectIds,
          path_prefixes: key.pathPrefixes,
          expires_date: key.expiresAt === null ? null : iso(key.expiresAt),
        }),
        api_key: issued.apiKey,
        created_date: iso(issued.createdAt),
      };
    }
    case 'keys list':
      return (await store.apiKeys.list({ account: command.account })).map(keyJson);
    case 'keys revoke':
      return keyJson(await store.apiKeys.revoke({ keyId: command.keyId }));
  }
}
