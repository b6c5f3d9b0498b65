import { createMdStore, type MdStore, type Principal } from '@mdstore/core';
import { createMemoryBlobStore, createMemoryRateLimiter, createMemoryRecords } from '@mdstore/memory';
import { describe, expect, it } from 'vitest';
import {
  type FaultCall,
  throwing,
  unavailableError,
  withRecordsFaults,
} from '../../src/testing/faults/index.js';
import { bucketRecorder, readAll, storeProblems } from './support.js';

/**
 * Regression: when a commit transaction commits but its caller hears a failure (the lost
 * acknowledgement: the connection dies after COMMIT was sent), the write path must not remove the blob
 * that the committed record now points to. `withStagedResource` claims its staged note before undoing
 * anything; a note already gone means the commit went through, and the resource stays.
 */

/** The n-th transaction from now commits, then reports a failure. */
function lostCommitAck() {
  let armed: number | undefined;
  let seen = 0;
  return {
    plan: {
      decide: (call: FaultCall) => {
        if (call.method !== 'withTransaction' || call.point !== 'afterCommit') return undefined;
        seen++;
        if (seen !== armed) return undefined;
        return throwing(() => unavailableError('injected: connection lost after COMMIT'));
      },
    },
    /** Arms the fault on the n-th transaction counted from now. */
    arm(n: number) {
      armed = seen + n;
    },
  };
}

/** Each storage form and the transaction that commits a content write in it. */
const FORMS = [
  { form: 'blob', inlineMaxBytes: 0, commitTransaction: 2 }, // 1: note the staged blob, 2: commit the record
  { form: 'inline', inlineMaxBytes: 64 * 1024, commitTransaction: 1 }, // one transaction, no note
];

async function setup(inlineMaxBytes = 0) {
  const records = createMemoryRecords();
  const recorded = bucketRecorder(createMemoryBlobStore());
  const faults = lostCommitAck();
  const store: MdStore = createMdStore({
    records: withRecordsFaults(records, faults.plan),
    blobs: recorded.store,
    rateLimiter: createMemoryRateLimiter(),
    settings: { inlineMaxBytes },
  });
  const created = await store.accounts.create({ name: 'alice' });
  const principal: Principal = await store.authenticate({ apiKey: created.apiKey.apiKey });
  const problems = () =>
    storeProblems({
      records,
      blobs: recorded.store,
      buckets: recorded.buckets,
      accountIds: [principal.accountId],
    });
  return { store, faults, principal, projectId: created.defaultProject.id, problems };
}

async function* text(value: string): AsyncIterable<Uint8Array> {
  yield new TextEncoder().encode(value);
}

describe('known bug: a lost commit acknowledgement removes the blob a committed record points to', () => {
  it.each(FORMS)('upload ($form): the file either is not there or has its content', async (form) => {
    const { store, faults, principal, projectId, problems } = await setup(form.inlineMaxBytes);
    faults.arm(form.commitTransaction);
    await expect(
      store.files.upload({ principal, projectId, filename: 'a.md', content: text('# a') }),
    ).rejects.toThrow('connection lost after COMMIT');
    expect(await problems()).toEqual([]);
  });

  it.each(FORMS)('content update ($form): the file keeps one whole version', async (form) => {
    const { store, faults, principal, projectId, problems } = await setup(form.inlineMaxBytes);
    await store.files.upload({ principal, projectId, filename: 'a.md', content: text('# old') });
    faults.arm(form.commitTransaction);
    await expect(
      store.files.updateContent({ principal, projectId, filename: 'a.md', content: text('# new') }),
    ).rejects.toThrow('connection lost after COMMIT');
    await store.maintenance.reconcile();
    const download = await store.files.download({ principal, projectId, filename: 'a.md' });
    expect(['# old', '# new']).toContain(new TextDecoder().decode(await readAll(download.content)));
    expect(await problems()).toEqual([]);
  });

  it('project creation: an active project keeps its bucket', async () => {
    const { store, faults, principal, problems } = await setup();
    faults.arm(2);
    await expect(store.projects.create({ principal, body: { name: 'p' } })).rejects.toThrow(
      'connection lost after COMMIT',
    );
    expect(await problems()).toEqual([]);
  });
});
