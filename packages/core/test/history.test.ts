import { BlobNotFoundError, type BlobStore } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { anAccount, blobKeys, codeOf, createFixture, textStream } from './support/fixture.js';

/**
 * Copy when the source version disappears under it (a concurrent write pruned it, `keep_revisions` 1):
 * the copy reads the file again and copies the version then current, or gives up with a 404 after a
 * few attempts; either way nothing it staged is left behind.
 */
function vanishingBlobs(failures: { left: number }) {
  return (inner: BlobStore): BlobStore => ({
    ...inner,
    scheme: inner.scheme,
    supports: inner.supports,
    get: async (o) => {
      const opened = await inner.get(o);
      if (failures.left <= 0) return opened;
      failures.left--;
      // The version goes while it is being read: the first chunk, then BLOB_NOT_FOUND.
      async function* broken() {
        for await (const chunk of opened.content) {
          yield chunk.subarray(0, 1);
          break;
        }
        throw new BlobNotFoundError(o.bucket, o.key);
      }
      return { sizeBytes: opened.sizeBytes, content: broken() };
    },
  });
}

async function scene(failures: number) {
  const counter = { left: 0 };
  const fixture = createFixture({ settings: { inlineMaxBytes: 0 }, wrapBlobs: vanishingBlobs(counter) });
  const alice = await anAccount(fixture.store, 'alice');
  const file = { principal: alice.principal, projectId: alice.defaultProjectId, filename: 'a.md' };
  await fixture.store.files.upload({ ...file, content: textStream('# source version\n') });
  counter.left = failures;
  return { fixture, alice, file };
}

describe('copy when the source version vanishes mid-read', () => {
  it('reads the file again and copies it whole', async () => {
    const { fixture, file } = await scene(2);
    const copied = await fixture.store.files.copy({ ...file, body: { to: 'b.md' } });
    expect(copied).toMatchObject({ filename: 'b.md', revision: 1, sizeBytes: 17 });
    const download = await fixture.store.files.download({ ...file, filename: 'b.md' });
    let text = '';
    for await (const chunk of download.content) text += new TextDecoder().decode(chunk);
    expect(text).toBe('# source version\n');
    expect(await fixture.records.listBlobIntents({ limit: 10 })).toEqual([]);
    const project = (await fixture.records.findProjectById({ projectId: file.projectId }))!;
    const files = await fixture.records.listFiles({ projectId: project.id });
    expect(await blobKeys(fixture.blobs, project.bucketName)).toEqual(files.map((f) => f.contentKey).sort());
  });

  it('gives up with FILE_NOT_FOUND (404) after three attempts, leaving nothing behind', async () => {
    const { fixture, file } = await scene(3);
    expect(await codeOf(() => fixture.store.files.copy({ ...file, body: { to: 'b.md' } }))).toBe(
      'FILE_NOT_FOUND',
    );
    const project = (await fixture.records.findProjectById({ projectId: file.projectId }))!;
    expect((await fixture.records.listFiles({ projectId: project.id })).map((f) => f.filename)).toEqual([
      'a.md',
    ]);
    expect(await fixture.records.listBlobIntents({ limit: 10 })).toEqual([]);
    expect(project).toMatchObject({ fileCount: 1, totalSizeBytes: 17 });
    expect(await blobKeys(fixture.blobs, project.bucketName)).toHaveLength(1);
  });
});
