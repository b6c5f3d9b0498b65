import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/composition/index.js';
import { loadConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/logger.js';
import { programArgs, REPO_ROOT } from '../support/programs.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

interface Outcome {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI exactly as the root `mdstore` script does, from the repository root. */
function cli(args: string[], env: Record<string, string> = {}): Promise<Outcome> {
  const argv = [...programArgs('cli'), ...args];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      argv,
      { cwd: REPO_ROOT, env: { PATH: process.env.PATH, MDSTORE_DATA_DIR: dataDir, ...env } },
      (error, stdout, stderr) => {
        const status = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ status, stdout, stderr });
      },
    );
  });
}

/** Expects success with JSON on stdout and nothing on stderr. */
async function succeed(args: string[]): Promise<unknown> {
  const outcome = await cli(args);
  expect(outcome, outcome.stderr).toMatchObject({ status: 0, stderr: '' });
  return JSON.parse(outcome.stdout);
}

/** Expects exit status 1 with exactly one line on stderr and nothing on stdout; returns that line. */
async function userError(args: string[], env?: Record<string, string>): Promise<string> {
  const outcome = await cli(args, env);
  expect(outcome.status, outcome.stderr).toBe(1);
  expect(outcome.stdout).toBe('');
  expect(outcome.stderr).toMatch(/^[^\n]+\n$/);
  return outcome.stderr.trimEnd();
}

