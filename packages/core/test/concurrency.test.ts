import { expectedAccounting } from '@mdstore/core/testing';
import { describe, expect, it } from 'vitest';
import {
  anAccount,
  blobKeys,
  codeOf,
  createFixture,
  nextMacrotask,
  readText,
  textStream,
} from './support/fixture.js';

/** Contents of different lengths, so that a mix of two would show in the size as well as the bytes. */
const versionText = (i: number) => `# version ${i}\n${'abcdefghij'.repeat(i + 1)}\n`;

/** Both storage forms: everything in the blob store, and small content inline in the records. */
const FORMS = [
  { form: 'blob', settings: { inlineMaxBytes: 0 } },
  { form: 'inline', settings: { inlineMaxBytes: 64 * 1024 } },
] as const;

describe.each(FORMS)('concurrent writes ($form content)', ({ form, settings }) => {
  it('lets exactly one of 10 concurrent uploads of one filename win, storing its content', async () => {
    let commits = 0;
    const { store, records, blobs } = createFixture({
      settings,
      wrapBlobs: (inner) => ({
        ...inner,
        put: (o) => {
          commits++;
          return inner.put(o);
        },
      }),
      // The repository is a class: a proxy keeps its methods and replaces only `withTransaction`.
      wrapRecords: (inner) =>
        new Proxy(inner, {
          get: (target, name, receiver) =>
            name !== 'withTransaction'
              ? Reflect.get(target, name, receiver)
              : (work: Parameters<typeof target.withTransaction>[0]) =>
                  target.withTransaction((tx) =>
                    work(
                      new Proxy(tx, {
                        get: (txTarget, method, txReceiver) =>
                          method !== 'insertInlineContent'
                            ? Reflect.get(txTarget, method, txReceiver)
                            : (c: Parameters<typeof tx.insertInlineContent>[0]) => {
                                commits++;
                                return txTarget.insertInlineContent(c);
                              },
                      }),
                    ),
                  ),
        }),
    });
    const alice = await anAccount(store, 'alice');
    const project = await store.projects.create({ principal: alice.principal, body: { name: 'race' } });

    // Each upload pauses between its chunks, so all of them pass the early duplicate check first.
    const attempts = Array.from({ length: 10 }, (_, i) =>
      store.files.upload({
        principal: alice.principal,
        projectId: project.id,
        filename: 'same.md',
        content: textStream(versionText(i), { chunkBytes: 7, pause: nextMacrotask }),
        metadata: JSON.stringify({ writer: i }),
      }),
    );
    const settled = await Promise.allSettled(attempts);
    // Every upload got past the early duplicate check: the race was decided by the commit.
    expect(commits).toBe(10);
    const winners = settled.flatMap((result, i) => (result.status === 'fulfilled' ? [i] : []));
    expect(winners).toHaveLength(1);
    for (const result of settled) {
      if (result.status === 'rejected') expect(result.reason.code).toBe('FILENAME_TAKEN');
    }

    const winner = winners[0]!;
    const download = await store.files.download({
      principal: alice.principal,
      projectId: project.id,
      filename: 'same.md',
    });
    expect(await readText(download.content)).toBe(versionText(winner));
    expect(download.file.metadata).toEqual({ writer: winner });
    const after = await store.projects.get({ principal: alice.principal, projectId: project.id });
    expect(after).toMatchObject({ fileCount: 1, totalSizeBytes: Buffer.byteLength(versionText(winner)) });
    // The losers' content was removed again (or rolled back), and no write is left half-done.
    expect(await blobKeys(blobs, project.bucketName)).toHaveLength(form === 'blob' ? 1 : 0);
    const stored = await records.findFile({ projectId: project.id, filename: 'same.md' });
    expect(stored?.inline).toBe(form === 'inline');
    expect(await records.listBlobIntents({ limit: 10 })).toEqual([]);
  });

  it('resolves concurrent content updates as last write wins, never a mix', async () => {
    const { store, records, blobs } = createFixture({ settings });
    const alice = await anAccount(store, 'alice');
    const projectId = alice.defaultProjectId;
    const input = { principal: alice.principal, projectId, filename: 'doc.md' };
    await store.files.upload({ ...input, content: textStream('original'), metadata: '{"keep":true}' });

    const updates = Array.from({ length: 10 }, (_, i) =>
      store.files.updateContent({
        ...input,
        content: textStream(versionText(i), { chunkBytes: 5, pause: nextMacrotask }),
      }),
    );
    // Reads running alongside the writes each see one whole version.
    const reads = Array.from({ length: 10 }, async () => {
      await nextMacrotask();
      const download = await store.files.download(input);
      return readText(download.content);
    });
    const views = await Promise.all(updates);
    const seen = await Promise.all(reads);

    const versions = new Set(['original', ...views.map((_, i) => versionText(i))]);
    for (const text of seen) expect(versions.has(text)).toBe(true);

    // The last write is the one committed last: it has the highest revision.
    const last = views.reduce((best, view, i) => (view.revision > views[best]!.revision ? i : best), 0);
    expect(new Set(views.map((view) => view.revision)).size).toBe(10);
    const final = await store.files.download(input);
    expect(await readText(final.content)).toBe(versionText(last));
    expect(final.file).toMatchObject({
      sizeBytes: Buffer.byteLength(versionText(last)),
      metadata: { keep: true },
    });
    expect(final.file.sha256).toBe(views[last]!.sha256);

    const project = await store.projects.get({ principal: alice.principal, projectId });
    // Every version is kept as history (11 revisions, under the default of 20), each stored once.
    const accounting = await expectedAccounting(records, project);
    expect(project).toMatchObject({
      fileCount: 1,
      totalSizeBytes: final.file.sizeBytes,
      historySizeBytes: accounting.historySizeBytes,
    });
    expect(accounting.historySizeBytes).toBe(
      Buffer.byteLength('original') +
        views.reduce((sum, view) => sum + view.sizeBytes, 0) -
        final.file.sizeBytes,
    );
    expect((await blobKeys(blobs, project.bucketName)).sort()).toEqual([...accounting.blobKeys].sort());
    expect(accounting.blobKeys.size).toBe(form === 'blob' ? 11 : 0);
    expect(await records.listBlobIntents({ limit: 10 })).toEqual([]);
  });
});

describe('concurrent project writes', () => {
  it('never lets concurrent creates give one account two active projects of one name', async () => {
    const bucketsCreated: string[] = [];
    const { store, blobs } = createFixture({
      wrapBlobs: (inner) => ({
        ...inner,
        createBucket: (o) => {
          bucketsCreated.push(o.bucket);
          return inner.createBucket(o);
        },
      }),
    });
    const alice = await anAccount(store, 'alice');
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        codeOf(() => store.projects.create({ principal: alice.principal, body: { name: 'twin' } })),
      ),
    );
    expect(results.filter((code) => code === 'OK')).toHaveLength(1);
    expect(results.filter((code) => code === 'PROJECT_NAME_TAKEN')).toHaveLength(9);
    const projects = await store.projects.list({ principal: alice.principal });
    expect(projects.filter((project) => project.name === 'twin')).toHaveLength(1);
    // The losers' buckets were created (the race reached the commit) and then removed.
    expect(bucketsCreated.length).toBeGreaterThan(2);
    const live = [];
    for (const bucket of bucketsCreated) if (await blobs.bucketExists({ bucket })) live.push(bucket);
    expect(live.sort()).toEqual(projects.map((project) => project.bucketName).sort());
  });
});
