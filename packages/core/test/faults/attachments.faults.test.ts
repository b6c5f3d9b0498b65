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
 * Attachment writes and deletes (extensions §12) keep the write path's promise: a fault is injected at
 * the n-th call of the records or blob store for every n the operation makes (a crash at that point,
 * as far as the stores can tell: what was written before stays, nothing after happens, and the caller
 * hears a failure). Each failed operation leaves every attachment as it was; each successful one as a
 * fault-free run does; the stores agree at every step (every record's blob is there with its bytes,
 * counters exact, any blob without a record noted by an intent); and after reconciliation no blob or
 * intent is left over. The operations cover the dedupe paths: a write whose bytes the project already
 * holds (its own blob dropped), a replace that frees the old bytes, a delete of one of two twins, and a
 * delete of the last holder; moves, alone or with the rewrite of a note's links (one changeset); and
 * changesets (extensions §9) that write a note and attachments together (`attach`, `detach`): whole or
 * nothing, their staged blobs removed again. In a project that keeps a trash: deletes to it, restores
 * from it, deletes from it and a changeset's `detach` to it, the trash listed in each snapshot, the blob freed only when no
 * attachment or trash item holds it.
 */

const PDF = new TextEncoder().encode('%PDF-1.4\n1 0 obj <<>> endobj\n%%EOF\n');
const PNG = Uint8Array.from(
  Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
    'base64',
  ),
);
const TEXT_OF = (text: string) => new TextEncoder().encode(text);
const TEXT = TEXT_OF('plain text, other bytes');

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

const b64 = (value: Uint8Array) => Buffer.from(value).toString('base64');

async function* bytes(value: Uint8Array): AsyncIterable<Uint8Array> {
  yield value;
}

/** `trash`: the project keeps a trash (extensions §5), holding `x.txt` (its bytes' only holder) and `y.pdf` (a twin). */
async function setup(o: { trash?: boolean } = {}) {
  const records = createMemoryRecords();
  const recorded = bucketRecorder(createMemoryBlobStore());
  const faults = nthCall();
  const store: MdStore = createMdStore({
    records: withRecordsFaults(records, faults.plan),
    blobs: withBlobFaults(recorded.store, faults.plan),
    rateLimiter: createMemoryRateLimiter(),
  });
  const created = await store.accounts.create({ name: 'alice' });
  const principal: Principal = await store.authenticate({ apiKey: created.apiKey.apiKey });
  const projectId = created.defaultProject.id;
  const write = (path: string, content: Uint8Array, contentType: string) =>
    store.attachments.write({ principal, projectId, path, contentType, content: bytes(content) });
  const remove = (path: string) => store.attachments.delete({ principal, projectId, path });
  const changeset = (operations: unknown[]) => store.changesets.apply({ principal, projectId, operations });
  const move = (path: string, to: string, rewrite_links = false) =>
    store.attachments.move({ principal, projectId, path, body: { to, rewrite_links } });
  const trashIdOf = async (path: string) => {
    const { trash } = await store.trash.list({ principal, projectId });
    return trash.find((item) => item.path === path)!.trashId;
  };
  const restore = async (path: string, to?: string) =>
    store.trash.restore({ principal, projectId, trashId: await trashIdOf(path), body: { to } });
  const purge = async (path: string) =>
    store.trash.delete({ principal, projectId, trashId: await trashIdOf(path) });
  if (o.trash) {
    await store.projects.update({ principal, projectId, body: { settings: { trash_retention_days: 7 } } });
  }
  await write('a.pdf', PDF, 'application/pdf');
  await write('b.pdf', PDF, 'application/pdf');
  await write('c.png', PNG, 'image/png');
  if (o.trash) {
    await write('x.txt', TEXT, 'text/plain');
    await remove('x.txt');
    await write('y.pdf', PDF, 'application/pdf');
    await remove('y.pdf');
  }
  const note = '![pixel](c.png) ![[c.png]] [doc](a.pdf)\n';
  await store.files.upload({ principal, projectId, filename: 'n.md', content: bytes(TEXT_OF(note)) });
  /** Every attachment as `path → type:bytes`, and every file's text, read through the use cases. */
  const snapshot = async () => {
    const state: Record<string, string> = {};
    for (const file of (await store.files.list({ principal, projectId })).files) {
      const download = await store.files.download({ principal, projectId, filename: file.filename });
      state[`file:${file.filename}`] = new TextDecoder().decode(await readAll(download.content!));
    }
    const { attachments } = await store.attachments.list({ principal, projectId });
    for (const a of attachments) {
      const read = await store.attachments.read({ principal, projectId, path: a.path });
      if (read.kind !== 'content' || !read.content) throw new Error('unreachable');
      state[a.path] = `${a.contentType}:${Buffer.from(await readAll(read.content)).toString('base64')}`;
    }
    for (const item of (await store.trash.list({ principal, projectId })).trash) {
      state[`trash:${item.filename}`] = `${item.kind}:${item.contentType ?? ''}:${item.sizeBytes}`;
    }
    return state;
  };
  const problems = (settled = false) =>
    storeProblems({
      records,
      blobs: recorded.store,
      buckets: recorded.buckets,
      accountIds: [principal.accountId],
      settled,
    });
  return { store, faults, snapshot, problems, write, remove, move, changeset, restore, purge };
}

