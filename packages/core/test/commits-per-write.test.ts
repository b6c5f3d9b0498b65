import { describe, expect, it } from 'vitest';
import { anAccount, createFixture, textStream, withTransactionWrapper } from './support/fixture.js';

/**
 * Small documents at the physical limit (issue "small documents"): a small write pays one durable
 * commit, never two. Counted as transactions asked of the records store (each is one group-committed
 * COMMIT on SQLite, one COMMIT on Postgres), with the blob store's calls beside them.
 */
function countingFixture(inlineMaxBytes: number) {
  const counts = { transactions: 0, blobWrites: 0, blobDeletes: 0 };
  const fixture = createFixture({
    settings: { inlineMaxBytes },
    wrapRecords: (inner) =>
      withTransactionWrapper(inner, (tx) => {
        counts.transactions++;
        return tx;
      }),
    wrapBlobs: (inner) => ({
      ...inner,
      put: (o) => {
        counts.blobWrites++;
        return inner.put(o);
      },
      delete: (o) => {
        counts.blobDeletes++;
        return inner.delete(o);
      },
    }),
  });
  const measure = async (write: () => Promise<unknown>) => {
    counts.transactions = 0;
    counts.blobWrites = 0;
    counts.blobDeletes = 0;
    await write();
    return { ...counts };
  };
  return { fixture, measure };
}

describe('one durable commit per small write', () => {
  it('inline: upload, content update, metadata update and delete each commit once, with no blob I/O', async () => {
    const { fixture, measure } = countingFixture(64 * 1024);
    const alice = await anAccount(fixture.store, 'alice');
    const file = { principal: alice.principal, projectId: alice.defaultProjectId, filename: 'note.md' };
    const none = { blobWrites: 0, blobDeletes: 0 };

    expect(
      await measure(() => fixture.store.files.upload({ ...file, content: textStream('# one') })),
    ).toEqual({
      transactions: 1,
      ...none,
    });
    expect(
      await measure(() => fixture.store.files.updateContent({ ...file, content: textStream('# two') })),
    ).toEqual({ transactions: 1, ...none });
    expect(
      await measure(() => fixture.store.files.updateMetadata({ ...file, body: { metadata: { a: 1 } } })),
    ).toEqual({ transactions: 1, ...none });
    expect(await measure(() => fixture.store.files.delete(file))).toEqual({ transactions: 1, ...none });
  });

  it('blob: the staged path pays its note and its commit, and a delete its removal note', async () => {
    const { fixture, measure } = countingFixture(0);
    const alice = await anAccount(fixture.store, 'alice');
    const file = { principal: alice.principal, projectId: alice.defaultProjectId, filename: 'note.md' };

    // Note the staged blob, write it, commit the records (which drops the note).
    expect(
      await measure(() => fixture.store.files.upload({ ...file, content: textStream('# one') })),
    ).toEqual({
      transactions: 2,
      blobWrites: 1,
      blobDeletes: 0,
    });
    // A metadata write touches no content: one transaction, whatever the form.
    expect(
      await measure(() => fixture.store.files.updateMetadata({ ...file, body: { metadata: { a: 1 } } })),
    ).toEqual({ transactions: 1, blobWrites: 0, blobDeletes: 0 });
    // The record and its revisions go in one transaction; the blob after it, then its doomed note.
    expect(await measure(() => fixture.store.files.delete(file))).toEqual({
      transactions: 2,
      blobWrites: 0,
      blobDeletes: 1,
    });
  });
});
