import { createMdStore, type MdStore, type Principal, wireBody } from '@mdstore/core';
import { createMemoryBlobStore, createMemoryRateLimiter, createMemoryRecords } from '@mdstore/memory';
import { describe, expect, it } from 'vitest';
import {
  type FaultCall,
  throwing,
  unavailableError,
  withRecordsFaults,
} from '../../src/testing/faults/index.js';

/**
 * Extensions §7: an event is written by the transaction of its change, so a write that fails in that
 * transaction, after it handed the store its event and before the commit, leaves no event (and no
 * change); the same write then succeeds with exactly one. Every write kind is tried, in both content
 * forms where it stores content.
 */

/** Fails the commit of the next transaction that appended a change event, while armed. */
function failingEventCommit() {
  let armed = false;
  let appended = false;
  return {
    plan: {
      decide: (call: FaultCall) => {
        if (call.method === 'tx.appendChangeEvents') appended = true;
        if (call.method !== 'withTransaction' || call.point !== 'beforeCommit') return undefined;
        const strike = armed && appended;
        appended = false;
        if (!strike) return undefined;
        armed = false;
        return throwing(() => unavailableError('injected: the commit failed'));
      },
    },
    arm() {
      armed = true;
    },
    get armed() {
      return armed;
    },
  };
}

async function* bytes(text: string): AsyncIterable<Uint8Array> {
  yield new TextEncoder().encode(text);
}

async function setup(inlineMaxBytes: number) {
  const records = createMemoryRecords();
  const faults = failingEventCommit();
  const store: MdStore = createMdStore({
    records: withRecordsFaults(records, faults.plan),
    blobs: createMemoryBlobStore(),
    rateLimiter: createMemoryRateLimiter(),
    settings: { inlineMaxBytes },
  });
  const created = await store.accounts.create({ name: 'alice' });
  const principal: Principal = await store.authenticate({ apiKey: created.apiKey.apiKey });
  const project = await store.projects.create({
    principal,
    body: { name: 'p', settings: { trash_retention_days: 1 } },
  });
  const projectId = project.id;
  const events = async () =>
    (await records.listChangeEvents({ accountId: principal.accountId, afterSeq: 0, limit: 1000 })).map(
      (e) => [e.seq, e.type, e.filename] as const,
    );
  /** The write fails once with no event and nothing changed, then succeeds with exactly one event. */
  const once = async (write: () => Promise<unknown>, type: string) => {
    const before = await events();
    const filesBefore = await records.listFiles({ projectId });
    faults.arm();
    await expect(write()).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(faults.armed).toBe(false);
    expect(await events()).toEqual(before);
    expect(await records.listFiles({ projectId })).toEqual(filesBefore);
    await write();
    const after = await events();
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.slice(before.length).map(([, t]) => t)).toEqual([type]);
  };
  return { store, principal, projectId, once, records };
}

describe.each([
  { form: 'blob', inlineMaxBytes: 0 },
  { form: 'inline', inlineMaxBytes: 64 * 1024 },
])('a failed commit leaves no change event ($form content)', ({ inlineMaxBytes }) => {
  it('for every file write kind', async () => {
    const { store, principal, projectId, once, records } = await setup(inlineMaxBytes);
    const at = { principal, projectId };
    await once(
      () => store.files.upload({ ...at, filename: 'a.md', content: bytes('# one\n') }),
      'file.created',
    );
    await once(
      () => store.files.updateContent({ ...at, filename: 'a.md', content: bytes('# two\n') }),
      'file.updated',
    );
    await once(
      () => store.files.updateMetadata({ ...at, filename: 'a.md', body: wireBody({ metadata: { v: 1 } }) }),
      'file.updated',
    );
    await once(
      () => store.files.edit({ ...at, filename: 'a.md', body: { edits: [{ op: 'append', text: 'x\n' }] } }),
      'file.updated',
    );
    await once(() => store.files.restore({ ...at, filename: 'a.md', body: { revision: 1 } }), 'file.updated');
    await once(() => store.files.copy({ ...at, filename: 'a.md', body: { to: 'b.md' } }), 'file.created');
    await once(() => store.files.move({ ...at, filename: 'b.md', body: { to: 'c.md' } }), 'file.moved');
    await once(() => store.files.delete({ ...at, filename: 'c.md' }), 'file.deleted');
    const [item] = (await store.trash.list({ ...at })).trash;
    await once(() => store.trash.restore({ ...at, trashId: item!.trashId, body: {} }), 'file.restored');
    expect(await records.findFile({ projectId, filename: 'c.md' })).not.toBeNull();
  });

  it('for project creation, update and deletion', async () => {
    const { store, principal, once } = await setup(inlineMaxBytes);
    let id = '';
    await once(async () => {
      id = (await store.projects.create({ principal, body: { name: 'q' } })).id;
    }, 'project.created');
    await once(
      () => store.projects.update({ principal, projectId: id, body: { description: 'd' } }),
      'project.updated',
    );
    await once(() => store.projects.delete({ principal, projectId: id }), 'project.deleted');
  });
});
