import { type BlobStore, StoreUnavailableError } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import {
  anAccount,
  blobKeys,
  codeOf,
  createFixture,
  type Fixture,
  failingMethod,
  nextMacrotask,
  readText,
  type TestAccount,
  textStream,
  withTransactionWrapper,
} from './support/fixture.js';

const unavailable = () => new StoreUnavailableError('injected failure');

/** A project with one file `keep.md`, and everything needed to check that nothing else changed. */
async function projectWithOneFile(fixture: Fixture) {
  const alice = await anAccount(fixture.store, 'alice');
  const project = await fixture.store.projects.create({ principal: alice.principal, body: { name: 'p' } });
  await fixture.store.files.upload({
    principal: alice.principal,
    projectId: project.id,
    filename: 'keep.md',
    content: textStream('# kept'),
    metadata: '{"v":1}',
  });
  const before = await fixture.store.projects.get({ principal: alice.principal, projectId: project.id });
  const keysBefore = await blobKeys(fixture.blobs, project.bucketName);
  return { alice, project: before, keysBefore };
}

async function expectUnchanged(
  fixture: Fixture,
  alice: TestAccount,
  before: { id: string; bucketName: string },
  keysBefore: string[],
) {
  const { store, records, blobs } = fixture;
  expect(await store.projects.get({ principal: alice.principal, projectId: before.id })).toEqual(before);
  const files = await store.files.list({ principal: alice.principal, projectId: before.id });
  expect(files.files.map((file) => file.filename)).toEqual(['keep.md']);
  const kept = await store.files.download({
    principal: alice.principal,
    projectId: before.id,
    filename: 'keep.md',
  });
  expect(await readText(kept.content)).toBe('# kept');
  expect(kept.file.metadata).toEqual({ v: 1 });
  expect(await blobKeys(blobs, before.bucketName)).toEqual(keysBefore);
  expect(await records.listBlobIntents({ limit: 10 })).toEqual([]);
}

/** Small content stored in the blob store, for the tests of the blob path. */
const BLOB_FORM = { inlineMaxBytes: 0 };
const FORMS = [
  { form: 'blob', settings: BLOB_FORM },
  { form: 'inline', settings: { inlineMaxBytes: 64 * 1024 } },
];

