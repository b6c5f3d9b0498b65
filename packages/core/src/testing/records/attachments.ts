import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { AttachmentRecord } from '../../model/records.js';
import { aFile, aTrashItem, BASE_TIME } from '../builders.js';
import { conflict, type SuiteContext, seedFile, seedProject } from './support.js';

/** An attachment record of the project, for the records suite. */
export function anAttachment(projectId: string, overrides: Partial<AttachmentRecord> = {}): AttachmentRecord {
  const sha256 = overrides.sha256 ?? randomUUID().replaceAll('-', '').padEnd(64, '0');
  return {
    id: randomUUID(),
    projectId,
    path: `img/${randomUUID()}.png`,
    sizeBytes: 100,
    contentType: 'image/png',
    sha256,
    blobKey: `attachments/${randomUUID()}`,
    revision: 1,
    createdAt: BASE_TIME,
    updatedAt: BASE_TIME,
    ...overrides,
  };
}

export function attachmentsSuite({ test }: SuiteContext): void {
  describe('attachments (extensions §12)', () => {
    test('finds attachments by their last path segment (a wiki link names them so), in path order', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const other = await seedProject(repository);
      const at = (projectId: string, path: string) => anAttachment(projectId, { path });
      const rows = [
        at(project.id, 'assets/diagram.png'),
        at(project.id, 'diagram.png'),
        at(project.id, 'a/b/c/diagram.png'),
        at(project.id, 'assets/diagram.png.bak'),
        at(project.id, 'Diagram.png'),
        at(project.id, 'x/caf\u00e9 \u65e5\u672c.png'),
        at(project.id, 'docs/report Q3.pdf'),
        at(other.id, 'diagram.png'),
      ];
      await repository.withTransaction(async (tx) => {
        for (const attachment of rows) await tx.insertAttachment({ attachment });
      });
      const paths = async (q: { paths: string[]; names: string[] }) =>
        (await repository.findAttachments({ projectId: project.id, ...q })).map((a) => a.path);
      expect(await paths({ paths: [], names: ['diagram.png'] })).toEqual([
        'a/b/c/diagram.png',
        'assets/diagram.png',
        'diagram.png',
      ]);
      expect(
        await paths({ paths: [], names: ['caf\u00e9 \u65e5\u672c.png', 'report Q3.pdf', 'nothing.png'] }),
      ).toEqual(['docs/report Q3.pdf', 'x/caf\u00e9 \u65e5\u672c.png']);
      // Paths and names together: each attachment once.
      expect(await paths({ paths: ['diagram.png', 'docs/report Q3.pdf'], names: ['diagram.png'] })).toEqual([
        'a/b/c/diagram.png',
        'assets/diagram.png',
        'diagram.png',
        'docs/report Q3.pdf',
      ]);
    });

    test('inserts, finds by path and by content, updates and deletes an attachment', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const a = anAttachment(project.id, { path: 'img/ü a.png' });
      await repository.withTransaction((tx) => tx.insertAttachment({ attachment: a }));
      expect(await repository.findAttachment({ projectId: project.id, path: a.path })).toEqual(a);
      expect(await repository.findAttachment({ projectId: project.id, path: 'img/other.png' })).toBeNull();
      const b = anAttachment(project.id, { path: 'b.pdf', contentType: 'application/pdf' });
      await repository.withTransaction((tx) => tx.insertAttachment({ attachment: b }));
      const found = await repository.findAttachments({
        projectId: project.id,
        paths: ['b.pdf', a.path, 'img/other.png', 'b.pdf', 'B.PDF'],
      });
      expect(found.sort((x, y) => x.path.localeCompare(y.path))).toEqual([b, a]);
      expect(await repository.findAttachments({ projectId: project.id, paths: [] })).toEqual([]);
      expect(await repository.findAttachmentBySha256({ projectId: project.id, sha256: a.sha256 })).toEqual(a);
      const other = await seedProject(repository);
      expect(await repository.findAttachmentBySha256({ projectId: other.id, sha256: a.sha256 })).toBeNull();

      // Every mutable field is written; the id, project, path and creation time are not.
      const changed: AttachmentRecord = {
        ...a,
        sizeBytes: 6_000_000_000,
        contentType: 'application/pdf',
        sha256: 'f'.repeat(64),
        blobKey: `attachments/${randomUUID()}`,
        revision: 2,
        updatedAt: BASE_TIME + 5,
      };
      await repository.withTransaction((tx) =>
        tx.updateAttachment({ attachment: { ...changed, path: 'moved.png', createdAt: 1 } }),
      );
      expect(await repository.findAttachment({ projectId: project.id, path: a.path })).toEqual(changed);

      await repository.withTransaction((tx) => tx.deleteAttachment({ attachmentId: a.id }));
      expect(await repository.findAttachment({ projectId: project.id, path: a.path })).toBeNull();
    });

    test('refuses a second attachment at one path of a project (rule attachment_path)', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const first = anAttachment(project.id, { path: 'a.pdf' });
      await repository.withTransaction((tx) => tx.insertAttachment({ attachment: first }));
      await expect(
        repository.withTransaction((tx) =>
          tx.insertAttachment({ attachment: anAttachment(project.id, { path: 'a.pdf' }) }),
        ),
      ).rejects.toMatchObject(conflict('attachment_path'));
      // The same path in another project, and a file of the same name, are no conflict.
      const other = await seedProject(repository);
      await repository.withTransaction((tx) =>
        tx.insertAttachment({ attachment: anAttachment(other.id, { path: 'a.pdf' }) }),
      );
      expect(await repository.findAttachment({ projectId: project.id, path: 'a.pdf' })).toEqual(first);
    });

    test('renameAttachment: the same record under another path; a taken path is attachment_path', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const a = anAttachment(project.id, { path: 'img/a.png' });
      const b = anAttachment(project.id, { path: 'b.png' });
      await repository.withTransaction(async (tx) => {
        await tx.insertAttachment({ attachment: a });
        await tx.insertAttachment({ attachment: b });
      });
      await repository.withTransaction((tx) =>
        tx.renameAttachment({ attachmentId: a.id, path: 'pics/ü a.png' }),
      );
      expect(await repository.findAttachment({ projectId: project.id, path: 'img/a.png' })).toBeNull();
      // Nothing but the path changes: the id, the blob, the revision and the dates stay.
      expect(await repository.findAttachment({ projectId: project.id, path: 'pics/ü a.png' })).toEqual({
        ...a,
        path: 'pics/ü a.png',
      });
      await expect(
        repository.withTransaction((tx) => tx.renameAttachment({ attachmentId: a.id, path: 'b.png' })),
      ).rejects.toMatchObject(conflict('attachment_path'));
      // The refused transaction changed nothing.
      expect(await repository.findAttachment({ projectId: project.id, path: 'b.png' })).toEqual(b);
      expect(await repository.findAttachment({ projectId: project.id, path: 'pics/ü a.png' })).toMatchObject({
        id: a.id,
      });
      // Another project's path is no conflict; a rename back frees the new path again.
      const other = await seedProject(repository);
      await repository.withTransaction((tx) =>
        tx.insertAttachment({ attachment: anAttachment(other.id, { path: 'img/a.png' }) }),
      );
      await repository.withTransaction((tx) =>
        tx.renameAttachment({ attachmentId: a.id, path: 'img/a.png' }),
      );
      expect(await repository.findAttachment({ projectId: project.id, path: 'img/a.png' })).toEqual(a);
      expect(await repository.findAttachment({ projectId: project.id, path: 'pics/ü a.png' })).toBeNull();
    });

    test('listAttachmentPage: path order (code points), prefix, after, inclusive, limit', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const paths = ['b.png', 'a/z.png', 'a/b/c.png', 'a0.png', 'A.png', 'é.png', 'a/ä.png', 'ab.png'];
      await repository.withTransaction(async (tx) => {
        for (const path of paths)
          await tx.insertAttachment({ attachment: anAttachment(project.id, { path }) });
        // Another project's attachment is never on the page.
        await tx.insertAttachment({ attachment: anAttachment(randomUUID(), { path: 'a/x.png' }) });
      });
      const page = async (q: { prefix?: string; after?: string; inclusive?: boolean; limit?: number }) =>
        (
          await repository.listAttachmentPage({
            projectId: project.id,
            prefix: q.prefix ?? '',
            after: q.after,
            inclusive: q.inclusive,
            limit: q.limit ?? 100,
          })
        ).map((a) => a.path);
      const sorted = [...paths].sort((x, y) => (Buffer.from(x) < Buffer.from(y) ? -1 : 1));
      expect(await page({})).toEqual(sorted);
      expect(await page({ prefix: 'a/' })).toEqual(['a/b/c.png', 'a/z.png', 'a/ä.png']);
      expect(await page({ prefix: 'a/', after: 'a/b/c.png' })).toEqual(['a/z.png', 'a/ä.png']);
      expect(await page({ after: 'a0', inclusive: true, limit: 2 })).toEqual(['a0.png', 'ab.png']);
      expect(await page({ after: 'a0.png', inclusive: true, limit: 1 })).toEqual(['a0.png']);
      expect(await page({ after: 'a0.png', limit: 1 })).toEqual(['ab.png']);
      expect(await page({ prefix: 'zzz' })).toEqual([]);
    });

    test('isBlobReferenced(key): true while an attachment of the bucket owner has the blob key', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const other = await seedProject(repository);
      const a = anAttachment(project.id);
      const twin = anAttachment(project.id, { sha256: a.sha256, blobKey: a.blobKey });
      await repository.withTransaction(async (tx) => {
        await tx.insertAttachment({ attachment: a });
        await tx.insertAttachment({ attachment: twin });
      });
      const referenced = (bucket: string) => repository.isBlobReferenced({ bucket, key: a.blobKey });
      expect(await referenced(project.bucketName)).toBe(true);
      expect(await referenced(other.bucketName)).toBe(false);
      await repository.withTransaction((tx) => tx.deleteAttachment({ attachmentId: a.id }));
      expect(await referenced(project.bucketName)).toBe(true);
      await repository.withTransaction((tx) => tx.deleteAttachment({ attachmentId: twin.id }));
      expect(await referenced(project.bucketName)).toBe(false);
    });

    test('an attachment trash item round-trips with its content type, and holds its blob until claimed', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const other = await seedProject(repository);
      const a = anAttachment(project.id, { path: 'img/ü a.svg', contentType: 'image/svg+xml', revision: 3 });
      const twin = anAttachment(project.id, { sha256: a.sha256, blobKey: a.blobKey });
      const item = aTrashItem(
        aFile({
          id: a.id,
          projectId: project.id,
          filename: a.path,
          sizeBytes: a.sizeBytes,
          sha256: a.sha256,
          contentKey: a.blobKey,
          inline: false,
          metadataJson: null,
          frontmatterJson: null,
          revision: a.revision,
        }),
        { attachment: { contentType: a.contentType } },
      );
      // A file's item with the same key in another project's bucket references nothing here.
      const fileItem = aTrashItem(aFile({ projectId: other.id, contentKey: a.blobKey, inline: false }));
      await repository.withTransaction(async (tx) => {
        await tx.insertAttachment({ attachment: twin });
        await tx.insertTrashItem({ item });
        await tx.insertTrashItem({ item: fileItem });
      });
      expect(await repository.findTrashItem({ projectId: project.id, trashId: item.id })).toEqual(item);
      const [listed] = await repository.listTrash({ projectId: project.id, now: BASE_TIME, limit: 10 });
      expect(listed).toEqual(item);
      expect(await repository.findTrashItem({ projectId: other.id, trashId: fileItem.id })).toEqual(fileItem);
      expect(
        await repository.findTrashItem({ projectId: other.id, trashId: fileItem.id }),
      ).not.toHaveProperty('attachment');
      const referenced = (bucket: string) => repository.isBlobReferenced({ bucket, key: a.blobKey });
      await repository.withTransaction((tx) => tx.deleteAttachment({ attachmentId: twin.id }));
      // The twin gone, the trash item still holds the bytes.
      expect(await referenced(project.bucketName)).toBe(true);
      expect(await referenced(other.bucketName)).toBe(false);
      const claimed = await repository.withTransaction((tx) =>
        tx.deleteTrashItem({ projectId: project.id, trashId: item.id }),
      );
      expect(claimed).toEqual(item);
      expect(await referenced(project.bucketName)).toBe(false);
    });

    test("purgeProjectRecords removes the project's attachments", async ({ repository }) => {
      const file = await seedFile(repository);
      const a = anAttachment(file.projectId);
      await repository.withTransaction((tx) => tx.insertAttachment({ attachment: a }));
      const removed = await repository.withTransaction((tx) =>
        tx.purgeProjectRecords({ projectId: file.projectId, limit: 1000 }),
      );
      // The file, its revision and the attachment.
      expect(removed).toBe(3);
      expect(await repository.findAttachment({ projectId: file.projectId, path: a.path })).toBeNull();
    });
  });
}
