import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { FileRecord, RevisionRecord } from '../../model/records.js';
import { aRevision, BASE_TIME, sha256Hex } from '../builders.js';
import { type SuiteContext, seedFile, seedProject } from './support.js';

/** Bytes with every value, so that no encoding or text conversion can pass unnoticed. */
const allByteValues = (size: number): Uint8Array =>
  Uint8Array.from({ length: size }, (_, i) => (i * 7 + 3) % 256);

export function revisionsSuite({ test }: SuiteContext): void {
  describe('revisions and inline content', () => {
    test('finds a revision by file and number, and lists them newest first with a limit and a bound', async ({
      repository,
    }) => {
      const file = await seedFile(repository, { metadataJson: '{"v":1}' });
      const revisions: RevisionRecord[] = [aRevision(file)];
      for (let revision = 2; revision <= 5; revision++) {
        const next = aRevision(
          { ...file, revision, contentKey: `${file.id}/${randomUUID()}`, updatedAt: BASE_TIME + revision },
          {
            change: revision % 2 === 0 ? 'metadata' : 'edit',
            metadataJson: `{"v":${revision}}`,
            inline: true,
          },
        );
        revisions.push(next);
        await repository.withTransaction((tx) => tx.insertRevision({ revision: next }));
      }
      const other = await seedFile(repository, { projectId: file.projectId });

      expect(await repository.findRevision({ fileId: file.id, revision: 3 })).toEqual(revisions[2]);
      expect(await repository.findRevision({ fileId: file.id, revision: 6 })).toBeNull();
      expect(await repository.findRevision({ fileId: other.id, revision: 2 })).toBeNull();
      const newestFirst = [...revisions].reverse();
      expect(await repository.listRevisions({ fileId: file.id, limit: 100 })).toEqual(newestFirst);
      expect(await repository.listRevisions({ fileId: file.id, limit: 2 })).toEqual(newestFirst.slice(0, 2));
      expect(await repository.listRevisions({ fileId: file.id, limit: 2, beforeRevision: 4 })).toEqual(
        newestFirst.slice(2, 4),
      );
      expect(await repository.listRevisions({ fileId: file.id, limit: 10, beforeRevision: 1 })).toEqual([]);
      expect(await repository.listRevisionContents({ fileId: file.id })).toEqual(
        newestFirst.map(({ revision, contentKey, inline, sizeBytes, createdAt }) => ({
          revision,
          contentKey,
          inline,
          sizeBytes,
          createdAt,
        })),
      );
      expect(await repository.listRevisions({ fileId: randomUUID(), limit: 10 })).toEqual([]);
    });

    test('deletes exactly the revisions named, of that file only', async ({ repository }) => {
      const file = await seedFile(repository);
      const other = await seedFile(repository, { projectId: file.projectId });
      await repository.withTransaction(async (tx) => {
        for (const revision of [2, 3, 4])
          await tx.insertRevision({ revision: aRevision({ ...file, revision }) });
        await tx.insertRevision({ revision: aRevision({ ...other, revision: 2 }) });
      });
      await repository.withTransaction((tx) => tx.deleteRevisions({ fileId: file.id, revisions: [1, 3] }));
      const left = (await repository.listRevisionContents({ fileId: file.id })).map((r) => r.revision);
      expect(left).toEqual([4, 2]);
      expect((await repository.listRevisionContents({ fileId: other.id })).map((r) => r.revision)).toEqual([
        2, 1,
      ]);
      await repository.withTransaction((tx) => tx.deleteRevisions({ fileId: file.id, revisions: [] }));
      expect((await repository.listRevisionContents({ fileId: file.id })).map((r) => r.revision)).toEqual([
        4, 2,
      ]);
    });

    test('stores inline content byte for byte, per project, until deleted', async ({ repository }) => {
      const project = await seedProject(repository);
      const otherProject = await seedProject(repository);
      const key = `${randomUUID()}/${randomUUID()}`;
      const bytes = allByteValues(256 * 1024 + 1);
      await repository.withTransaction((tx) =>
        tx.insertInlineContent({ projectId: project.id, contentKey: key, bytes }),
      );
      const read = await repository.readInlineContent({ projectId: project.id, contentKey: key });
      expect(read).not.toBeNull();
      expect(Buffer.from(read!).equals(Buffer.from(bytes))).toBe(true);
      expect(await repository.readInlineContent({ projectId: otherProject.id, contentKey: key })).toBeNull();
      expect(await repository.readInlineContent({ projectId: project.id, contentKey: `${key}x` })).toBeNull();

      // The caller's array is not kept: changing it afterwards changes nothing stored.
      bytes[0] = (bytes[0]! + 1) % 256;
      const again = await repository.readInlineContent({ projectId: project.id, contentKey: key });
      expect(again![0]).toBe(3);

      await repository.withTransaction((tx) =>
        tx.deleteInlineContent({ projectId: project.id, contentKey: key }),
      );
      expect(await repository.readInlineContent({ projectId: project.id, contentKey: key })).toBeNull();
    });

    test('a rolled-back transaction leaves no revision and no inline content', async ({ repository }) => {
      const file = await seedFile(repository);
      const next: FileRecord = {
        ...file,
        revision: 2,
        contentKey: `${file.id}/${randomUUID()}`,
        inline: true,
      };
      const failure = new Error('rolled back on purpose');
      await expect(
        repository.withTransaction(async (tx) => {
          await tx.insertInlineContent({
            projectId: file.projectId,
            contentKey: next.contentKey,
            bytes: allByteValues(10),
          });
          await tx.updateFile({ file: next });
          await tx.insertRevision({ revision: aRevision(next) });
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(
        await repository.readInlineContent({ projectId: file.projectId, contentKey: next.contentKey }),
      ).toBeNull();
      expect(await repository.findRevision({ fileId: file.id, revision: 2 })).toBeNull();
      expect(await repository.findFile({ projectId: file.projectId, filename: file.filename })).toEqual(file);
    });

    test('purgeProjectRecords removes the files, revisions and inline contents of that project only', async ({
      repository,
    }) => {
      const file = await seedFile(repository, { inline: true });
      const kept = await seedFile(repository, { inline: true, sha256: sha256Hex('kept') });
      const bytes = allByteValues(100);
      await repository.withTransaction(async (tx) => {
        await tx.insertInlineContent({ projectId: file.projectId, contentKey: file.contentKey, bytes });
        await tx.insertInlineContent({ projectId: kept.projectId, contentKey: kept.contentKey, bytes });
      });
      const deleted = await repository.withTransaction((tx) =>
        tx.purgeProjectRecords({ projectId: file.projectId, limit: 1000 }),
      );
      // The file, its revision and its inline content.
      expect(deleted).toBe(3);
      expect(await repository.findFile({ projectId: file.projectId, filename: file.filename })).toBeNull();
      expect(await repository.findRevision({ fileId: file.id, revision: 1 })).toBeNull();
      expect(
        await repository.readInlineContent({ projectId: file.projectId, contentKey: file.contentKey }),
      ).toBeNull();
      expect(await repository.findRevision({ fileId: kept.id, revision: 1 })).toEqual(aRevision(kept));
      expect(
        await repository.readInlineContent({ projectId: kept.projectId, contentKey: kept.contentKey }),
      ).not.toBeNull();
    });
  });
}