type World = Awaited<ReturnType<typeof setup>>;

const OPERATIONS: Record<string, (w: World) => Promise<unknown>> = {
  'a write of bytes the project holds (dedupe)': (w) => w.write('d.pdf', PDF, 'application/pdf'),
  'a write of new bytes': (w) => w.write('e.txt', TEXT, 'text/plain'),
  'a replace that frees the old bytes': (w) => w.write('c.png', TEXT, 'text/plain'),
  'a replace of one twin': (w) => w.write('a.pdf', PNG, 'image/png'),
  'a delete of one of two twins': (w) => w.remove('a.pdf'),
  'a delete of the last holder': (w) => w.remove('c.png'),
  'a move': (w) => w.move('a.pdf', 'docs/a.pdf'),
  'a move with rewrite_links (one changeset with the note)': (w) => w.move('c.png', 'img/c.png', true),
  'a changeset: a note and a new image': (w) =>
    w.changeset([
      { op: 'put', filename: 'n.md', content: '![](e.txt)' },
      { op: 'attach', path: 'e.txt', content_base64: b64(TEXT), content_type: 'text/plain' },
    ]),
  'a changeset: a note, a dedupe, a replace that frees bytes and a detach of a twin': (w) =>
    w.changeset([
      { op: 'put', filename: 'n.md', content: '![](d.pdf)' },
      { op: 'attach', path: 'd.pdf', content_base64: b64(PDF), content_type: 'application/pdf' },
      { op: 'attach', path: 'c.png', content_base64: b64(TEXT), content_type: 'text/plain' },
      { op: 'detach', path: 'a.pdf' },
    ]),
};

/** In a project that keeps a trash: deletes to it, restores from it, deletes from it (extensions §12, §5). */
const TRASH_OPERATIONS: Record<string, (w: World) => Promise<unknown>> = {
  'a delete to the trash of one of two twins': (w) => w.remove('a.pdf'),
  'a delete to the trash of the last holder': (w) => w.remove('c.png'),
  'a restore from the trash': (w) => w.restore('x.txt'),
  'a restore from the trash under `to`, bytes a live twin holds too': (w) => w.restore('y.pdf', 'docs/y.pdf'),
  'a delete from the trash of the last holder': (w) => w.purge('x.txt'),
  'a delete from the trash of bytes a live twin holds': (w) => w.purge('y.pdf'),
  'a changeset: a note and a detach to the trash': (w) =>
    w.changeset([
      { op: 'put', filename: 'n.md', content: 'no image' },
      { op: 'detach', path: 'c.png' },
    ]),
};

const CASES = [
  ...Object.entries(OPERATIONS).map(([name, operation]) => [name, operation, false] as const),
  ...Object.entries(TRASH_OPERATIONS).map(([name, operation]) => [name, operation, true] as const),
];

describe.each(CASES)('attachments under faults: %s', (_name, operation, trash) => {
  it('a failed operation changes nothing, a successful one is the fault-free result, nothing is left over', async () => {
    const reference = await setup({ trash });
    const before = await reference.snapshot();
    await operation(reference);
    const after = await reference.snapshot();
    expect(after).not.toEqual(before);
    await reference.store.maintenance.reconcile();
    expect(await reference.problems(true)).toEqual([]);
    let failures = 0;
    for (let n = 1; n < 200; n++) {
      const world = await setup({ trash });
      world.faults.arm(n);
      const outcome = await operation(world).then(
        () => 'done' as const,
        (error: unknown) => error,
      );
      world.faults.disarm();
      if (outcome === 'done') expect(await world.snapshot()).toEqual(after);
      else {
        failures++;
        expect(String(outcome)).toContain('injected');
        expect(await world.snapshot()).toEqual(before);
      }
      expect(await world.problems()).toEqual([]);
      await world.store.maintenance.reconcile();
      expect(await world.problems(true)).toEqual([]);
      if (!world.faults.struck) break;
    }
    expect(failures).toBeGreaterThan(2);
  }, 120_000);
});
