import { BlobNotFoundError, type BlobStore } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { anAccount, blobKeys, codeOf, createFixture, readText, textStream } from './support/fixture.js';

/**
 * Behaviours of the file use cases that the mutation run (docs/testing.md) found no test for: each
 * write moves `revision` up by exactly one, a write whose content stream fails part-way stores nothing,
 * and a download that finds its content version gone reads the record again. On the blob form (the
 * inline form is covered by the same use cases through the records store) unless said otherwise.
 */

const BLOB = { inlineMaxBytes: 0 };

async function scene(options: {
  settings?: { inlineMaxBytes: number };
  wrapBlobs?: (b: BlobStore) => BlobStore;
}) {
  const fixture = createFixture({ settings: options.settings ?? BLOB, wrapBlobs: options.wrapBlobs });
  const alice = await anAccount(fixture.store, 'alice');
  const at = { principal: alice.principal, projectId: alice.defaultProjectId };
  const project = await fixture.store.projects.get(at);
  return { ...fixture, at, bucket: project.bucketName };
}

describe('revisions', () => {
  it('every write moves the revision up by exactly one and changes the ETag', async () => {
    const { store, at } = await scene({});
    const uploaded = await store.files.upload({ ...at, filename: 'a.md', content: textStream('# one') });
    expect(uploaded.revision).toBe(1);
    const seen = new Set([uploaded.etag]);
    const steps = [
      () => store.files.updateMetadata({ ...at, filename: 'a.md', body: { metadata: { k: 1 } } }),
      () => store.files.updateContent({ ...at, filename: 'a.md', content: textStream('# two') }),
      () => store.files.updateMetadata({ ...at, filename: 'a.md', body: { metadata: null } }),
      () => store.files.move({ ...at, filename: 'a.md', body: { to: 'b.md' } }),
    ];
    let revision = uploaded.revision;
    for (const step of steps) {
      const view = await step();
      expect(view.revision).toBe(revision + 1);
      expect(seen.has(view.etag)).toBe(false);
      seen.add(view.etag);
      revision = view.revision;
    }
    const read = await store.files.read({ ...at, filename: 'b.md' });
    expect(read.file.revision).toBe(revision);
  });
});

describe('a content stream that fails part-way', () => {
  async function* failing(): AsyncIterable<Uint8Array> {
    yield new TextEncoder().encode('# first chunk\n');
    throw new Error('client went away');
  }

  for (const [form, settings] of [
    ['blob', BLOB],
    ['inline', { inlineMaxBytes: 64 * 1024 }],
  ] as const) {
    it(`stores nothing for an upload or a content update (${form})`, async () => {
      const { store, at, blobs, bucket } = await scene({ settings });
      await expect(store.files.upload({ ...at, filename: 'a.md', content: failing() })).rejects.toThrow(
        'client went away',
      );
      expect(await codeOf(() => store.files.read({ ...at, filename: 'a.md' }))).toBe('FILE_NOT_FOUND');
      expect(await blobKeys(blobs, bucket)).toEqual([]);

      const kept = await store.files.upload({ ...at, filename: 'b.md', content: textStream('# kept') });
      const keys = await blobKeys(blobs, bucket);
      await expect(
        store.files.updateContent({ ...at, filename: 'b.md', content: failing() }),
      ).rejects.toThrow('client went away');
      const after = await store.files.download({ ...at, filename: 'b.md' });
      expect(await readText(after.content)).toBe('# kept');
      expect(after.file.etag).toBe(kept.etag);
      expect(await blobKeys(blobs, bucket)).toEqual(keys);
      const project = await store.projects.get(at);
      expect(project.fileCount).toBe(1);
      expect(project.totalSizeBytes).toBe(kept.sizeBytes);
    });
  }

  it('an abort signal fired while the content streams stores nothing', async () => {
    const { store, at, blobs, bucket } = await scene({});
    const controller = new AbortController();
    async function* slow(): AsyncIterable<Uint8Array> {
      yield new TextEncoder().encode('# first\n');
      controller.abort(new Error('aborted by the client'));
      yield new TextEncoder().encode('more\n');
    }
    const outcome = await codeOf(() =>
      store.files.upload({ ...at, filename: 'a.md', content: slow(), signal: controller.signal }),
    ).catch((error: Error) => error.message);
    expect(outcome).not.toBe('OK');
    expect(await codeOf(() => store.files.read({ ...at, filename: 'a.md' }))).toBe('FILE_NOT_FOUND');
    expect(await blobKeys(blobs, bucket)).toEqual([]);
  });
});

describe('a download whose content version is gone', () => {
  /** A blob store whose next `misses` gets answer "not found", as if a write pruned the version. */
  function missing(misses: { left: number }) {
    return (inner: BlobStore): BlobStore => ({
      ...inner,
      get: async (request) => {
        if (misses.left > 0) {
          misses.left--;
          throw new BlobNotFoundError(request.bucket, request.key);
        }
        return inner.get(request);
      },
    });
  }

  it('reads the record again and serves the version it names', async () => {
    const misses = { left: 0 };
    const { store, at } = await scene({ wrapBlobs: missing(misses) });
    await store.files.upload({ ...at, filename: 'a.md', content: textStream('# whole') });
    misses.left = 2;
    const read = await store.files.download({ ...at, filename: 'a.md' });
    expect(await readText(read.content)).toBe('# whole');
    expect(misses.left).toBe(0);
  });

  it('answers 404 when the version stays gone, and passes other blob errors on', async () => {
    const misses = { left: 0 };
    const { store, at } = await scene({ wrapBlobs: missing(misses) });
    await store.files.upload({ ...at, filename: 'a.md', content: textStream('# whole') });
    misses.left = 3;
    expect(await codeOf(() => store.files.download({ ...at, filename: 'a.md' }))).toBe('FILE_NOT_FOUND');
    expect(misses.left).toBe(0);
  });

  it('an inline version that is gone is read again too', async () => {
    const fixture = createFixture({ settings: { inlineMaxBytes: 1024 } });
    const alice = await anAccount(fixture.store, 'alice');
    const at = { principal: alice.principal, projectId: alice.defaultProjectId };
    await fixture.store.files.upload({ ...at, filename: 'a.md', content: textStream('# inline') });
    let misses = 1;
    const inner = fixture.records.readInlineContent.bind(fixture.records);
    fixture.records.readInlineContent = async (query) => (misses-- > 0 ? null : inner(query));
    const read = await fixture.store.files.download({ ...at, filename: 'a.md' });
    expect(await readText(read.content)).toBe('# inline');
    misses = 5;
    expect(await codeOf(() => fixture.store.files.download({ ...at, filename: 'a.md' }))).toBe(
      'FILE_NOT_FOUND',
    );
  });
});
