import { describe, expect } from 'vitest';
import { aRevision, BASE_TIME } from '../builders.js';
import { type SuiteContext, seedFile } from './support.js';

/** Changesets (extensions §9): a revision keeps the changeset that wrote it and its message. */
export function changesetsSuite({ test }: SuiteContext): void {
  describe('revisions of changesets', () => {
    test('keeps the changeset id and message of a revision, and null for a single write', async ({
      repository,
    }) => {
      const file = await seedFile(repository);
      const single = aRevision({ ...file, revision: 2, updatedAt: BASE_TIME + 2 });
      const inChangeset = aRevision(
        { ...file, revision: 3, updatedAt: BASE_TIME + 3 },
        { changesetId: 'b9a4c7f2-0d55-4c3e-9d0f-1c2b3a4d5e6f', message: 'Restructure: ünïcode "quoted"' },
      );
      await repository.withTransaction(async (tx) => {
        await tx.insertRevision({ revision: single });
        await tx.insertRevision({ revision: inChangeset });
      });
      expect(await repository.findRevision({ fileId: file.id, revision: 2 })).toEqual(single);
      expect(await repository.findRevision({ fileId: file.id, revision: 3 })).toEqual(inChangeset);
      const listed = await repository.listRevisions({ fileId: file.id, limit: 2 });
      expect(listed.map((revision) => [revision.changesetId, revision.message])).toEqual([
        [inChangeset.changesetId, inChangeset.message],
        [null, null],
      ]);
    });
  });
}