describe('the write path when a store fails', () => {
  it('leaves no record, no counter change and no blob when the blob store refuses the content', async () => {
    let failPut = false;
    const fixture = createFixture({
      settings: BLOB_FORM,
      wrapBlobs: (inner) => ({
        ...inner,
        // Writes the object, then fails: the worst case for "nothing stored".
        put: async (o) => {
          const stored = await inner.put(o);
          if (failPut) throw unavailable();
          return stored;
        },
      }),
    });
    const { alice, project, keysBefore } = await projectWithOneFile(fixture);
    failPut = true;
    const upload = () =>
      fixture.store.files.upload({
        principal: alice.principal,
        projectId: project.id,
        filename: 'new.md',
        content: textStream('# new'),
      });
    expect(await codeOf(upload)).toBe('STORE_UNAVAILABLE');
    const update = () =>
      fixture.store.files.updateContent({
        principal: alice.principal,
        projectId: project.id,
        filename: 'keep.md',
        content: textStream('# replaced'),
      });
    expect(await codeOf(update)).toBe('STORE_UNAVAILABLE');
    await expectUnchanged(fixture, alice, project, keysBefore);
  });

  it.each(FORMS)(
    'deletes the new content when the records transaction fails ($form)',
    async ({ settings }) => {
      let failCommit = false;
      const fixture = createFixture({
        settings,
        wrapRecords: (inner) =>
          withTransactionWrapper(inner, (tx) => {
            const failing = failingMethod(tx, 'insertFile', unavailable, () => failCommit);
            return failingMethod(failing, 'updateFile', unavailable, () => failCommit);
          }),
      });
      const { alice, project, keysBefore } = await projectWithOneFile(fixture);
      failCommit = true;
      const upload = () =>
        fixture.store.files.upload({
          principal: alice.principal,
          projectId: project.id,
          filename: 'new.md',
          content: textStream('# new'),
        });
      const update = () =>
        fixture.store.files.updateContent({
          principal: alice.principal,
          projectId: project.id,
          filename: 'keep.md',
          content: textStream('# replaced'),
        });
      expect(await codeOf(upload)).toBe('STORE_UNAVAILABLE');
      expect(await codeOf(update)).toBe('STORE_UNAVAILABLE');
      await expectUnchanged(fixture, alice, project, keysBefore);
    },
  );

  it.each(FORMS)(
    'discards the written content when late metadata turns out invalid ($form)',
    async ({ settings }) => {
      const fixture = createFixture({ settings });
      const { alice, project, keysBefore } = await projectWithOneFile(fixture);
      const upload = () =>
        fixture.store.files.upload({
          principal: alice.principal,
          projectId: project.id,
          filename: 'new.md',
          content: textStream('# new'),
          metadata: Promise.resolve('[not an object]'),
        });
      expect(await codeOf(upload)).toBe('MALFORMED_INPUT');
      await expectUnchanged(fixture, alice, project, keysBefore);
    },
  );

  it('removes a file even when its blob cannot be deleted yet, and reconciliation removes the blob', async () => {
    let failDelete = true;
    const fixture = createFixture({
      settings: BLOB_FORM,
      wrapBlobs: (inner) => ({
        ...inner,
        delete: async (o) => {
          if (failDelete) throw unavailable();
          return inner.delete(o);
        },
      }),
    });
    const { alice, project } = await projectWithOneFile(fixture);
    const input = { principal: alice.principal, projectId: project.id, filename: 'keep.md' };
    await fixture.store.files.delete(input);

    expect(await codeOf(() => fixture.store.files.download(input))).toBe('FILE_NOT_FOUND');
    const after = await fixture.store.projects.get({ principal: alice.principal, projectId: project.id });
    expect(after).toMatchObject({ fileCount: 0, totalSizeBytes: 0 });
    expect(await blobKeys(fixture.blobs, project.bucketName)).toHaveLength(1);

    failDelete = false;
    const report = await fixture.store.maintenance.reconcile();
    expect(report).toMatchObject({ intentsResolved: 1, resourcesRemoved: 1, failures: 0 });
    expect(await blobKeys(fixture.blobs, project.bucketName)).toEqual([]);
    expect(await fixture.records.listBlobIntents({ limit: 10 })).toEqual([]);
  });
});

/** A blob store whose puts store the object and then hang until `release`, like a process about to crash. */
function stallingPuts(inner: BlobStore) {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let stalled = 0;
  let stall = false;
  const blobs: BlobStore = {
    ...inner,
    put: async (o) => {
      const stored = await inner.put(o);
      if (!stall) return stored;
      stalled++;
      await released;
      return stored;
    },
  };
  return {
    blobs,
    start: () => {
      stall = true;
    },
    release,
    stalledCount: () => stalled,
  };
}

describe('recovery after a crash', () => {
  async function crashDuringUpload() {
    let stalling: ReturnType<typeof stallingPuts> | undefined;
    const fixture = createFixture({
      wrapBlobs: (inner) => {
        stalling = stallingPuts(inner);
        return stalling.blobs;
      },
      settings: { ...BLOB_FORM, instanceLeaseMs: 30_000 },
    });
    const { alice, project, keysBefore } = await projectWithOneFile(fixture);
    await fixture.store.maintenance.heartbeat();
    stalling!.start();
    const pending = fixture.store.files.upload({
      principal: alice.principal,
      projectId: project.id,
      filename: 'lost.md',
      content: textStream('# never committed'),
    });
    const outcome = codeOf(() => pending);
    while (stalling!.stalledCount() === 0) await nextMacrotask();
    // The blob is written, the commit never happens: the process is gone.
    expect((await blobKeys(fixture.blobs, project.bucketName)).length).toBe(keysBefore.length + 1);
    return { fixture, alice, project, keysBefore, stalling: stalling!, outcome };
  }

  it('removes the orphan blob once the crashed instance is known to be gone, leaving records alone', async () => {
    const { fixture, alice, project, keysBefore, stalling, outcome } = await crashDuringUpload();
    const restarted = fixture.restart();

    // While the old instance's lease runs, its write may still finish: it is left alone.
    const early = await restarted.maintenance.reconcile();
    expect(early).toMatchObject({ intentsInProgress: 1, resourcesRemoved: 0 });
    expect((await blobKeys(fixture.blobs, project.bucketName)).length).toBe(keysBefore.length + 1);

    fixture.clock.advance(31_000);
    const report = await restarted.maintenance.reconcile();
    expect(report).toMatchObject({
      intentsResolved: 1,
      resourcesRemoved: 1,
      intentsInProgress: 0,
      failures: 0,
    });
    await expectUnchanged(fixture, alice, project, keysBefore);
    expect(await fixture.records.listInstances()).toEqual([]);

    // Should the old process wake up after all, its late commit fails instead of pointing at a removed blob.
    stalling.release();
    expect(await outcome).toBe('STORE_UNAVAILABLE');
    await expectUnchanged(fixture, alice, project, keysBefore);
  });

  it('also treats an instance as gone when the probe says its process has ended', async () => {
    const { fixture, alice, project, keysBefore } = await crashDuringUpload();
    const restarted = fixture.restart({
      probe: { hostname: 'host', pid: 2, isRunning: () => false },
    });
    const report = await restarted.maintenance.reconcile();
    expect(report).toMatchObject({ intentsResolved: 1, resourcesRemoved: 1 });
    await expectUnchanged(fixture, alice, project, keysBefore);
  });
});

