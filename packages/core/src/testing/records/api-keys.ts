import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { ApiKeyRecord } from '../../model/records.js';
import { anApiKey, BASE_TIME, sha256Hex } from '../builders.js';
import { ascendingIds, type SuiteContext, seedAccount, seedApiKey } from './support.js';

export function apiKeysSuite({ test }: SuiteContext): void {
  describe('API keys', () => {
    test('inserts a key and finds it by id and by hash', async ({ repository }) => {
      const apiKey = await seedApiKey(repository);
      expect(await repository.findApiKeyById({ keyId: apiKey.id })).toEqual(apiKey);
      expect(await repository.findApiKeyByHash({ keyHash: apiKey.keyHash })).toEqual(apiKey);
      expect(await repository.findApiKeyById({ keyId: randomUUID() })).toBeNull();
      expect(await repository.findApiKeyByHash({ keyHash: sha256Hex('unknown') })).toBeNull();
    });

    test('findApiKeys reads only the keys asked for, of any account, revoked ones too (issue 34)', async ({
      repository,
    }) => {
      const account = await seedAccount(repository);
      const keys: ApiKeyRecord[] = [];
      for (let i = 0; i < 6; i++) keys.push(await seedApiKey(repository, { accountId: account.id }));
      const elsewhere = await seedApiKey(repository);
      await repository.withTransaction((tx) =>
        tx.revokeApiKey({ keyId: keys[1]!.id, revokedAt: BASE_TIME + 1 }),
      );
      const byId = (list: { id: string }[]) => [...list].sort((a, b) => a.id.localeCompare(b.id));
      const found = await repository.findApiKeys({
        keyIds: [keys[1]!.id, elsewhere.id, randomUUID(), keys[1]!.id],
      });
      expect(byId(found)).toEqual(byId([{ ...keys[1]!, revokedAt: BASE_TIME + 1 }, elsewhere]));
      expect(await repository.findApiKeys({ keyIds: [] })).toEqual([]);
    });

    test('finds a key with its account in one read; revoked keys too; null for an unknown hash', async ({
      repository,
    }) => {
      const account = await seedAccount(repository, { tier: 'premium' });
      await seedApiKey(repository, { accountId: (await seedAccount(repository)).id });
      const apiKey = await seedApiKey(repository, { accountId: account.id });
      expect(await repository.findApiKeyWithAccount({ keyHash: apiKey.keyHash })).toEqual({
        apiKey,
        account,
      });
      expect(await repository.findApiKeyWithAccount({ keyHash: sha256Hex('unknown') })).toBeNull();
      const revokedAt = BASE_TIME + 1;
      await repository.withTransaction((tx) => tx.revokeApiKey({ keyId: apiKey.id, revokedAt }));
      expect(await repository.findApiKeyWithAccount({ keyHash: apiKey.keyHash })).toEqual({
        apiKey: { ...apiKey, revokedAt },
        account,
      });
    });

    test('keeps role, project scope, folders, expiry and name exactly', async ({ repository }) => {
      const scoped = await seedApiKey(repository, {
        name: 'agent on two projects ✓',
        role: 'read',
        projectIds: [randomUUID(), randomUUID()],
        // Extensions §14.
        pathPrefixes: ['memories/agent ✓/', 'notes/'],
        expiresAt: BASE_TIME + 86_400_001,
      });
      const writer = await seedApiKey(repository, { role: 'write', projectIds: [] });
      expect(await repository.findApiKeyById({ keyId: scoped.id })).toEqual(scoped);
      expect(await repository.findApiKeyByHash({ keyHash: scoped.keyHash })).toEqual(scoped);
      expect(await repository.findApiKeyById({ keyId: writer.id })).toEqual(writer);
    });

    test('notes the last use of a key, never moving it back', async ({ repository }) => {
      const apiKey = await seedApiKey(repository);
      const touch = (lastUsedAt: number) =>
        repository.withTransaction((tx) => tx.touchApiKey({ keyId: apiKey.id, lastUsedAt }));
      await touch(BASE_TIME + 30_001);
      expect((await repository.findApiKeyById({ keyId: apiKey.id }))?.lastUsedAt).toBe(BASE_TIME + 30_001);
      await touch(BASE_TIME + 1);
      expect(await repository.findApiKeyById({ keyId: apiKey.id })).toEqual({
        ...apiKey,
        lastUsedAt: BASE_TIME + 30_001,
      });
      await touch(BASE_TIME + 90_002);
      expect((await repository.listApiKeys({ accountId: apiKey.accountId }))[0]?.lastUsedAt).toBe(
        BASE_TIME + 90_002,
      );
    });

    test("lists an account's keys by createdAt, then id", async ({ repository }) => {
      const account = await seedAccount(repository);
      const other = await seedAccount(repository);
      const [id1, id2, id3] = ascendingIds(3) as [string, string, string];
      const expected = [
        anApiKey({ id: id3, accountId: account.id, createdAt: BASE_TIME }),
        anApiKey({ id: id1, accountId: account.id, createdAt: BASE_TIME + 5 }),
        anApiKey({ id: id2, accountId: account.id, createdAt: BASE_TIME + 5 }),
      ];
      for (const apiKey of [expected[2]!, expected[0]!, expected[1]!]) {
        await repository.withTransaction((tx) => tx.insertApiKey({ apiKey }));
      }
      await seedApiKey(repository, { accountId: other.id });
      expect(await repository.listApiKeys({ accountId: account.id })).toEqual(expected);
      expect(await repository.listApiKeys({ accountId: randomUUID() })).toEqual([]);
    });

    test('revokes a key once; the revoked key is still found with revokedAt', async ({ repository }) => {
      const apiKey = await seedApiKey(repository);
      const revokedAt = BASE_TIME + 60_001;
      const revoke = (keyId: string, at: number) =>
        repository.withTransaction((tx) => tx.revokeApiKey({ keyId, revokedAt: at }));
      expect(await revoke(apiKey.id, revokedAt)).toBe(true);
      expect(await revoke(apiKey.id, revokedAt + 1)).toBe(false);
      expect(await revoke(randomUUID(), revokedAt)).toBe(false);
      const expected = { ...apiKey, revokedAt };
      expect(await repository.findApiKeyById({ keyId: apiKey.id })).toEqual(expected);
      expect(await repository.findApiKeyByHash({ keyHash: apiKey.keyHash })).toEqual(expected);
      expect(await repository.listApiKeys({ accountId: apiKey.accountId })).toEqual([expected]);
    });

    test('lists only the keys not revoked with activeOnly, and at most limit of them (issue 34)', async ({
      repository,
    }) => {
      const account = await seedAccount(repository);
      const [id1, id2, id3, id4] = ascendingIds(4) as [string, string, string, string];
      const keys = [id1, id2, id3, id4].map((id, i) =>
        anApiKey({ id, accountId: account.id, createdAt: BASE_TIME + i }),
      );
      for (const apiKey of keys) await repository.withTransaction((tx) => tx.insertApiKey({ apiKey }));
      await repository.withTransaction((tx) => tx.revokeApiKey({ keyId: id2, revokedAt: BASE_TIME + 9 }));
      const ids = (list: { id: string }[]) => list.map((key) => key.id);
      const accountId = account.id;
      expect(ids(await repository.listApiKeys({ accountId, activeOnly: true }))).toEqual([id1, id3, id4]);
      expect(ids(await repository.listApiKeys({ accountId, activeOnly: true, limit: 2 }))).toEqual([
        id1,
        id3,
      ]);
      expect(ids(await repository.listApiKeys({ accountId, limit: 2 }))).toEqual([id1, id2]);
      expect(await repository.listApiKeys({ accountId, limit: 0 })).toEqual([]);
    });
  });
}
