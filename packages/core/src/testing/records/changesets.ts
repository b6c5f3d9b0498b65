import { describe, expect } from 'vitest';
import { aFile, aRevision, BASE_TIME } from '../builders.js';
import { type SuiteContext, seedFile } from './support.js';

/** Changesets (extensions §9): a revision keeps the changeset that wrote it and its message. */
export function changesetsSuite({ test }: SuiteContext): void {
  describe('revisions of changesets', () => {
    test('keeps the changeset id, message and key of a revision, and null for a single write', async ({
      repository,
    }) => {
      const file = await seedFile(repository);
      const single = aRevision({ ...file, revision: 2, updatedAt: BASE_TIME + 2 });
      const inChangeset = aRevision(
        { ...file, revision: 3, updatedAt: BASE_TIME + 3 },
        {
          changesetId: 'b9a4c7f2-0d55-4c3e-9d0f-1c2b3a4d5e6f',
          message: 'Restructure: ünïcode "quoted"',
          // Extensions §14: the key that wrote it.
          keyId: '5d1e9a3c-7b2f-4e8a-9c0d-112233445566',
        },
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

    test('finds the files of a project among many names at once, in and out of a transaction', async ({
      repository,
    }) => {
      const a = await seedFile(repository, { filename: 'a.md' });
      const b = await seedFile(repository, { projectId: a.projectId, filename: 'docs/b.md' });
      const elsewhere = await seedFile(repository, { filename: 'a.md' });
      const names = ['a.md', 'docs/b.md', 'missing.md', 'a.md', 'A.md'];
      const found = await repository.findFiles({ projectId: a.projectId, filenames: names });
      expect(found.sort((x, y) => x.filename.localeCompare(y.filename))).toEqual([a, b]);
      expect(await repository.findFiles({ projectId: a.projectId, filenames: [] })).toEqual([]);
      expect(await repository.findFiles({ projectId: elsewhere.projectId, filenames: names })).toEqual([
        elsewhere,
      ]);
      // Inside a transaction: its own writes are seen.
      const c = aFile({ projectId: a.projectId, filename: 'c.md' });
      const seen = await repository.withTransaction(async (tx) => {
        await tx.insertFile({ file: c });
        await tx.deleteFile({ fileId: a.id });
        return tx.findFiles({ projectId: a.projectId, filenames: ['a.md', 'c.md'] });
      });
      expect(seen).toEqual([c]);
    });
  });
}