describe('interrupted project deletion', () => {
  function failingBucketDeletes() {
    let failuresLeft = 0;
    const fixture = createFixture({
      wrapBlobs: (inner) => ({
        ...inner,
        deleteBucket: async (o) => {
          if (failuresLeft > 0) {
            failuresLeft--;
            throw unavailable();
          }
          return inner.deleteBucket(o);
        },
      }),
    });
    return { fixture, failOnce: () => (failuresLeft = 1) };
  }

  async function interruptedDeletion() {
    const { fixture, failOnce } = failingBucketDeletes();
    const { alice, project } = await projectWithOneFile(fixture);
    const bob = await anAccount(fixture.store, 'bob');
    failOnce();
    const del = () => fixture.store.projects.delete({ principal: alice.principal, projectId: project.id });
    expect(await codeOf(del)).toBe('STORE_UNAVAILABLE');

    // Already gone for every caller: inactive, counters zero, name free, files gone.
    const listed = (await fixture.store.projects.list({ principal: alice.principal })).find(
      (p) => p.id === project.id,
    );
    expect(listed).toMatchObject({ isActive: false, fileCount: 0, totalSizeBytes: 0 });
    for (const principal of [alice.principal, bob.principal]) {
      expect(await codeOf(() => fixture.store.projects.get({ principal, projectId: project.id }))).toBe(
        'PROJECT_NOT_FOUND',
      );
    }
    expect(await fixture.records.listFiles({ projectId: project.id })).toEqual([]);
    expect(await fixture.blobs.bucketExists({ bucket: project.bucketName })).toBe(true);
    return { fixture, alice, bob, project, del };
  }

  it('is completed by a retried delete', async () => {
    const { fixture, bob, project, del } = await interruptedDeletion();
    // Another account cannot finish it for the owner.
    expect(
      await codeOf(() => fixture.store.projects.delete({ principal: bob.principal, projectId: project.id })),
    ).toBe('PROJECT_NOT_FOUND');
    expect(await del()).toEqual({ projectId: project.id });
    expect(await fixture.blobs.bucketExists({ bucket: project.bucketName })).toBe(false);
    expect((await fixture.records.findProjectById({ projectId: project.id }))?.status).toBe('deleted');
    expect(await codeOf(del)).toBe('PROJECT_NOT_FOUND');
  });

  it('is completed by reconciliation on start-up', async () => {
    const { fixture, alice, project } = await interruptedDeletion();
    // The name is free at once.
    await fixture.store.projects.create({ principal: alice.principal, body: { name: project.name } });
    const report = await fixture.restart().maintenance.reconcile();
    expect(report).toMatchObject({ deletionsCompleted: 1, failures: 0 });
    expect(await fixture.blobs.bucketExists({ bucket: project.bucketName })).toBe(false);
    expect((await fixture.records.findProjectById({ projectId: project.id }))?.status).toBe('deleted');
    expect(await fixture.records.listBlobIntents({ limit: 10 })).toEqual([]);
  });
});
