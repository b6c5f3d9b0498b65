import { createMdStore, type MdStore, type Principal } from '@mdstore/core';
import { createMemoryBlobStore, createMemoryRateLimiter, createMemoryRecords } from '@mdstore/memory';
import { describe, expect, it } from 'vitest';
import {
  type FaultCall,
  throwing,
  unavailableError,
  withBlobFaults,
  withRecordsFaults,
} from '../../src/testing/faults/index.js';
import { bucketRecorder, readAll, storeProblems } from './support.js';

/**
 * Move with `rewrite_links` (extensions §9) keeps the write path's promise: whole or not at all. A
 * fault is injected at the n-th call of the records or blob store (before it reaches the store) for
 * every n the move makes; each failed move leaves every file as it was, each successful one leaves
 * them as a fault-free move does, and after reconciliation no blob or note is left over. Both storage
 * forms: rewritten contents inline in the transaction, or staged in the blob store before it.
 */

const FILES: Record<string, string> = {
  'docs/setup.md': '# Setup\n\n## Install\n\nBack to [index](../index.md).\n',
  'index.md':
    'See [setup](docs/setup.md#install) and [[docs/setup|it]].\n\n[r]: ./docs/setup.md\n\n[again][r]\n',
  'a/b.md': '[x](<../docs/setup.md>) [[setup]]\n',
};

/** Strikes once, at the n-th call (any port, any method), when armed. */
function nthCall() {
  let armed: number | undefined;
  let seen = 0;
  let struck = false;
  const plan = {
    decide: (call: FaultCall) => {
      if (armed === undefined || call.point === 'afterCommit' || call.point === 'beforeCommit')
        return undefined;
      seen++;
      if (seen !== armed) return undefined;
      struck = true;
      return throwing(() => unavailableError(`injected at ${call.port}.${call.method}`));
    },
  };
  return {
    plan,
    arm(n: number) {
      armed = n;
      seen = 0;
      struck = false;
    },
    disarm() {
      armed = undefined;
    },
    get struck() {
      return struck;
    },
  };
}

async function setup(inlineMaxBytes: number) {
  const records = createMemoryRecords();
  const recorded = bucketRecorder(createMemoryBlobStore());
  const faults = nthCall();
  const store: MdStore = createMdStore({
    records: withRecordsFaults(records, faults.plan),
    blobs: withBlobFaults(recorded.store, faults.plan),
    rateLimiter: createMemoryRateLimiter(),
    settings: { inlineMaxBytes },
  });
  const created = await store.accounts.create({ name: 'alice' });
  const principal: Principal = await store.authenticate({ apiKey: created.apiKey.apiKey });
  const projectId = created.defaultProject.id;
  for (const [filename, content] of Object.entries(FILES)) {
    await store.files.upload({ principal, projectId, filename, content: text(content) });
  }
  const snapshot = async () => {
    const listed = await store.files.list({ principal, projectId });
    const state: Record<string, string> = {};
    for (const file of listed.files) {
      const download = await store.files.download({ principal, projectId, filename: file.filename });
      state[file.filename] = new TextDecoder().decode(await readAll(download.content!));
    }
    return state;
  };
  const problems = () =>
    storeProblems({
      records,
      blobs: recorded.store,
      buckets: recorded.buckets,
      accountIds: [principal.accountId],
    });
  const move = () =>
    store.files.move({
      principal,
      projectId,
      filename: 'docs/setup.md',
      body: { to: 'guides/deep/install.md', rewrite_links: true },
    });
  return { store, faults, snapshot, problems, move };
}

async function* text(value: string): AsyncIterable<Uint8Array> {
  yield new TextEncoder().encode(value);
}

describe.each([
  { form: 'inline', inlineMaxBytes: 64 * 1024 },
  { form: 'blob', inlineMaxBytes: 0 },
])('move with rewrite_links under faults ($form)', ({ inlineMaxBytes }) => {
  it('each failed move changes nothing; a successful one is the fault-free result; nothing is left over', async () => {
    const reference = await setup(inlineMaxBytes);
    const before = await reference.snapshot();
    const moved = await reference.move();
    expect(moved.rewritten).toEqual([
      { filename: 'a/b.md', links: 2 },
      { filename: 'guides/deep/install.md', links: 1 },
      { filename: 'index.md', links: 3 },
    ]);
    const after = await reference.snapshot();
    expect(after).not.toEqual(before);
    let failures = 0;
    for (let n = 1; n < 400; n++) {
      const world = await setup(inlineMaxBytes);
      world.faults.arm(n);
      const outcome = await world.move().then(
        () => 'moved' as const,
        (error: unknown) => error,
      );
      world.faults.disarm();
      if (outcome === 'moved') expect(await world.snapshot()).toEqual(after);
      else {
        failures++;
        expect(String(outcome)).toContain('injected');
        expect(await world.snapshot()).toEqual(before);
      }
      await world.store.maintenance.reconcile();
      expect(await world.problems()).toEqual([]);
      if (!world.faults.struck) break;
    }
    expect(failures).toBeGreaterThan(10);
  }, 120_000);
});
