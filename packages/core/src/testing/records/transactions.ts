import { describe, expect } from 'vitest';
import { aBlobIntent, aFile, anAccount, anInstance, aProject, BASE_TIME } from '../builders.js';
import { gate, settlesWithin } from '../harness.js';
import {
  asMutable,
  conflict,
  incrementFileCount,
  type SuiteContext,
  seedAccount,
  seedApiKey,
  seedFile,
  seedProject,
  snapshot,
} from './support.js';

export function transactionsSuite({ test }: SuiteContext): void {
  describe('transactions', () => {
    test('commits: the writes become visible and the result is returned', async ({ repository }) => {
      const account = anAccount();
      const project = aProject({ accountId: account.id });
      const result = await repository.withTransaction(async (tx) => {
        await tx.insertAccount({ account });
        await tx.insertProject({ project });
        return 'done';
      });
      expect(result).toBe('done');
      expect(await repository.findAccountById({ accountId: account.id })).toEqual(account);
      expect(await repository.findProjectById({ projectId: project.id })).toEqual(project);
    });

    test('a throw rolls back every write of the transaction and rethrows the same error', async ({
      repository,
    }) => {
      const file = await seedFile(repository);
      const project = (await repository.findProjectById({ projectId: file.projectId }))!;
      const apiKey = await seedApiKey(repository, { accountId: project.accountId });
      const instance = anInstance();
      const intent = aBlobIntent({ ownerInstanceId: instance.id });
      await repository.withTransaction(async (tx) => {
        await tx.upsertInstance({ instance });
        await tx.insertBlobIntent({ intent });
      });
      const before = await snapshot(repository, project);

      const boom = new Error('boom');
      const newAccount = anAccount();
      const failing = repository.withTransaction(async (tx) => {
        await tx.insertAccount({ account: newAccount });
        await tx.updateAccountTier({ accountId: project.accountId, tier: 'premium' });
        await tx.revokeApiKey({ keyId: apiKey.id, revokedAt: BASE_TIME + 1 });
        await tx.updateProject({ project: { ...project, fileCount: 99, name: 'changed' } });
        await tx.insertProject({ project: aProject({ accountId: project.accountId }) });
        await tx.deleteFile({ fileId: file.id });
        await tx.insertFile({ file: aFile({ projectId: project.id }) });
        await tx.insertBlobIntent({ intent: aBlobIntent({ ownerInstanceId: instance.id }) });
        await tx.deleteBlobIntent({ intentId: intent.id });
        await tx.upsertInstance({ instance: { ...instance, heartbeatAt: BASE_TIME + 9 } });
        throw boom;
      });
      await expect(failing).rejects.toBe(boom);
      expect(await repository.findAccountById({ accountId: newAccount.id })).toBeNull();
      expect(await snapshot(repository, project)).toEqual(before);
    });

    test('reads inside a transaction see its own writes', async ({ repository }) => {
      const account = anAccount();
      const project = aProject({ accountId: account.id, name: 'docs' });
      const file = aFile({ projectId: project.id });
      const seen = await repository.withTransaction(async (tx) => {
        await tx.insertAccount({ account });
        await tx.insertProject({ project });
        await tx.insertFile({ file });
        await tx.updateProject({ project: { ...project, fileCount: 1 } });
        return {
          account: await tx.findAccountByName({ name: account.name }),
          accounts: await tx.listAccounts(),
          project: await tx.findActiveProjectByName({ accountId: account.id, name: 'docs' }),
          locked: await tx.lockProject({ projectId: project.id }),
          files: await tx.listFiles({ projectId: project.id }),
        };
      });
      expect(seen.account).toEqual(account);
      expect(seen.accounts).toEqual([account]);
      expect(seen.project).toEqual({ ...project, fileCount: 1 });
      expect(seen.locked).toEqual({ ...project, fileCount: 1 });
      expect(seen.files).toEqual([file]);
    });

    test('uncommitted writes are invisible outside the transaction', async ({ repository }) => {
      const project = await seedProject(repository);
      const account = anAccount();
      const wrote = gate();
      const release = gate();
      const transaction = repository.withTransaction(async (tx) => {
        await tx.insertAccount({ account });
        await tx.updateProject({ project: { ...project, fileCount: 5 } });
        wrote.open();
        await release.promise;
      });
      await Promise.race([wrote.promise, transaction]);

      const outside = Promise.all([
        repository.findAccountById({ accountId: account.id }),
        repository.listAccounts(),
        repository.findProjectById({ projectId: project.id }),
      ]);
      // A store may also make outside reads wait for the commit; the wait is bounded so the test can
      // release the transaction instead of deadlocking, and only an early answer is checked.
      const answeredWhileOpen = await settlesWithin(outside, 3_000);
      release.open();
      await transaction;
      if (answeredWhileOpen) {
        const [found, accounts, seenProject] = await outside;
        expect(found).toBeNull();
        expect(accounts.map((a) => a.id)).not.toContain(account.id);
        expect(seenProject).toEqual(project);
      }
      expect(await repository.findAccountById({ accountId: account.id })).toEqual(account);
      expect((await repository.findProjectById({ projectId: project.id }))?.fileCount).toBe(5);
    });

    test("a unique-rule conflict inside a transaction rolls back the transaction's earlier writes", async ({
      repository,
    }) => {
      const existing = await seedAccount(repository, { name: 'taken' });
      const fresh = anAccount();
      const failing = repository.withTransaction(async (tx) => {
        await tx.insertAccount({ account: fresh });
        await tx.updateAccountTier({ accountId: existing.id, tier: 'premium' });
        await tx.insertAccount({ account: anAccount({ name: 'taken' }) });
      });
      await expect(failing).rejects.toMatchObject(conflict('account_name'));
      expect(await repository.findAccountById({ accountId: fresh.id })).toBeNull();
      expect(await repository.listAccounts()).toEqual([existing]);
    });

    test('concurrent lock-then-update transactions lose no update', async ({ repository }) => {
      const project = await seedProject(repository);
      await Promise.all(Array.from({ length: 20 }, () => incrementFileCount(repository, project.id)));
      expect((await repository.findProjectById({ projectId: project.id }))?.fileCount).toBe(20);
    });

    test('returns copies: mutating a given or returned record changes nothing stored', async ({
      repository,
    }) => {
      const account = anAccount();
      await repository.withTransaction((tx) => tx.insertAccount({ account }));
      asMutable(account).name = 'mutated after insert';
      const found = await repository.findAccountById({ accountId: account.id });
      expect(found?.name).not.toBe('mutated after insert');
      asMutable(found!).tier = 'premium';
      const [listed] = await repository.listAccounts();
      asMutable(listed!).createdAt = 0;
      const again = await repository.findAccountById({ accountId: account.id });
      expect(again?.tier).toBe('standard');
      expect(again?.createdAt).toBe(BASE_TIME);
    });
  });
}
