import { createMdStore } from '@mdstore/core';
import { createMemoryBlobStore, createMemoryRateLimiter, createMemoryRecords } from '@mdstore/memory';
import { describe, expect, it } from 'vitest';
import { parseCommand, runCommand, UsageError } from '../../src/cli/commands.js';

const usageError = (argv: string[]): string => {
  try {
    parseCommand(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error(`accepted: ${argv.join(' ')}`);
};

describe('parseCommand', () => {
  it('reads every command', () => {
    expect(parseCommand(['accounts', 'create', '--name', 'Acme Corp'])).toEqual({
      kind: 'accounts create',
      name: 'Acme Corp',
      tier: undefined,
    });
    expect(parseCommand(['accounts', 'create', '--name=acme', '--tier', 'premium'])).toMatchObject({
      tier: 'premium',
    });
    expect(parseCommand(['accounts', 'list'])).toEqual({ kind: 'accounts list' });
    expect(parseCommand(['keys', 'list', '--account', 'acme'])).toEqual({
      kind: 'keys list',
      account: 'acme',
    });
    expect(parseCommand(['keys', 'create', '--account', 'acme'])).toEqual({
      kind: 'keys create',
      account: 'acme',
    });
    expect(parseCommand(['keys', 'revoke', 'k1'])).toEqual({ kind: 'keys revoke', keyId: 'k1' });
    // Extensions §14: folders, repeatable or comma-separated, like projects.
    expect(
      parseCommand(['keys', 'create', 'acme', '--folder', 'memories/', '--folder', 'notes,drafts/']),
    ).toEqual({ kind: 'keys create', account: 'acme', pathPrefixes: ['memories/', 'notes', 'drafts/'] });
  });

  it('reads the backup commands (extensions §16)', () => {
    expect(parseCommand(['backup', 'create', '--to', '/b/1'])).toEqual({ kind: 'backup create', to: '/b/1' });
    expect(parseCommand(['backup', 'verify', '/b/1'])).toEqual({ kind: 'backup verify', path: '/b/1' });
    expect(parseCommand(['restore', '/b/1'])).toEqual({ kind: 'restore', path: '/b/1' });
    expect(usageError(['backup', 'create'])).toBe('missing --to');
    expect(usageError(['backup', 'verify'])).toBe('missing PATH');
    expect(usageError(['restore'])).toBe('missing PATH');
    expect(usageError(['restore', '/b/1', '/b/2'])).toBe("restore: unexpected argument '/b/2'");
    expect(usageError(['backup', 'delete'])).toBe(
      "unknown command 'backup delete' (expected create, verify)",
    );
  });

  it('takes the account of set-tier, keys create and keys list as a positional or as --account', () => {
    const expected = { kind: 'accounts set-tier', account: 'acme', tier: 'premium' };
    expect(parseCommand(['accounts', 'set-tier', 'acme', '--tier', 'premium'])).toEqual(expected);
    expect(parseCommand(['accounts', 'set-tier', '--account', 'acme', '--tier', 'premium'])).toEqual(
      expected,
    );
    expect(parseCommand(['accounts', 'set-tier', 'acme', '--account', 'acme', '--tier', 'premium'])).toEqual(
      expected,
    );
    expect(parseCommand(['keys', 'create', 'acme'])).toEqual({ kind: 'keys create', account: 'acme' });
    expect(usageError(['accounts', 'set-tier', 'a', '--account', 'b', '--tier', 'premium'])).toBe(
      "accounts set-tier: account given twice ('a' and 'b')",
    );
  });

  it('keys create takes a role, projects (repeated or comma-separated), an expiry and a name', () => {
    expect(
      parseCommand([
        'keys',
        'create',
        'acme',
        '--role',
        'read',
        '--project',
        'p1',
        '--project',
        'p2,p3',
        '--expires',
        '2030-01-01',
        '--name',
        'CI',
      ]),
    ).toEqual({
      kind: 'keys create',
      account: 'acme',
      role: 'read',
      projectIds: ['p1', 'p2', 'p3'],
      expiresDate: '2030-01-01',
      name: 'CI',
    });
  });

  it('keys create makes an admin key unless told otherwise; a scoped, expiring read key as asked', async () => {
    const store = createMdStore({
      records: createMemoryRecords(),
      blobs: createMemoryBlobStore(),
      rateLimiter: createMemoryRateLimiter(),
    });
    const created = await store.accounts.create({ name: 'acme' });
    const plain = await runCommand(store, parseCommand(['keys', 'create', 'acme']) as never);
    expect(plain).toMatchObject({ role: 'admin', project_ids: null, expires_date: null });
    const projectId = created.defaultProject.id;
    const scoped = await runCommand(
      store,
      parseCommand([
        'keys',
        'create',
        'acme',
        '--role',
        'read',
        '--project',
        projectId,
        '--expires',
        '2999-01-01T00:00:00Z',
      ]) as never,
    );
    expect(scoped).toMatchObject({
      role: 'read',
      project_ids: [projectId],
      expires_date: '2999-01-01T00:00:00.000Z',
    });
    await expect(
      runCommand(store, parseCommand(['keys', 'create', 'acme', '--role', 'owner']) as never),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(
      runCommand(store, parseCommand(['keys', 'create', 'acme', '--expires', '2001-01-01']) as never),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('answers help wherever it is asked for', () => {
    for (const argv of [['--help'], ['-h'], ['help'], ['accounts', 'create', '--help']]) {
      expect(parseCommand(argv)).toEqual({ kind: 'help' });
    }
  });

  it('refuses unknown commands, missing or unknown options and extra arguments', () => {
    expect(usageError([])).toBe('missing command (run with --help for the list)');
    expect(usageError(['projects', 'list'])).toBe("unknown command 'projects' (run with --help)");
    expect(usageError(['accounts'])).toBe('missing accounts command: create, list, set-tier');
    expect(usageError(['keys', 'delete'])).toBe(
      "unknown command 'keys delete' (expected create, list, revoke)",
    );
    expect(usageError(['accounts', 'create'])).toBe('missing --name');
    expect(usageError(['accounts', 'set-tier', 'acme'])).toBe('missing --tier');
    expect(usageError(['keys', 'list'])).toBe('missing --account');
    expect(usageError(['keys', 'revoke'])).toBe('missing KEY_ID');
    expect(usageError(['accounts', 'create', '--name', 'a', '--colour', 'red'])).toMatch(
      /^accounts create: Unknown option '--colour'/,
    );
    expect(usageError(['accounts', 'create', '--name'])).toMatch(
      /^accounts create: Option '--name <value>' argument missing/,
    );
    expect(usageError(['accounts', 'list', 'extra'])).toBe("accounts list: unexpected argument 'extra'");
    expect(usageError(['keys', 'revoke', 'k1', 'k2'])).toBe("keys revoke: unexpected argument 'k2'");
  });
});
