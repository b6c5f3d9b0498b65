import { PROJECT_DELETION_LIMITS, type RecordsRepository, type RecordsTransaction } from '@mdstore/core';
import { aFile, aRevision } from '@mdstore/core/testing';
import { describe, expect, it } from 'vitest';
import { codeOf, textStream } from './support/fixture.js';
import { scene } from './support/store-scene.js';

/** Records that note, per transaction, how many rows `purgeProjectRecords` removed and was asked for. */
function countingPurges(purges: { limit: number; removed: number }[]) {
  const wrapTx = (tx: RecordsTransaction): RecordsTransaction =>
    new Proxy(tx, {
      get(target, property) {
        if (property === 'purgeProjectRecords') {
          return async (c: { projectId: string; limit: number }) => {
            const removed = await target.purgeProjectRecords(c);
            purges.push({ limit: c.limit, removed });
            return removed;
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  return (inner: RecordsRepository): RecordsRepository =>
    new Proxy(inner, {
      get(target, property) {
        if (property === 'withTransaction') {
          return <T>(work: (tx: RecordsTransaction) => Promise<T>) =>
            target.withTransaction((tx) => work(wrapTx(tx)));
        }
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
}

describe('Delete Project, bounded (issue 34)', () => {
  const { batchRows, requestBatches } = PROJECT_DELETION_LIMITS;

  it('purges a large project in bounded transactions, answers the same, and leaves the rest to reconciliation', async () => {
    const purges: { limit: number; removed: number }[] = [];
    const { store, at, records, blobs } = await scene(undefined, countingPurges(purges));
    const principal = at.principal;
    const project = await store.projects.create({ principal, body: { name: 'Big' } });
    await store.files.upload({
      principal,
      projectId: project.id,
      filename: 'a.md',
      content: textStream('# a\n'),
    });
    // More rows than one request purges: each seeded file is two rows (its record and its revision).
    const seeded = Math.ceil((batchRows * requestBatches) / 2) + batchRows;
    let firstSeeded = '';
    await records.withTransaction(async (tx) => {
      for (let i = 0; i < seeded; i++) {
        const file = aFile({ projectId: project.id, filename: `f${String(i).padStart(5, '0')}.md` });
        if (i === 0) firstSeeded = file.id;
        await tx.insertFile({ file });
        await tx.insertRevision({ revision: aRevision(file) });
      }
    });

    expect(await store.projects.delete({ principal, projectId: project.id })).toEqual({
      projectId: project.id,
    });
    // The request ran at most `requestBatches` purge transactions of at most `batchRows` rows each.
    expect(purges).toHaveLength(requestBatches);
    expect(purges.every(({ limit, removed }) => limit === batchRows && removed <= batchRows)).toBe(true);
    // The project is gone for every reader at once; its rows and bucket are not yet.
    expect(await codeOf(() => store.projects.get({ principal, projectId: project.id }))).toBe(
      'PROJECT_NOT_FOUND',
    );
    expect((await records.findProjectById({ projectId: project.id }))!.status).toBe('deleting');
    expect((await records.listFiles({ projectId: project.id })).length).toBeGreaterThan(0);
    expect(await blobs.bucketExists({ bucket: project.bucketName })).toBe(true);
    const listed = (await store.projects.list({ principal })).find((p) => p.id === project.id)!;
    expect(listed).toMatchObject({ isActive: false, fileCount: 0, totalSizeBytes: 0 });
    // Its name is free at once.
    expect((await store.projects.create({ principal, body: { name: 'Big' } })).name).toBe('Big');

    // The maintenance loop finishes it, batch by batch.
    purges.length = 0;
    const report = await store.maintenance.reconcile();
    expect(report.deletionsCompleted).toBe(1);
    expect(purges.length).toBeGreaterThan(1);
    expect(purges.every(({ removed }) => removed <= batchRows)).toBe(true);
    expect((await records.findProjectById({ projectId: project.id }))!.status).toBe('deleted');
    expect(await records.listFiles({ projectId: project.id })).toEqual([]);
    expect(await records.findRevision({ fileId: firstSeeded, revision: 1 })).toBeNull();
    expect(await blobs.bucketExists({ bucket: project.bucketName })).toBe(false);
    expect(await codeOf(() => store.projects.delete({ principal, projectId: project.id }))).toBe(
      'PROJECT_NOT_FOUND',
    );
  });

  it('a retry by the owner runs another bounded slice, and the one that empties it removes the bucket', async () => {
    const purges: { limit: number; removed: number }[] = [];
    const { store, at, records, blobs } = await scene(undefined, countingPurges(purges));
    const principal = at.principal;
    const project = await store.projects.create({ principal, body: { name: 'Big' } });
    // Rows for one request and a half.
    const seeded = Math.ceil((batchRows * requestBatches * 1.5) / 2);
    await records.withTransaction(async (tx) => {
      for (let i = 0; i < seeded; i++) {
        const file = aFile({ projectId: project.id, filename: `f${i}.md` });
        await tx.insertFile({ file });
        await tx.insertRevision({ revision: aRevision(file) });
      }
    });
    await store.projects.delete({ principal, projectId: project.id });
    expect((await records.findProjectById({ projectId: project.id }))!.status).toBe('deleting');
    purges.length = 0;
    expect(await store.projects.delete({ principal, projectId: project.id })).toEqual({
      projectId: project.id,
    });
    expect(purges.length).toBeLessThanOrEqual(requestBatches);
    expect((await records.findProjectById({ projectId: project.id }))!.status).toBe('deleted');
    expect(await records.listFiles({ projectId: project.id })).toEqual([]);
    expect(await blobs.bucketExists({ bucket: project.bucketName })).toBe(false);
  });

  it('a small project is deleted whole by its request, as before', async () => {
    const purges: { limit: number; removed: number }[] = [];
    const { store, at, records, blobs } = await scene(undefined, countingPurges(purges));
    const principal = at.principal;
    const project = await store.projects.create({ principal, body: { name: 'Small' } });
    for (const filename of ['a.md', 'b.md'])
      await store.files.upload({
        principal,
        projectId: project.id,
        filename,
        content: textStream(`# ${filename}\n[[a]]\n`),
      });
    await store.projects.delete({ principal, projectId: project.id });
    expect(purges).toHaveLength(1);
    expect((await records.findProjectById({ projectId: project.id }))!.status).toBe('deleted');
    expect(await records.listFiles({ projectId: project.id })).toEqual([]);
    expect(await records.listLinkPage({ projectId: project.id, limit: 10 })).toEqual([]);
    expect(await blobs.bucketExists({ bucket: project.bucketName })).toBe(false);
  });
});
