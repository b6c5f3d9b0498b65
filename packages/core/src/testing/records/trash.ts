import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { TrashRecord } from '../../model/records.js';
import { aFile, aRevision, aTrashItem, BASE_TIME } from '../builders.js';
import { gate } from '../harness.js';
import { type SuiteContext, seedFile, seedProject } from './support.js';

const DAY = 86_400_000;

export function trashSuite({ test }: SuiteContext): void {
  describe('trash', () => {
    test('keeps a trash item exactly as written, file fields included, and finds it in its project only', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const other = await seedProject(repository);
      const file = aFile({
        projectId: project.id,
        filename: 'guides/ünïcode.md',
        metadataJson: '{"a":[1,"x"]}',
        frontmatterJson: '{"title":"T"}',
        inline: true,
        revision: 7,
        createdAt: BASE_TIME - 5,
        updatedAt: BASE_TIME + 3,
      });
      const item = aTrashItem(file, { deletedAt: BASE_TIME + 10, expiresAt: BASE_TIME + 10 + DAY });
      await repository.withTransaction((tx) => tx.insertTrashItem({ item }));

      expect(await repository.findTrashItem({ projectId: project.id, trashId: item.id })).toEqual(item);
      expect(await repository.findTrashItem({ projectId: other.id, trashId: item.id })).toBeNull();
      expect(await repository.findTrashItem({ projectId: project.id, trashId: randomUUID() })).toBeNull();
      // The name is free again: the trash does not hold it.
      expect(await repository.findFile({ projectId: project.id, filename: file.filename })).toBeNull();
    });

    test('lists unexpired items newest deletion first, ties by id descending, in pages after a position', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const other = await seedProject(repository);
      const at = [5, 3, 3, 3, 1, 9];
      const items = at.map((offset) =>
        aTrashItem(aFile({ projectId: project.id }), {
          deletedAt: BASE_TIME + offset,
          expiresAt: BASE_TIME + DAY,
        }),
      );
      const expired = aTrashItem(aFile({ projectId: project.id }), {
        deletedAt: BASE_TIME + 100,
        expiresAt: BASE_TIME + 50,
      });
      const elsewhere = aTrashItem(aFile({ projectId: other.id }), { deletedAt: BASE_TIME + 4 });
      await repository.withTransaction(async (tx) => {
        for (const item of [...items, expired, elsewhere]) await tx.insertTrashItem({ item });
      });
      const expected = [...items].sort(
        (a, b) => b.deletedAt - a.deletedAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0),
      );
      const now = BASE_TIME + 60;

      expect(await repository.listTrash({ projectId: project.id, now, limit: 100 })).toEqual(expected);
      expect(await repository.countTrash({ projectId: project.id, now })).toBe(items.length);
      const pages: TrashRecord[][] = [];
      let after: TrashRecord | undefined;
      for (;;) {
        const page = await repository.listTrash({ projectId: project.id, now, limit: 2, after });
        if (page.length === 0) break;
        pages.push(page);
        after = page.at(-1);
      }
      expect(pages.map((page) => page.length)).toEqual([2, 2, 2]);
      expect(pages.flat()).toEqual(expected);
      // Before the expired item's `expiresAt` it is listed and counted; at it, not any more.
      expect(
        (await repository.listTrash({ projectId: project.id, now: BASE_TIME + 49, limit: 1 }))[0],
      ).toEqual(expired);
      expect(await repository.countTrash({ projectId: project.id, now: BASE_TIME + 50 })).toBe(items.length);
      expect(await repository.countTrash({ projectId: randomUUID(), now })).toBe(0);
    });

    test('lists expired items of every project, soonest expiry first, with a limit', async ({
      repository,
    }) => {
      const first = await seedProject(repository);
      const second = await seedProject(repository);
      const soon = aTrashItem(aFile({ projectId: second.id }), { expiresAt: BASE_TIME + 1 });
      const later = aTrashItem(aFile({ projectId: first.id }), { expiresAt: BASE_TIME + 2 });
      const live = aTrashItem(aFile({ projectId: first.id }), { expiresAt: BASE_TIME + 3 });
      await repository.withTransaction(async (tx) => {
        for (const item of [live, later, soon]) await tx.insertTrashItem({ item });
      });
      expect(await repository.listExpiredTrash({ now: BASE_TIME + 2, limit: 10 })).toEqual([soon, later]);
      expect(await repository.listExpiredTrash({ now: BASE_TIME + 2, limit: 1 })).toEqual([soon]);
      expect(await repository.listExpiredTrash({ now: BASE_TIME, limit: 10 })).toEqual([]);
    });

    test('deleteTrashItem returns the item once; a second claim, or another project, gets null', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const other = await seedProject(repository);
      const item = aTrashItem(aFile({ projectId: project.id }));
      await repository.withTransaction((tx) => tx.insertTrashItem({ item }));

      expect(
        await repository.withTransaction((tx) =>
          tx.deleteTrashItem({ projectId: other.id, trashId: item.id }),
        ),
      ).toBeNull();
      expect(
        await repository.withTransaction((tx) =>
          tx.deleteTrashItem({ projectId: project.id, trashId: item.id }),
        ),
      ).toEqual(item);
      expect(
        await repository.withTransaction((tx) =>
          tx.deleteTrashItem({ projectId: project.id, trashId: item.id }),
        ),
      ).toBeNull();
      expect(await repository.findTrashItem({ projectId: project.id, trashId: item.id })).toBeNull();
    });

    test('a rolled-back claim leaves the item in place', async ({ repository }) => {
      const project = await seedProject(repository);
      const item = aTrashItem(aFile({ projectId: project.id }));
      await repository.withTransaction((tx) => tx.insertTrashItem({ item }));
      const boom = new Error('boom');
      await expect(
        repository.withTransaction(async (tx) => {
          await tx.deleteTrashItem({ projectId: project.id, trashId: item.id });
          throw boom;
        }),
      ).rejects.toBe(boom);
      expect(await repository.findTrashItem({ projectId: project.id, trashId: item.id })).toEqual(item);
    });

    test('of two concurrent claims of one item exactly one gets it', async ({ repository }) => {
      const project = await seedProject(repository);
      const item = aTrashItem(aFile({ projectId: project.id }));
      await repository.withTransaction((tx) => tx.insertTrashItem({ item }));
      const opened = gate();
      const claim = () =>
        repository.withTransaction(async (tx) => {
          await opened.promise;
          return tx.deleteTrashItem({ projectId: project.id, trashId: item.id });
        });
      const both = Promise.all([claim(), claim()]);
      opened.open();
      const results = await both;
      expect(results.filter((result) => result !== null)).toEqual([item]);
    });

    test('the revisions of a trashed file stay, and keep its blobs referenced', async ({ repository }) => {
      const file = await seedFile(repository);
      const project = (await repository.findProjectById({ projectId: file.projectId }))!;
      await repository.withTransaction(async (tx) => {
        await tx.deleteFile({ fileId: file.id });
        await tx.insertTrashItem({ item: aTrashItem(file) });
      });
      expect(await repository.findRevision({ fileId: file.id, revision: 1 })).toEqual(aRevision(file));
      expect(await repository.isBlobReferenced({ bucket: project.bucketName, key: file.contentKey })).toBe(
        true,
      );
    });

    test('purgeProjectRecords empties the project trash, and only its own', async ({ repository }) => {
      const file = await seedFile(repository);
      const other = await seedFile(repository);
      const item = aTrashItem(file);
      const kept = aTrashItem(other);
      await repository.withTransaction(async (tx) => {
        await tx.deleteFile({ fileId: file.id });
        await tx.insertTrashItem({ item });
        await tx.insertTrashItem({ item: kept });
      });
      const deleted = await repository.withTransaction((tx) =>
        tx.purgeProjectRecords({ projectId: file.projectId, limit: 1000 }),
      );
      // The trash item and the revision it keeps.
      expect(deleted).toBe(2);
      expect(await repository.findTrashItem({ projectId: file.projectId, trashId: item.id })).toBeNull();
      expect(await repository.findRevision({ fileId: file.id, revision: 1 })).toBeNull();
      expect(await repository.findTrashItem({ projectId: other.projectId, trashId: kept.id })).toEqual(kept);
    });
  });
}
