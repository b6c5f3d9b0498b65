import type { FileRecord } from '@mdstore/core';
import { aFile, aRevision, sha256Hex } from '@mdstore/core/testing';
import { describe, expect, it } from 'vitest';
import { anAccount, createFixture, textStream } from '../support/fixture.js';

/**
 * Files stored before search existed (no front matter read, no index) are read and indexed by
 * `maintenance.backfillSearch`, which the server runs before it reports ready: from the blob store and
 * from inline content, without a new revision, once.
 */
describe('search backfill', () => {
  it('indexes old files (blob and inline), reads their front matter, and does nothing the second time', async () => {
    const f = createFixture();
    const account = await anAccount(f.store, 'old-files');
    const project = (await f.records.findProjectById({ projectId: account.defaultProjectId }))!;
    const encoder = new TextEncoder();
    const oldFile = async (filename: string, text: string, inline: boolean): Promise<FileRecord> => {
      const bytes = encoder.encode(text);
      const file = aFile({
        projectId: project.id,
        filename,
        inline,
        sizeBytes: bytes.byteLength,
        sha256: sha256Hex(text),
        metadataJson: '{"team":"ops"}',
      });
      if (!inline) {
        await f.blobs.put({
          bucket: project.bucketName,
          key: file.contentKey,
          content: textStream(text),
          maxBytes: 1e6,
        });
      }
      await f.records.withTransaction(async (tx) => {
        if (inline)
          await tx.insertInlineContent({ projectId: project.id, contentKey: file.contentKey, bytes });
        await tx.insertFile({ file });
        await tx.insertRevision({ revision: aRevision(file) });
      });
      return file;
    };
    const blob = await oldFile('blob.md', '---\ntitle: Stored in blobs\n---\nwalrus facts\n', false);
    await oldFile('inline.md', 'narwhal facts\n', true);
    const search = (query: string) =>
      f.store.files.search({ principal: account.principal, projectId: project.id, body: { query } });
    expect((await search('walrus')).totalCount).toBe(0);

    expect(await f.store.maintenance.backfillSearch()).toEqual({ indexed: 2, unreadable: 0 });
    const found = await search('walrus');
    expect(found.results.map((result) => result.file)).toEqual([
      expect.objectContaining({
        filename: 'blob.md',
        frontmatter: { title: 'Stored in blobs' },
        revision: 1,
      }),
    ]);
    expect(found.results[0]!.snippets[0]!.text).toContain('walrus facts');
    expect((await search('narwhal')).results.map((result) => result.file.filename)).toEqual(['inline.md']);
    expect((await search('blobs ops')).totalCount).toBe(1);
    const stored = await f.records.findFile({ projectId: project.id, filename: 'blob.md' });
    expect(stored).toEqual({ ...blob, frontmatterJson: '{"title":"Stored in blobs"}' });

    expect(await f.store.maintenance.backfillSearch()).toEqual({ indexed: 0, unreadable: 0 });
  });

  it('a file whose content is gone is indexed without it, with a warning, and not read again', async () => {
    const warnings: string[] = [];
    const f = createFixture();
    const store = f.restart({ events: { warn: (message) => warnings.push(message) } });
    const account = await anAccount(store, 'lost-content');
    const file = aFile({ projectId: account.defaultProjectId, filename: 'lost.md' });
    await f.records.withTransaction((tx) => tx.insertFile({ file }));
    expect(await store.maintenance.backfillSearch()).toEqual({ indexed: 1, unreadable: 1 });
    expect(warnings).toHaveLength(1);
    expect(await store.maintenance.backfillSearch()).toEqual({ indexed: 0, unreadable: 0 });
    const answer = await store.files.search({
      principal: account.principal,
      projectId: account.defaultProjectId,
      body: { query: 'lost' },
    });
    expect(answer.results.map((result) => result.file.filename)).toEqual(['lost.md']);
  });
});
