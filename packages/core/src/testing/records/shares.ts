import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { ShareRecord } from '../../model/records.js';
import type { RecordsRepository } from '../../ports/records.js';
import { BASE_TIME, sha256Hex } from '../builders.js';
import { type SuiteContext, seedProject } from './support.js';

/** Share links (extensions §11): stored with the token's hash only, found by it, listed, revoked. */

function aShare(
  project: { id: string; accountId: string },
  overrides: Partial<ShareRecord> = {},
): ShareRecord {
  return {
    id: randomUUID(),
    accountId: project.accountId,
    projectId: project.id,
    filename: 'guides/setup.md',
    prefix: null,
    tokenHash: sha256Hex(randomUUID()),
    createdBy: randomUUID(),
    createdAt: BASE_TIME,
    expiresAt: BASE_TIME + 604_800_000,
    revokedAt: null,
    ...overrides,
  };
}

async function seedShare(repository: RecordsRepository, share: ShareRecord): Promise<ShareRecord> {
  await repository.withTransaction((tx) => tx.insertShare({ share }));
  return share;
}

export function sharesSuite({ test }: SuiteContext): void {
  describe('Share links', () => {
    test('inserts a share of a file or of a folder and finds it by id and by token hash', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const file = await seedShare(repository, aShare(project, { filename: 'ünïcode/ファイル.md' }));
      const folder = await seedShare(
        repository,
        aShare(project, { filename: null, prefix: 'guides/', createdBy: null }),
      );
      expect(await repository.findShareById({ shareId: file.id })).toEqual(file);
      expect(await repository.findShareByHash({ tokenHash: file.tokenHash })).toEqual(file);
      expect(await repository.findShareByHash({ tokenHash: folder.tokenHash })).toEqual(folder);
      expect(await repository.findShareById({ shareId: randomUUID() })).toBeNull();
      expect(await repository.findShareByHash({ tokenHash: sha256Hex('unknown') })).toBeNull();
    });

    test('lists a project’s shares oldest first, revoked and expired ones too; none of another project', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const other = await seedProject(repository, { accountId: project.accountId });
      const later = await seedShare(repository, aShare(project, { createdAt: BASE_TIME + 2 }));
      const expired = await seedShare(
        repository,
        aShare(project, { createdAt: BASE_TIME + 1, expiresAt: 0 }),
      );
      await seedShare(repository, aShare(other));
      const revokedAt = BASE_TIME + 5;
      expect(await repository.withTransaction((tx) => tx.revokeShare({ shareId: later.id, revokedAt }))).toBe(
        true,
      );
      expect(await repository.listShares({ projectId: project.id })).toEqual([
        expired,
        { ...later, revokedAt },
      ]);
      expect(await repository.listShares({ projectId: randomUUID() })).toEqual([]);
    });

    test('lists only live shares with liveAt, and at most limit of them (issue 34)', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const first = await seedShare(repository, aShare(project, { createdAt: BASE_TIME + 1 }));
      await seedShare(repository, aShare(project, { createdAt: BASE_TIME + 2, expiresAt: BASE_TIME + 10 }));
      const revoked = await seedShare(repository, aShare(project, { createdAt: BASE_TIME + 3 }));
      const last = await seedShare(repository, aShare(project, { createdAt: BASE_TIME + 4 }));
      await repository.withTransaction((tx) =>
        tx.revokeShare({ shareId: revoked.id, revokedAt: BASE_TIME + 5 }),
      );
      const projectId = project.id;
      // At BASE_TIME + 10 the second share has just expired (expiresAt is not after it).
      expect(await repository.listShares({ projectId, liveAt: BASE_TIME + 10 })).toEqual([first, last]);
      expect(await repository.listShares({ projectId, liveAt: BASE_TIME + 10, limit: 1 })).toEqual([first]);
      expect((await repository.listShares({ projectId, limit: 3 })).map((share) => share.id)).toHaveLength(3);
    });

    test('revokes once: a second revocation, or of an unknown share, is false and changes nothing', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const share = await seedShare(repository, aShare(project));
      const revoke = (shareId: string, revokedAt: number) =>
        repository.withTransaction((tx) => tx.revokeShare({ shareId, revokedAt }));
      expect(await revoke(share.id, BASE_TIME + 10)).toBe(true);
      expect(await revoke(share.id, BASE_TIME + 20)).toBe(false);
      expect(await revoke(randomUUID(), BASE_TIME + 20)).toBe(false);
      expect(await repository.findShareByHash({ tokenHash: share.tokenHash })).toEqual({
        ...share,
        revokedAt: BASE_TIME + 10,
      });
    });

    test('a share inserted in a transaction that fails is not kept', async ({ repository }) => {
      const project = await seedProject(repository);
      const share = aShare(project);
      await expect(
        repository.withTransaction(async (tx) => {
          await tx.insertShare({ share });
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      expect(await repository.findShareById({ shareId: share.id })).toBeNull();
    });
  });
}
