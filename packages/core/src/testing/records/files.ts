import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { FileRecord } from '../../model/records.js';
import { aRevision, BASE_TIME, sha256Hex } from '../builders.js';
import {
  conflict,
  type SuiteContext,
  scramble,
  seedAccount,
  seedApiKey,
  seedFile,
  seedProject,
} from './support.js';

export function filesSuite({ test }: SuiteContext): void {
  describe('files', () => {
    test('inserts a file and finds it by project and filename', async ({ repository }) => {
      const file = await seedFile(repository, { metadataJson: '{"title":"Hello"}' });
      expect(await repository.findFile({ projectId: file.projectId, filename: file.filename })).toEqual(file);
      expect(await repository.findFile({ projectId: file.projectId, filename: 'missing.md' })).toBeNull();
      const other = await seedProject(repository);
      expect(await repository.findFile({ projectId: other.id, filename: file.filename })).toBeNull();
    });

    test('refuses a second file with the same filename in one project (rule filename)', async ({
      repository,
    }) => {
      const file = await seedFile(repository, { filename: 'notes.md' });
      await expect(
        seedFile(repository, { projectId: file.projectId, filename: 'notes.md' }),
      ).rejects.toMatchObject(conflict('filename'));
      expect(await repository.listFiles({ projectId: file.projectId })).toEqual([file]);
    });

    test('allows the same filename in another project', async ({ repository }) => {
      const first = await seedFile(repository, { filename: 'notes.md' });
      const second = await seedFile(repository, { filename: 'notes.md' });
      expect(await repository.findFile({ projectId: first.projectId, filename: 'notes.md' })).toEqual(first);
      expect(await repository.findFile({ projectId: second.projectId, filename: 'notes.md' })).toEqual(
        second,
      );
    });

    test('keeps case twins and normalisation twins as distinct files', async ({ repository }) => {
      const project = await seedProject(repository);
      const names = ['a.md', 'A.md', 'caf\u00e9.md', 'cafe\u0301.md'];
      const files: FileRecord[] = [];
      for (const filename of names)
        files.push(await seedFile(repository, { projectId: project.id, filename }));
      for (const file of files) {
        expect(await repository.findFile({ projectId: project.id, filename: file.filename })).toEqual(file);
      }
      expect(await repository.listFiles({ projectId: project.id })).toHaveLength(names.length);
    });

    test('lists files by filename in Unicode code point order', async ({ repository }) => {
      const project = await seedProject(repository);
      // Code point order; UTF-16 order would put the astral emoji before U+E000 and U+FFFD.
      const expectedNames = [
        'B.md',
        '_.md',
        'a-b.md',
        'a.md',
        'a.mdx',
        'b.md',
        '\u00e9.md',
        '\uE000.md',
        '\uFFFD.md',
        '\u{1F600}.md',
        '\u{10FFFD}.md',
      ];
      for (const filename of scramble(expectedNames)) {
        await seedFile(repository, { projectId: project.id, filename });
      }
      await seedFile(repository, { filename: '0-other-project.md' });
      const listed = await repository.listFiles({ projectId: project.id });
      expect(listed.map((file) => file.filename)).toEqual(expectedNames);
      expect(await repository.listFiles({ projectId: randomUUID() })).toEqual([]);
    });

    test('updateFile writes every mutable field', async ({ repository }) => {
      const file = await seedFile(repository, { metadataJson: '{"v":1}' });
      const changed: FileRecord = {
        ...file,
        sizeBytes: 2_048,
        sha256: sha256Hex('new content'),
        metadataJson: null,
        frontmatterJson: '{"title":"Front"}',
        contentKey: `${file.id}/${randomUUID()}`,
        inline: true,
        filename: `renamed/${file.filename}`,
        revision: 2,
        updatedAt: BASE_TIME + 2_002,
      };
      await repository.withTransaction((tx) => tx.updateFile({ file: changed }));
      expect(await repository.findFile({ projectId: file.projectId, filename: changed.filename })).toEqual(
        changed,
      );
      expect(await repository.findFile({ projectId: file.projectId, filename: file.filename })).toBeNull();

      const again: FileRecord = {
        ...changed,
        metadataJson: '{"v":3}',
        revision: 3,
        updatedAt: BASE_TIME + 3_003,
      };
      await repository.withTransaction((tx) => tx.updateFile({ file: again }));
      expect(await repository.findFile({ projectId: file.projectId, filename: again.filename })).toEqual(
        again,
      );
    });

    test('updateFile onto a filename taken in the project breaks rule filename and changes nothing', async ({
      repository,
    }) => {
      const file = await seedFile(repository, { filename: 'a.md' });
      const taken = await seedFile(repository, { projectId: file.projectId, filename: 'b.md' });
      await expect(
        repository.withTransaction((tx) =>
          tx.updateFile({ file: { ...file, filename: 'b.md', revision: 2, updatedAt: BASE_TIME + 9 } }),
        ),
      ).rejects.toMatchObject(conflict('filename'));
      expect(await repository.listFiles({ projectId: file.projectId })).toEqual([file, taken]);
      // The same name in another project is free.
      const elsewhere = await seedFile(repository, { filename: 'c.md' });
      const moved = { ...elsewhere, filename: 'a.md', revision: 2 };
      await repository.withTransaction((tx) => tx.updateFile({ file: moved }));
      expect(await repository.findFile({ projectId: elsewhere.projectId, filename: 'a.md' })).toEqual(moved);
    });

    test('deleteFile removes only that file', async ({ repository }) => {
      const file = await seedFile(repository, { filename: 'a.md' });
      const kept = await seedFile(repository, { projectId: file.projectId, filename: 'b.md' });
      await repository.withTransaction((tx) => tx.deleteFile({ fileId: file.id }));
      expect(await repository.findFile({ projectId: file.projectId, filename: 'a.md' })).toBeNull();
      expect(await repository.listFiles({ projectId: file.projectId })).toEqual([kept]);
      // The filename is free again.
      await seedFile(repository, { projectId: file.projectId, filename: 'a.md' });
    });

    test("purgeProjectRecords removes the project's files, at most `limit` rows a call (issue 34)", async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const other = await seedProject(repository);
      const names = Array.from({ length: 7 }, (_, i) => `f${i}.md`);
      for (const filename of names) await seedFile(repository, { projectId: project.id, filename });
      const kept = await seedFile(repository, { projectId: other.id, filename: 'a.md' });
      const purge = (limit: number) =>
        repository.withTransaction((tx) => tx.purgeProjectRecords({ projectId: project.id, limit }));
      // Each call removes exactly `limit` rows while more are left, fewer (here 0) once none is.
      const counts: number[] = [];
      for (let call = 0; call < 100; call++) {
        const removed = await purge(3);
        counts.push(removed);
        if (removed < 3) break;
      }
      // 7 files seeded with one revision each: 14 rows, in batches of 3.
      expect(counts).toEqual([3, 3, 3, 3, 2]);
      expect(await repository.listFiles({ projectId: project.id })).toEqual([]);
      expect(await repository.listFiles({ projectId: other.id })).toEqual([kept]);
      expect(await purge(3)).toBe(0);
    });

    test('round-trips metadataJson exactly', async ({ repository }) => {
      const project = await seedProject(repository);
      const texts = [
        '{"title":"Caf\u00e9 \u{1F600} \u05E9\u05DC\u05D5\u05DD","nfd":"cafe\u0301"}',
        '{"__proto__":{"polluted":true},"constructor":1}',
        '{ "spaced" :  [1, 2.50, 1e3],\n "z": null, "a": "\\u0041"}',
        JSON.stringify({ big: 'x'.repeat(60 * 1024) }),
        null,
      ];
      const files: FileRecord[] = [];
      for (const [index, metadataJson] of texts.entries()) {
        files.push(
          await seedFile(repository, { projectId: project.id, filename: `${index}.md`, metadataJson }),
        );
      }
      for (const file of files) {
        const found = await repository.findFile({ projectId: project.id, filename: file.filename });
        expect(found?.metadataJson).toBe(file.metadataJson);
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    test('round-trips timestamps to the millisecond', async ({ repository }) => {
      const at = (offset: number) => Date.UTC(2031, 11, 31, 23, 59, 59, 999) + offset;
      const account = await seedAccount(repository, { createdAt: at(-998) });
      const apiKey = await seedApiKey(repository, {
        accountId: account.id,
        createdAt: at(-1),
        revokedAt: at(0),
      });
      const project = await seedProject(repository, {
        accountId: account.id,
        createdAt: Date.UTC(1999, 0, 1, 0, 0, 0, 1),
        updatedAt: at(0),
      });
      const file = await seedFile(repository, {
        projectId: project.id,
        createdAt: at(-7),
        updatedAt: at(7),
      });
      expect(await repository.findAccountById({ accountId: account.id })).toEqual(account);
      expect(await repository.findApiKeyById({ keyId: apiKey.id })).toEqual(apiKey);
      expect(await repository.findProjectById({ projectId: project.id })).toEqual(project);
      expect(await repository.findFile({ projectId: project.id, filename: file.filename })).toEqual(file);
    });

    test('isBlobReferenced(bucket): true while the project is active or deleting', async ({ repository }) => {
      const active = await seedProject(repository);
      const deleting = await seedProject(repository, { status: 'deleting' });
      const deleted = await seedProject(repository, { status: 'deleted' });
      const referenced = (bucket: string) => repository.isBlobReferenced({ bucket, key: null });
      expect(await referenced(active.bucketName)).toBe(true);
      expect(await referenced(deleting.bucketName)).toBe(true);
      expect(await referenced(deleted.bucketName)).toBe(false);
      expect(await referenced(`mdstore-${randomUUID()}`)).toBe(false);
    });

    test('isBlobReferenced(key): true while a kept revision of the bucket owner has the key in the blob store', async ({
      repository,
    }) => {
      const file = await seedFile(repository);
      const owner = (await repository.findProjectById({ projectId: file.projectId }))!;
      const other = await seedProject(repository);
      const referenced = (bucket: string, key: string) => repository.isBlobReferenced({ bucket, key });
      expect(await referenced(owner.bucketName, file.contentKey)).toBe(true);
      expect(await referenced(owner.bucketName, `blob-${randomUUID()}`)).toBe(false);
      expect(await referenced(other.bucketName, file.contentKey)).toBe(false);
      expect(await referenced(`mdstore-${randomUUID()}`, file.contentKey)).toBe(false);

      // An earlier revision still holds its key once the file has moved on to a new one.
      const next: FileRecord = { ...file, contentKey: `${file.id}/${randomUUID()}`, revision: 2 };
      await repository.withTransaction(async (tx) => {
        await tx.updateFile({ file: next });
        await tx.insertRevision({ revision: aRevision(next) });
      });
      expect(await referenced(owner.bucketName, file.contentKey)).toBe(true);
      expect(await referenced(owner.bucketName, next.contentKey)).toBe(true);
      await repository.withTransaction((tx) => tx.deleteRevisions({ fileId: file.id, revisions: [1] }));
      expect(await referenced(owner.bucketName, file.contentKey)).toBe(false);

      // An inline version is not in the blob store, whatever its key.
      const inline = await seedFile(repository, { projectId: owner.id, inline: true });
      expect(await referenced(owner.bucketName, inline.contentKey)).toBe(false);
    });
  });
}
