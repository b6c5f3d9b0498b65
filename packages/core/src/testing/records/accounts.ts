import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { anAccount, BASE_TIME } from '../builders.js';
import { ascendingIds, conflict, type SuiteContext, seedAccount } from './support.js';

export function accountsSuite({ test }: SuiteContext): void {
  describe('accounts', () => {
    test('inserts an account and finds it by id and by name', async ({ repository }) => {
      const account = await seedAccount(repository, { tier: 'premium' });
      expect(await repository.findAccountById({ accountId: account.id })).toEqual(account);
      expect(await repository.findAccountByName({ name: account.name })).toEqual(account);
      expect(await repository.findAccountById({ accountId: randomUUID() })).toBeNull();
      expect(await repository.findAccountByName({ name: `${account.name}-other` })).toBeNull();
    });

    test('lists accounts by createdAt, then id', async ({ repository }) => {
      const [id1, id2, id3, id4, id5] = ascendingIds(5) as [string, string, string, string, string];
      // The expected order agrees neither with the insertion order nor with the id order alone.
      const expected = [
        anAccount({ id: id5, createdAt: BASE_TIME - 1 }),
        anAccount({ id: id1, createdAt: BASE_TIME }),
        anAccount({ id: id3, createdAt: BASE_TIME }),
        anAccount({ id: id4, createdAt: BASE_TIME }),
        anAccount({ id: id2, createdAt: BASE_TIME + 1 }),
      ];
      for (const index of [3, 0, 4, 1, 2]) {
        const account = expected[index]!;
        await repository.withTransaction((tx) => tx.insertAccount({ account }));
      }
      expect(await repository.listAccounts()).toEqual(expected);
    });

    test('refuses a second account with the same name (rule account_name)', async ({ repository }) => {
      const first = await seedAccount(repository, { name: 'acme' });
      await expect(seedAccount(repository, { name: 'acme' })).rejects.toMatchObject(conflict('account_name'));
      expect(await repository.listAccounts()).toEqual([first]);
    });

    test('updates the tier of an account', async ({ repository }) => {
      const account = await seedAccount(repository, { tier: 'standard' });
      const updated = await repository.withTransaction((tx) =>
        tx.updateAccountTier({ accountId: account.id, tier: 'premium' }),
      );
      expect(updated).toBe(true);
      expect(await repository.findAccountById({ accountId: account.id })).toEqual({
        ...account,
        tier: 'premium',
      });
      const missing = await repository.withTransaction((tx) =>
        tx.updateAccountTier({ accountId: randomUUID(), tier: 'premium' }),
      );
      expect(missing).toBe(false);
    });
  });
}
