import { createMdStore, IN_PROCESS_KEY_ID, type MdStore, wireBody } from '@mdstore/core';
import { createMemoryBlobStore, createMemoryRateLimiter, createMemoryRecords } from '@mdstore/memory';
import { describe, expect, it } from 'vitest';
import { codeOf, readText, textStream } from './support/fixture.js';

/**
 * The facade as an embedder uses it (docs/embedding.md): a principal made in process from an account,
 * without any API key, and typed inputs (the types of the valibot body schemas), so a misspelt field or
 * a wrong type does not compile; wire input goes through `wireBody` and is validated as before.
 */

const newStore = () =>
  createMdStore({
    records: createMemoryRecords(),
    blobs: createMemoryBlobStore(),
    rateLimiter: createMemoryRateLimiter(),
  });

describe('the in-process principal', () => {
  it('acts for the account, by name or id, with no key authenticated', async () => {
    const store = newStore();
    const { account, defaultProject } = await store.accounts.create({ name: 'me' });
    const principal = await store.accounts.principal({ account: 'me' });
    // An admin of the whole account, with no expiry: what a key made before roles existed is.
    expect(principal).toEqual({
      accountId: account.id,
      keyId: IN_PROCESS_KEY_ID,
      tier: 'standard',
      role: 'admin',
      projectIds: null,
      pathPrefixes: null,
      expiresAt: null,
    });
    expect(await store.accounts.principal({ account: account.id.toUpperCase() })).toEqual(principal);
    const project = await store.projects.create({
      principal,
      body: { name: 'Notes', settings: { keep_revisions: 3 } },
    });
    expect(project.settings.keepRevisions).toBe(3);
    await store.files.upload({
      principal,
      projectId: project.id,
      filename: 'a.md',
      content: textStream('# a\n'),
    });
    const read = await store.files.download({ principal, projectId: project.id, filename: 'a.md' });
    expect(await readText(read.content)).toBe('# a\n');
    const projects = await store.projects.list({ principal });
    expect(projects.map((p) => p.id).sort()).toEqual([defaultProject.id, project.id].sort());
  });

  it("is refused for an unknown account, and gives no access to another account's projects", async () => {
    const store = newStore();
    const alice = await store.accounts.create({ name: 'alice' });
    await store.accounts.create({ name: 'bob' });
    expect(await codeOf(() => store.accounts.principal({ account: 'nobody' }))).toBe('ACCOUNT_NOT_FOUND');
    const bob = await store.accounts.principal({ account: 'bob' });
    expect(
      await codeOf(() => store.projects.get({ principal: bob, projectId: alice.defaultProject.id })),
    ).toBe('FORBIDDEN');
  });
});

describe('typed inputs', () => {
  it('wire input (wireBody) is still validated by the core, with the interface errors', async () => {
    const store = newStore();
    await store.accounts.create({ name: 'me' });
    const principal = await store.accounts.principal({ account: 'me' });
    expect(await codeOf(() => store.projects.create({ principal, body: wireBody({ nmae: 'x' }) }))).toBe(
      'MALFORMED_INPUT',
    );
    expect(
      await codeOf(() =>
        store.projects.create({
          principal,
          body: wireBody({ name: 'x', settings: { keep_revisions: '5' } }),
        }),
      ),
    ).toBe('INVALID_INPUT');
  });

  it('a misspelt field or a wrong type does not compile (checked by npm run typecheck)', () => {
    // Never called: the @ts-expect-error lines fail the typecheck if the facade's types accept them.
    const misuse = (store: MdStore, principal: Awaited<ReturnType<MdStore['accounts']['principal']>>) => [
      // @ts-expect-error a typo of `name`
      store.projects.create({ principal, body: { nmae: 'Notes' } }),
      // @ts-expect-error a typo of `description`
      store.projects.create({ principal, body: { name: 'Notes', descripton: 'x' } }),
      // @ts-expect-error keep_revisions is a number
      store.projects.update({ principal, projectId: 'p', body: { settings: { keep_revisions: '5' } } }),
      // @ts-expect-error metadata is an object or null
      store.files.updateMetadata({ principal, projectId: 'p', filename: 'a.md', body: { metadata: 'x' } }),
      // @ts-expect-error `to` is the field of a move
      store.files.move({ principal, projectId: 'p', filename: 'a.md', body: { target: 'b.md' } }),
      // @ts-expect-error an edit needs `edits`
      store.files.edit({ principal, projectId: 'p', filename: 'a.md', body: { dry_run: true } }),
      // @ts-expect-error the tier is standard or premium
      store.accounts.create({ name: 'x', tier: 'gold' }),
    ];
    expect(typeof misuse).toBe('function');
  });
});