let root: string;
let dataDir: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'mdstore-cli-'));
  dataDir = path.join(root, 'data');
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('the admin CLI', () => {
  let acme: Record<string, unknown>;

  it('refuses a bad configuration before opening anything', async () => {
    const line = await userError(['accounts', 'list'], { MDSTORE_RATE_LIMIT_STANDARD: 'lots' });
    expect(line).toBe(
      'mdstore: invalid configuration: MDSTORE_RATE_LIMIT_STANDARD: must be a whole number of at least 1 (got "lots")',
    );
    await expect(readdir(dataDir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('creates an account with its default project and first key', async () => {
    acme = (await succeed(['accounts', 'create', '--name', 'acme'])) as Record<string, unknown>;
    expect(acme).toEqual({
      account_id: expect.stringMatching(UUID),
      name: 'acme',
      tier: 'standard',
      created_date: expect.stringMatching(ISO),
      api_key: expect.any(String),
      key_id: expect.stringMatching(UUID),
      default_project_id: expect.stringMatching(UUID),
    });
    expect((acme.api_key as string).length).toBeGreaterThanOrEqual(43);
    const premium = await succeed(['accounts', 'create', '--name', 'Beta Corp', '--tier', 'premium']);
    expect(premium).toMatchObject({ name: 'Beta Corp', tier: 'premium' });
  });

  it('acts on the same store as the server: the printed key authenticates', async () => {
    const runtime = await createRuntime(loadConfig({ MDSTORE_DATA_DIR: dataDir }), { logger: silentLogger });
    try {
      const principal = await runtime.store.authenticate({ apiKey: acme.api_key as string });
      expect(principal).toEqual({
        accountId: acme.account_id,
        keyId: acme.key_id,
        tier: 'standard',
        role: 'admin',
        projectIds: null,
        pathPrefixes: null,
        expiresAt: null,
      });
      const projects = await runtime.store.projects.list({ principal });
      expect(projects.map((p) => [p.id, p.name, p.isDefault])).toEqual([
        [acme.default_project_id, 'Default', true],
      ]);
    } finally {
      await runtime.close();
    }
  });

  it('refuses user errors with exit status 1 and one line on stderr', async () => {
    const [taken, badTier, missingName, unknown, badFlag, noAccount, noKey] = await Promise.all([
      userError(['accounts', 'create', '--name', 'acme']),
      userError(['accounts', 'create', '--name', 'gamma', '--tier', 'gold']),
      userError(['accounts', 'create']),
      userError(['projects', 'list']),
      userError(['keys', 'list', '--account', 'acme', '--verbose']),
      userError(['keys', 'create', '--account', 'nobody']),
      userError(['keys', 'revoke', '00000000-0000-4000-8000-000000000000']),
    ]);
    expect(taken).toBe("mdstore: Account with name 'acme' already exists");
    expect(badTier).toBe("mdstore: tier: Input should be 'standard' or 'premium'");
    expect(missingName).toBe('mdstore: missing --name');
    expect(unknown).toBe("mdstore: unknown command 'projects' (run with --help)");
    expect(badFlag).toMatch(/^mdstore: keys list: Unknown option '--verbose'/);
    expect(noAccount).toBe("mdstore: Account 'nobody' not found");
    expect(noKey).toBe(
      "mdstore: API key '00000000-0000-4000-8000-000000000000' not found or already revoked",
    );
  });

  it('lists accounts in creation order, without secrets', async () => {
    const accounts = (await succeed(['accounts', 'list'])) as Array<Record<string, unknown>>;
    expect(accounts.map((a) => [a.name, a.tier])).toEqual([
      ['acme', 'standard'],
      ['Beta Corp', 'premium'],
    ]);
    expect(Object.keys(accounts[0]!).sort()).toEqual(['account_id', 'created_date', 'name', 'tier']);
  });

  it('changes the tier, by name or by id', async () => {
    expect(await succeed(['accounts', 'set-tier', 'acme', '--tier', 'premium'])).toMatchObject({
      account_id: acme.account_id,
      tier: 'premium',
    });
    expect(
      await succeed(['accounts', 'set-tier', '--account', acme.account_id as string, '--tier', 'standard']),
    ).toMatchObject({ name: 'acme', tier: 'standard' });
  });

  it('creates, lists and revokes keys; a revoked key no longer authenticates', async () => {
    const issued = (await succeed(['keys', 'create', '--account', 'acme'])) as Record<string, unknown>;
    expect(issued).toEqual({
      key_id: expect.stringMatching(UUID),
      account_id: acme.account_id,
      name: 'admin CLI',
      role: 'admin',
      project_ids: null,
      path_prefixes: null,
      expires_date: null,
      api_key: expect.any(String),
      created_date: expect.stringMatching(ISO),
    });
    expect(issued.api_key).not.toBe(acme.api_key);

    const listing = await cli(['keys', 'list', '--account', acme.account_id as string]);
    expect(listing.status).toBe(0);
    expect(listing.stdout).not.toContain(issued.api_key as string);
    expect(listing.stdout).not.toContain(acme.api_key as string);
    const keys = JSON.parse(listing.stdout) as Array<Record<string, unknown>>;
    expect(keys.map((k) => [k.key_id, k.revoked])).toEqual([
      [acme.key_id, false],
      [issued.key_id, false],
    ]);

    const revoked = await succeed(['keys', 'revoke', issued.key_id as string]);
    expect(revoked).toMatchObject({
      key_id: issued.key_id,
      revoked: true,
      revoked_date: expect.stringMatching(ISO),
    });
    expect(await userError(['keys', 'revoke', issued.key_id as string])).toMatch(/already revoked$/);

    const runtime = await createRuntime(loadConfig({ MDSTORE_DATA_DIR: dataDir }), { logger: silentLogger });
    try {
      await expect(runtime.store.authenticate({ apiKey: issued.api_key as string })).rejects.toMatchObject({
        code: 'UNAUTHENTICATED',
      });
      await expect(runtime.store.authenticate({ apiKey: acme.api_key as string })).resolves.toBeDefined();
    } finally {
      await runtime.close();
    }
  });

  it('prints its usage with --help', async () => {
    const outcome = await cli(['--help']);
    expect(outcome.status).toBe(0);
    expect(outcome.stdout).toMatch(/^Usage: npm run -s mdstore -- <command>/);
    expect(outcome.stdout).toContain('keys revoke KEY_ID');
  });
});
