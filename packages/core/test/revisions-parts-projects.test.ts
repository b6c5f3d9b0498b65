import {
  BlobNotFoundError,
  type BlobStore,
  createMdStore,
  encodeCursor,
  isMdStoreError,
  type MdStoreSettings,
  type RecordsRepository,
  type RecordsTransaction,
  type ValidationIssue,
} from '@mdstore/core';
import { createMemoryBlobStore, createMemoryRateLimiter, createMemoryRecords } from '@mdstore/memory';
import { describe, expect, it } from 'vitest';
import { anAccount, blobKeys, codeOf, manualClock, readText, textStream } from './support/fixture.js';

/**
 * The read side of history (list, read and diff of revisions), the parts of a file (lines, sections,
 * outline) and the project use cases, driven through the store on the memory adapters: exact pages
 * and cursors, the revision a view describes, the errors and where they point, and the retries when a
 * content version vanishes while being read. (The mutation run found no core test reaching these.)
 */

const KEY = new Uint8Array(32).fill(7);
const BLOB = { inlineMaxBytes: 0 };
const INLINE = { inlineMaxBytes: 64 * 1024 };

/** How the blob store misbehaves for the next `left` reads. */
interface Faults {
  left: number;
  /** `open`: the get itself says the blob is gone; `stream`: it goes after the first byte; `error`: another failure mid-stream. */
  mode: 'open' | 'stream' | 'error';
  /** Every read of a blob, counted. */
  gets: number;
  /** Chunks of this many bytes (the memory store sends one chunk). */
  chunkBytes?: number;
}

function faultyBlobs(faults: Faults) {
  return (inner: BlobStore): BlobStore => ({
    ...inner,
    get: async (o) => {
      faults.gets++;
      if (faults.left > 0 && faults.mode === 'open') {
        faults.left--;
        throw new BlobNotFoundError(o.bucket, o.key);
      }
      const opened = await inner.get(o);
      if (faults.left > 0) {
        faults.left--;
        const mode = faults.mode;
        async function* broken() {
          for await (const chunk of opened.content) {
            yield chunk.subarray(0, 1);
            break;
          }
          if (mode === 'error') throw new Error('disk on fire');
          throw new BlobNotFoundError(o.bucket, o.key);
        }
        return { sizeBytes: opened.sizeBytes, content: broken() };
      }
      const size = faults.chunkBytes;
      if (!size) return opened;
      async function* split() {
        for await (const chunk of opened.content) {
          for (let at = 0; at < chunk.length; at += size!) yield chunk.subarray(at, at + size!);
        }
      }
      return { sizeBytes: opened.sizeBytes, content: split() };
    },
  });
}

async function scene(
  settings: Partial<MdStoreSettings> = BLOB,
  wrapRecords: (inner: RecordsRepository) => RecordsRepository = (inner) => inner,
) {
  const inner0 = createMemoryRecords();
  const records = wrapRecords(inner0);
  const inner = createMemoryBlobStore();
  const faults: Faults = { left: 0, mode: 'open', gets: 0 };
  const blobs = faultyBlobs(faults)(inner);
  const clock = manualClock();
  const store = createMdStore({
    records,
    blobs,
    rateLimiter: createMemoryRateLimiter(),
    clock,
    settings,
    cursorKey: KEY,
  });
  const alice = await anAccount(store, 'alice');
  const at = { principal: alice.principal, projectId: alice.defaultProjectId };
  return { store, records: inner0, blobs: inner, faults, clock, alice, at };
}

/** A file `a.md` written once per text (upload, then content updates) in a project keeping two revisions. */
async function fileKeepingTwo(
  store: Awaited<ReturnType<typeof scene>>['store'],
  principal: Awaited<ReturnType<typeof scene>>['at']['principal'],
  texts: readonly string[],
) {
  const project = await store.projects.create({
    principal,
    body: { name: 'short', settings: { keep_revisions: 2 } },
  });
  const file = { principal, projectId: project.id, filename: 'a.md' };
  const [first, ...rest] = texts;
  await store.files.upload({ ...file, content: textStream(first ?? '') });
  for (const text of rest) await store.files.updateContent({ ...file, content: textStream(text) });
  return file;
}

/** The error an operation fails with (an MdStoreError), with its issues when it has some. */
async function failure(run: () => Promise<unknown>) {
  try {
    await run();
  } catch (error) {
    if (!isMdStoreError(error)) throw error;
    const issues = (error as { issues?: readonly ValidationIssue[] }).issues;
    return { code: error.code, message: error.message, issues };
  }
  throw new Error('expected a failure');
}

/** Records that count calls, and can hide a name in use from the core's own checks (as a race would). */
interface RecordsSpy {
  hidePreCheck: boolean;
  hideInTx: boolean;
  calls: { transactions: number; insertProject: number; updateProject: number };
}

function spyRecords(spy: RecordsSpy) {
  const counted = new Set(['insertProject', 'updateProject']);
  const wrapTx = (tx: RecordsTransaction): RecordsTransaction =>
    new Proxy(tx, {
      get(target, property) {
        if (property === 'findActiveProjectByName') {
          return async (q: Parameters<RecordsTransaction['findActiveProjectByName']>[0]) =>
            spy.hideInTx ? null : target.findActiveProjectByName(q);
        }
        const value = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (typeof property === 'string' && counted.has(property))
            spy.calls[property as 'insertProject' | 'updateProject']++;
          return value.apply(target, args);
        };
      },
    });
  return (inner: RecordsRepository): RecordsRepository =>
    new Proxy(inner, {
      get(target, property) {
        if (property === 'findActiveProjectByName') {
          return async (q: Parameters<RecordsRepository['findActiveProjectByName']>[0]) =>
            spy.hidePreCheck ? null : target.findActiveProjectByName(q);
        }
        if (property === 'withTransaction') {
          return <T>(work: (tx: RecordsTransaction) => Promise<T>) => {
            spy.calls.transactions++;
            return target.withTransaction((tx) => work(wrapTx(tx)));
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
}

const UNKNOWN_PROJECT = '00000000-0000-4000-8000-000000000000';

describe('listing revisions', () => {
  it('lists every kept revision newest first with the tag, size, digest, metadata, change and date of then', async () => {
    const { store, at, clock } = await scene();
    const t0 = clock.now();
    const v1 = await store.files.upload({ ...at, filename: 'a.md', content: textStream('# one\n') });
    clock.advance(1000);
    const v2 = await store.files.updateMetadata({ ...at, filename: 'a.md', body: { metadata: { k: 1 } } });
    clock.advance(1000);
    const v3 = await store.files.updateContent({
      ...at,
      filename: 'a.md',
      content: textStream('# two two\n'),
    });
    clock.advance(1000);
    const v4 = await store.files.move({ ...at, filename: 'a.md', body: { to: 'b.md' } });
    const list = await store.files.listRevisions({ ...at, filename: 'b.md' });
    expect(list).toEqual({
      revisions: [
        {
          revision: 4,
          etag: v4.etag,
          sizeBytes: 10,
          sha256: v3.sha256,
          metadata: { k: 1 },
          change: 'move',
          createdAt: t0 + 3000,
        },
        {
          revision: 3,
          etag: v3.etag,
          sizeBytes: 10,
          sha256: v3.sha256,
          metadata: { k: 1 },
          change: 'content',
          createdAt: t0 + 2000,
        },
        {
          revision: 2,
          etag: v2.etag,
          sizeBytes: 6,
          sha256: v1.sha256,
          metadata: { k: 1 },
          change: 'metadata',
          createdAt: t0 + 1000,
        },
        {
          revision: 1,
          etag: v1.etag,
          sizeBytes: 6,
          sha256: v1.sha256,
          metadata: null,
          change: 'created',
          createdAt: t0,
        },
      ],
      nextCursor: null,
    });
    expect(new Set([v1.etag, v2.etag, v3.etag, v4.etag]).size).toBe(4);
    expect(await codeOf(() => store.files.listRevisions({ ...at, filename: 'a.md' }))).toBe('FILE_NOT_FOUND');
  });

  it('pages with limit and cursor, the last page without a cursor', async () => {
    const { store, at } = await scene();
    await store.files.upload({ ...at, filename: 'a.md', content: textStream('# a\n') });
    for (let i = 2; i <= 5; i++)
      await store.files.updateMetadata({ ...at, filename: 'a.md', body: { metadata: { i } } });
    const file = { ...at, filename: 'a.md' };
    const numbers = (list: { revisions: { revision: number }[] }) => list.revisions.map((r) => r.revision);

    const first = await store.files.listRevisions({ ...file, limit: '2' });
    expect(numbers(first)).toEqual([5, 4]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await store.files.listRevisions({ ...file, limit: '2', cursor: first.nextCursor! });
    expect(numbers(second)).toEqual([3, 2]);
    expect(second.nextCursor).toEqual(expect.any(String));
    const third = await store.files.listRevisions({ ...file, limit: '2', cursor: second.nextCursor! });
    expect(numbers(third)).toEqual([1]);
    expect(third.nextCursor).toBeNull();

    // A limit equal to what is left ends the list; one less leaves exactly one for the next page.
    const all = await store.files.listRevisions({ ...file, limit: '5' });
    expect(numbers(all)).toEqual([5, 4, 3, 2, 1]);
    expect(all.nextCursor).toBeNull();
    const four = await store.files.listRevisions({ ...file, limit: '4' });
    expect(numbers(four)).toEqual([5, 4, 3, 2]);
    const rest = await store.files.listRevisions({ ...file, cursor: four.nextCursor! });
    expect(numbers(rest)).toEqual([1]);
    expect(rest.nextCursor).toBeNull();
    const one = await store.files.listRevisions({ ...file, limit: '1' });
    expect(numbers(one)).toEqual([5]);
    const fromTwo = await store.files.listRevisions({ ...file, limit: '3', cursor: second.nextCursor! });
    expect(numbers(fromTwo)).toEqual([1]);
    expect(fromTwo.nextCursor).toBeNull();
  });

  it('sends 100 revisions a page by default and up to 1000 when asked', async () => {
    const { store, at } = await scene(INLINE);
    const project = await store.projects.create({
      principal: at.principal,
      body: { name: 'long', settings: { keep_revisions: 200 } },
    });
    const file = { principal: at.principal, projectId: project.id, filename: 'a.md' };
    await store.files.upload({ ...file, content: textStream('# a\n') });
    for (let i = 2; i <= 101; i++) await store.files.updateMetadata({ ...file, body: { metadata: { i } } });

    const page = await store.files.listRevisions(file);
    expect(page.revisions).toHaveLength(100);
    expect(page.revisions[0]!.revision).toBe(101);
    expect(page.revisions[99]!.revision).toBe(2);
    const next = await store.files.listRevisions({ ...file, cursor: page.nextCursor! });
    expect(next.revisions.map((r) => r.revision)).toEqual([1]);
    expect(next.nextCursor).toBeNull();

    const big = await store.files.listRevisions({ ...file, limit: '1000' });
    expect(big.revisions).toHaveLength(101);
    expect(big.nextCursor).toBeNull();
    const hundredOne = await store.files.listRevisions({ ...file, limit: '101' });
    expect(hundredOne.revisions).toHaveLength(101);
    expect(hundredOne.nextCursor).toBeNull();

    for (const limit of ['0', '1001', 'x', '-1']) {
      const refused = await failure(() => store.files.listRevisions({ ...file, limit }));
      expect(refused.code).toBe('INVALID_INPUT');
      expect(refused.issues!.map((i) => i.loc)).toEqual([['query', 'limit']]);
    }
  });

  it('checks the project, then the limit, then the file', async () => {
    const { store, at } = await scene();
    expect(
      await codeOf(() =>
        store.files.listRevisions({ ...at, projectId: UNKNOWN_PROJECT, filename: 'a.md', limit: 'x' }),
      ),
    ).toBe('PROJECT_NOT_FOUND');
    expect(await codeOf(() => store.files.listRevisions({ ...at, filename: 'nope.md', limit: 'x' }))).toBe(
      'INVALID_INPUT',
    );
    expect(await codeOf(() => store.files.listRevisions({ ...at, filename: 'nope.md' }))).toBe(
      'FILE_NOT_FOUND',
    );
    const bob = await anAccount(store, 'bob');
    expect(
      await codeOf(() => store.files.listRevisions({ ...at, principal: bob.principal, filename: 'a.md' })),
    ).toBe('FORBIDDEN');
  });

  it('takes only cursors it made for this file: the position is a revision number of 1 or more', async () => {
    const { store, at, records, alice } = await scene();
    await store.files.upload({ ...at, filename: 'a.md', content: textStream('# a\n') });
    await store.files.upload({ ...at, filename: 'b.md', content: textStream('# b\n') });
    for (let i = 2; i <= 4; i++)
      await store.files.updateMetadata({ ...at, filename: 'a.md', body: { metadata: { i } } });
    const fileId = (await records.findFile({ projectId: at.projectId, filename: 'a.md' }))!.id;
    const binding = { list: 'revisions', account: alice.accountId, project: at.projectId, file: fileId };
    const forged = (payload: unknown) => encodeCursor(payload, binding, KEY);
    const list = async (cursor: string) =>
      (await store.files.listRevisions({ ...at, filename: 'a.md', cursor })).revisions.map((r) => r.revision);

    expect(await list(await forged({ r: 3 }))).toEqual([2, 1]);
    expect(await list(await forged({ r: 2 }))).toEqual([1]);
    expect(await list(await forged({ r: 1 }))).toEqual([]);
    expect(await list(await forged({ r: 99 }))).toEqual([4, 3, 2, 1]);
    for (const payload of [{ r: 0 }, { r: -1 }, { r: 1.5 }, { r: '3' }, {}, null, { r: 2 ** 53 }]) {
      const refused = await failure(async () => list(await forged(payload)));
      expect(refused.code).toBe('INVALID_INPUT');
      expect(refused.issues!.map((i) => i.loc)).toEqual([['query', 'cursor']]);
    }

    // A cursor of another file, of another project, or edited, is refused at the cursor.
    const ofA = (await store.files.listRevisions({ ...at, filename: 'a.md', limit: '1' })).nextCursor!;
    const other = await store.projects.create({ principal: at.principal, body: { name: 'other' } });
    await store.files.upload({ ...at, projectId: other.id, filename: 'a.md', content: textStream('# a\n') });
    for (const run of [
      () => store.files.listRevisions({ ...at, filename: 'b.md', cursor: ofA }),
      () => store.files.listRevisions({ ...at, projectId: other.id, filename: 'a.md', cursor: ofA }),
      () => store.files.listRevisions({ ...at, filename: 'a.md', cursor: `${ofA.slice(0, -2)}AA` }),
    ]) {
      const refused = await failure(run);
      expect(refused.code).toBe('INVALID_INPUT');
      expect(refused.issues!.map((i) => i.loc)).toEqual([['query', 'cursor']]);
    }
    expect(await list(ofA)).toEqual([3, 2, 1]);
  });

  it('shows only the revisions kept_revisions keeps', async () => {
    const { store, at } = await scene();
    const file = await fileKeepingTwo(store, at.principal, ['v1\n', 'v2\n', 'v3\n', 'v4\n']);
    const list = await store.files.listRevisions(file);
    expect(list.revisions.map((r) => [r.revision, r.change])).toEqual([
      [4, 'content'],
      [3, 'content'],
    ]);
    expect(list.nextCursor).toBeNull();
  });
});

describe('reading a revision', () => {
  for (const [form, settings] of [
    ['blob', BLOB],
    ['inline', INLINE],
  ] as const) {
    it(`sends the content and the file as they were at that revision (${form})`, async () => {
      const { store, at, clock } = await scene(settings);
      const v1 = await store.files.upload({
        ...at,
        filename: 'a.md',
        content: textStream('# first version\n'),
        metadata: JSON.stringify({ tag: 'one' }),
      });
      clock.advance(5000);
      await store.files.updateMetadata({ ...at, filename: 'a.md', body: { metadata: { tag: 'two' } } });
      clock.advance(5000);
      const v3 = await store.files.updateContent({
        ...at,
        filename: 'a.md',
        content: textStream('# third\n'),
      });

      const read = await store.files.readRevision({ ...at, filename: 'a.md', revision: '1' });
      expect(read.kind).toBe('content');
      if (read.kind !== 'content') return;
      expect(read.file).toEqual(v1);
      expect(read.range).toBeNull();
      expect(await readText(read.content!)).toBe('# first version\n');

      const second = await store.files.readRevision({ ...at, filename: 'a.md', revision: '2' });
      expect(second.file).toMatchObject({
        revision: 2,
        metadata: { tag: 'two' },
        sha256: v1.sha256,
        sizeBytes: 16,
        createdAt: v1.createdAt,
        updatedAt: v1.createdAt + 5000,
      });

      // The current revision is a revision too.
      const current = await store.files.readRevision({ ...at, filename: 'a.md', revision: '3' });
      expect(current.file).toEqual(v3);
      if (current.kind === 'content') expect(await readText(current.content!)).toBe('# third\n');
      expect(await codeOf(() => store.files.readRevision({ ...at, filename: 'a.md', revision: '4' }))).toBe(
        'REVISION_NOT_FOUND',
      );
    });
  }

  it('evaluates preconditions and ranges against the revision, and opens nothing for HEAD', async () => {
    const { store, at, faults } = await scene();
    const v1 = await store.files.upload({ ...at, filename: 'a.md', content: textStream('0123456789\n') });
    const v2 = await store.files.updateContent({ ...at, filename: 'a.md', content: textStream('abc\n') });
    const rev1 = { ...at, filename: 'a.md', revision: '1' };

    expect(await store.files.readRevision({ ...rev1, conditions: { ifNoneMatch: v1.etag } })).toEqual({
      kind: 'not-modified',
      file: v1,
    });
    const changed = await store.files.readRevision({ ...rev1, conditions: { ifNoneMatch: v2.etag } });
    expect(changed.kind).toBe('content');
    expect(await codeOf(() => store.files.readRevision({ ...rev1, conditions: { ifMatch: v2.etag } }))).toBe(
      'PRECONDITION_FAILED',
    );
    const matching = await store.files.readRevision({ ...rev1, conditions: { ifMatch: v1.etag } });
    expect(matching.kind).toBe('content');

    const part = await store.files.readRevision({ ...rev1, range: 'bytes=2-4' });
    if (part.kind !== 'content') throw new Error('expected content');
    expect(part.range).toEqual({ start: 2, end: 4 });
    expect(await readText(part.content!)).toBe('234');
    expect(await codeOf(() => store.files.readRevision({ ...rev1, range: 'bytes=20-30' }))).toBe(
      'RANGE_NOT_SATISFIABLE',
    );

    const gets = faults.gets;
    const head = await store.files.readRevision({ ...rev1, open: false, range: 'bytes=0-0' });
    expect(head).toEqual({ kind: 'content', file: v1, range: { start: 0, end: 0 }, content: null });
    expect(faults.gets).toBe(gets);
  });

  it('refuses malformed revision numbers at the path and unknown or pruned revisions with 404', async () => {
    const { store, at } = await scene();
    const file = await fileKeepingTwo(store, at.principal, ['v1\n', 'v2\n', 'v3\n', 'v4\n']);

    for (const revision of ['0', 'abc', '', '1.0', '-2']) {
      const refused = await failure(() => store.files.readRevision({ ...file, revision }));
      expect(refused.code).toBe('INVALID_INPUT');
      expect(refused.issues!.map((i) => i.loc)).toEqual([['path', 'revision']]);
    }
    const found = await store.files.readRevision({ ...file, revision: '3' });
    if (found.kind === 'content') expect(await readText(found.content!)).toBe('v3\n');
    for (const revision of ['1', '2', '5', '999']) {
      expect(await codeOf(() => store.files.readRevision({ ...file, revision }))).toBe('REVISION_NOT_FOUND');
    }
    expect(await codeOf(() => store.files.readRevision({ ...file, filename: 'b.md', revision: '1' }))).toBe(
      'FILE_NOT_FOUND',
    );
    expect(
      await codeOf(() => store.files.readRevision({ ...file, projectId: UNKNOWN_PROJECT, revision: 'x' })),
    ).toBe('PROJECT_NOT_FOUND');
  });

  it('looks the revision up again when its content vanishes, and gives up after three attempts', async () => {
    const { store, at, faults } = await scene();
    await store.files.upload({ ...at, filename: 'a.md', content: textStream('# kept\n') });
    const rev = { ...at, filename: 'a.md', revision: '1' };
    faults.left = 2;
    faults.gets = 0;
    const read = await store.files.readRevision(rev);
    if (read.kind !== 'content') throw new Error('expected content');
    expect(await readText(read.content!)).toBe('# kept\n');
    expect(faults.gets).toBe(3);

    faults.left = 3;
    faults.gets = 0;
    expect(await codeOf(() => store.files.readRevision(rev))).toBe('REVISION_NOT_FOUND');
    expect(faults.gets).toBe(3);
  });
});

describe('diff between revisions', () => {
  const V1 = '# Guide\n\nalpha\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\n';
  const V2 = '# Guide\n\nalpha\nbeta\ngamma\nDELTA\nepsilon\nzeta\neta\n';
  const V3 = '# Guide\n\nalpha\nbeta\ngamma\nDELTA\nepsilon\nzeta\neta\ntheta\n';

  async function history(settings: Partial<MdStoreSettings> = BLOB) {
    const s = await scene(settings);
    const file = { ...s.at, filename: 'guide.md' };
    await s.store.files.upload({ ...file, content: textStream(V1) });
    await s.store.files.updateContent({ ...file, content: textStream(V2) });
    await s.store.files.updateMetadata({ ...file, body: { metadata: { k: 1 } } });
    await s.store.files.updateContent({ ...file, content: textStream(V3) });
    return { ...s, file };
  }

  it('is a unified diff from `from` to `to`, headed with the filename, to the current revision by default', async () => {
    const { store, file } = await history();
    const oneToTwo = [
      '--- a/guide.md',
      '+++ b/guide.md',
      '@@ -3,7 +3,7 @@',
      ' alpha',
      ' beta',
      ' gamma',
      '-delta',
      '+DELTA',
      ' epsilon',
      ' zeta',
      ' eta',
      '',
    ].join('\n');
    expect(await store.files.diff({ ...file, from: '1', to: '2' })).toBe(oneToTwo);
    const threeToFour = [
      '--- a/guide.md',
      '+++ b/guide.md',
      '@@ -7,3 +7,4 @@',
      ' epsilon',
      ' zeta',
      ' eta',
      '+theta',
      '',
    ].join('\n');
    expect(await store.files.diff({ ...file, from: '3' })).toBe(threeToFour);
    expect(await store.files.diff({ ...file, from: '3', to: '4' })).toBe(threeToFour);
    // Same content (a metadata change): nothing.
    expect(await store.files.diff({ ...file, from: '2', to: '3' })).toBe('');
    expect(await store.files.diff({ ...file, from: '4' })).toBe('');
    // Backwards works too.
    const back = await store.files.diff({ ...file, from: '2', to: '1' });
    expect(back).toContain('-DELTA\n+delta\n');
  });

  it('refuses bad parameters at their query name, and unknown files and revisions', async () => {
    const { store, file } = await history();
    const cases = [
      [{}, ['query', 'from']],
      [{ from: '' }, ['query', 'from']],
      [{ from: '0' }, ['query', 'from']],
      [{ from: '1', to: 'x' }, ['query', 'to']],
      [{ from: '1', to: '0' }, ['query', 'to']],
    ] as const;
    for (const [query, loc] of cases) {
      const refused = await failure(() => store.files.diff({ ...file, ...query }));
      expect(refused.code).toBe('INVALID_INPUT');
      expect(refused.issues!.map((i) => i.loc)).toEqual([loc]);
    }
    expect(await codeOf(() => store.files.diff({ ...file, from: '1', to: '5' }))).toBe('REVISION_NOT_FOUND');
    expect(await codeOf(() => store.files.diff({ ...file, from: '5' }))).toBe('REVISION_NOT_FOUND');
    expect(await codeOf(() => store.files.diff({ ...file, filename: 'x.md', from: '1' }))).toBe(
      'FILE_NOT_FOUND',
    );
    expect(await codeOf(() => store.files.diff({ ...file, filename: 'x.md', from: '1', to: '1' }))).toBe(
      'FILE_NOT_FOUND',
    );
    expect(await codeOf(() => store.files.diff({ ...file, projectId: UNKNOWN_PROJECT, from: 'x' }))).toBe(
      'PROJECT_NOT_FOUND',
    );
  });

  it('refuses pruned revisions', async () => {
    const { store, at } = await scene(INLINE);
    const file = await fileKeepingTwo(store, at.principal, ['one\n', 'two\n', 'three\n']);
    expect(await codeOf(() => store.files.diff({ ...file, from: '1' }))).toBe('REVISION_NOT_FOUND');
    expect(await store.files.diff({ ...file, from: '2' })).toBe(
      '--- a/a.md\n+++ b/a.md\n@@ -1,1 +1,1 @@\n-two\n+three\n',
    );
  });

  it('answers DIFF_TOO_LARGE beyond 10^7 line comparisons', async () => {
    const { store, at } = await scene(INLINE);
    const file = { ...at, filename: 'big.md' };
    const lines = (p: string) => Array.from({ length: 1600 }, (_, i) => `${p}${i}\n`).join('');
    await store.files.upload({ ...file, content: textStream(lines('a')) });
    await store.files.updateContent({ ...file, content: textStream(lines('b')) });
    expect(await codeOf(() => store.files.diff({ ...file, from: '1' }))).toBe('DIFF_TOO_LARGE');
  });

  it('reads a revision again when its content vanishes mid-read, three attempts at most', async () => {
    for (const mode of ['open', 'stream'] as const) {
      const { store, file, faults } = await history();
      faults.mode = mode;
      faults.left = 2;
      faults.gets = 0;
      expect(await store.files.diff({ ...file, from: '3' })).toContain('+theta\n');
      expect(faults.gets).toBe(4);
      faults.left = 3;
      faults.gets = 0;
      expect(await codeOf(() => store.files.diff({ ...file, from: '3' }))).toBe('REVISION_NOT_FOUND');
      expect(faults.gets).toBe(3);
    }
  });
});

describe('parts of a file', () => {
  const GUIDE = [
    '# Guide', // 1
    '',
    'Intro [home](https://x.io) text.',
    '',
    '## Setup', // 5
    '',
    'step one',
    '',
    '### Linux', // 9
    '',
    'apt',
    '',
    '## Usage', // 13
    '',
    'run [docs](./docs.md)', // 15
    '',
  ].join('\n');

  async function guide(settings: Partial<MdStoreSettings> = BLOB) {
    const s = await scene(settings);
    const file = { ...s.at, filename: 'guide.md' };
    const view = await s.store.files.upload({ ...file, content: textStream(GUIDE) });
    return { ...s, file, view };
  }

  it('sends lines a-b exactly as stored, the last one clipped to the file', async () => {
    const { store, at } = await scene();
    const text = '\uFEFF# T\r\nline2\r\nline3\r\nline4';
    const view = await store.files.upload({ ...at, filename: 'crlf.md', content: textStream(text) });
    const file = { ...at, filename: 'crlf.md' };
    expect(await store.files.readPart({ ...file, lines: '2-3' })).toEqual({
      kind: 'part',
      file: view,
      text: 'line2\r\nline3\r\n',
      lines: { first: 2, last: 3, total: 4 },
      heading: null,
    });
    expect(await store.files.readPart({ ...file, lines: '3-99' })).toMatchObject({
      text: 'line3\r\nline4',
      lines: { first: 3, last: 4, total: 4 },
    });
    expect(await store.files.readPart({ ...file, lines: '1-1' })).toMatchObject({
      text: '\uFEFF# T\r\n',
      lines: { first: 1, last: 1, total: 4 },
    });
    const past = await failure(() => store.files.readPart({ ...file, lines: '5-6' }));
    expect(past.code).toBe('INVALID_INPUT');
    expect(past.issues!.map((i) => i.loc)).toEqual([['query', 'lines']]);
  });

  it('reads the whole content even when it arrives in many small chunks', async () => {
    const { store, at, faults } = await scene();
    const text = '# Titré ü\n\nçà et là — 日本語\n';
    await store.files.upload({ ...at, filename: 'u.md', content: textStream(text) });
    faults.chunkBytes = 1;
    expect(await store.files.readPart({ ...at, filename: 'u.md', lines: '1-3' })).toMatchObject({
      text,
      lines: { first: 1, last: 3, total: 3 },
    });
    expect((await store.files.outline({ ...at, filename: 'u.md' })).headings).toEqual([
      { level: 1, text: 'Titré ü', line: 1, path: ['Titré ü'] },
    ]);
  });

  it('refuses a malformed range, or lines with a section, before looking at the project', async () => {
    const { store, at } = await scene();
    const nowhere = { ...at, projectId: UNKNOWN_PROJECT, filename: 'a.md' };
    expect(await failure(() => store.files.readPart({ ...nowhere, lines: '1-2', section: ['A'] }))).toEqual({
      code: 'INVALID_INPUT',
      message: 'query.lines: Value error, lines and section cannot be used together',
      issues: [
        {
          loc: ['query', 'lines'],
          msg: 'Value error, lines and section cannot be used together',
          type: 'value_error',
        },
      ],
    });
    for (const lines of ['1', 'a-b', '1-2-3', '']) {
      const refused = await failure(() => store.files.readPart({ ...nowhere, lines }));
      expect(refused.code).toBe('INVALID_INPUT');
      expect(refused.issues!.map((i) => i.loc)).toEqual([['query', 'lines']]);
    }
    expect(await codeOf(() => store.files.readPart({ ...nowhere, lines: '1-2' }))).toBe('PROJECT_NOT_FOUND');
    expect(await codeOf(() => store.files.readPart({ ...at, filename: 'a.md', lines: '1-2' }))).toBe(
      'FILE_NOT_FOUND',
    );
  });

  it('sends a section from its heading to the next heading of the same or a higher level', async () => {
    const { store, file, view } = await guide();
    expect(await store.files.readPart({ ...file, section: ['Setup'] })).toEqual({
      kind: 'part',
      file: view,
      text: '## Setup\n\nstep one\n\n### Linux\n\napt\n\n',
      lines: { first: 5, last: 12, total: 16 - 1 },
      heading: { level: 2, text: 'Setup', line: 5, path: ['Guide', 'Setup'] },
    });
    expect(await store.files.readPart({ ...file, section: ['Setup', 'Linux'] })).toMatchObject({
      text: '### Linux\n\napt\n\n',
      lines: { first: 9, last: 12, total: 15 },
      heading: { level: 3, text: 'Linux', line: 9, path: ['Guide', 'Setup', 'Linux'] },
    });
    // The last section runs to the end of the file; a string names a heading unique in the file.
    expect(await store.files.readPart({ ...file, section: 'Usage' })).toMatchObject({
      text: '## Usage\n\nrun [docs](./docs.md)\n',
      lines: { first: 13, last: 15, total: 15 },
    });
    expect(await store.files.readPart({ ...file, section: ['Guide'] })).toMatchObject({
      text: GUIDE,
      lines: { first: 1, last: 15, total: 15 },
      heading: { level: 1, text: 'Guide', line: 1, path: ['Guide'] },
    });
  });

  it('answers EDIT_CONFLICT at the section for a section that matches no heading, or none given', async () => {
    const { store, file } = await guide();
    const missing = await failure(() => store.files.readPart({ ...file, section: ['Windows'] }));
    expect(missing.code).toBe('EDIT_CONFLICT');
    expect(missing.issues).toHaveLength(1);
    expect(missing.issues![0]).toMatchObject({ loc: ['query', 'section'], type: 'section_not_found' });
    expect(missing.issues![0]!.msg).toContain('No heading matches section ["Windows"]');

    const none = await failure(() => store.files.readPart(file));
    expect(none.code).toBe('EDIT_CONFLICT');
    expect(none.issues![0]).toMatchObject({ loc: ['query', 'section'], type: 'section_not_found' });
    expect(none.issues![0]!.msg).toContain('No heading matches section []');
  });

  it('parses .mdx files (any case) as MDX and the others as CommonMark', async () => {
    const { store, at } = await scene();
    const text = '# Title\n\n{/*\n# Hidden\n*/}\n\nSee [x](y.md)\n';
    for (const filename of ['a.md', 'b.mdx', 'C.MDX', 'd.mdx.md'])
      await store.files.upload({ ...at, filename, content: textStream(text) });
    const hidden = (filename: string) => store.files.readPart({ ...at, filename, section: ['Hidden'] });
    expect(await hidden('a.md')).toMatchObject({
      text: '# Hidden\n*/}\n\nSee [x](y.md)\n',
      lines: { first: 4, last: 7, total: 7 },
    });
    expect(await codeOf(() => hidden('b.mdx'))).toBe('EDIT_CONFLICT');
    expect(await codeOf(() => hidden('C.MDX'))).toBe('EDIT_CONFLICT');
    expect((await hidden('d.mdx.md')).kind).toBe('part');
    const headings = async (filename: string) =>
      (await store.files.outline({ ...at, filename })).headings.map((h) => h.text);
    expect(await headings('a.md')).toEqual(['Title', 'Hidden']);
    expect(await headings('b.mdx')).toEqual(['Title']);
    expect(await headings('C.MDX')).toEqual(['Title']);
    expect(await headings('d.mdx.md')).toEqual(['Title', 'Hidden']);
  });

  it('answers not-modified without reading the content, and 412 for a failed If-Match', async () => {
    const { store, file, view, faults } = await guide();
    faults.gets = 0;
    expect(
      await store.files.readPart({ ...file, section: ['Usage'], conditions: { ifNoneMatch: view.etag } }),
    ).toEqual({ kind: 'not-modified', file: view });
    expect(faults.gets).toBe(0);
    expect(
      await codeOf(() => store.files.readPart({ ...file, lines: '1-2', conditions: { ifMatch: '"other"' } })),
    ).toBe('PRECONDITION_FAILED');
    expect(faults.gets).toBe(0);
    expect(
      await store.files.readPart({
        ...file,
        lines: '1-1',
        conditions: { ifMatch: view.etag, ifNoneMatch: '"x"' },
      }),
    ).toMatchObject({ kind: 'part', text: '# Guide\n' });
    expect(faults.gets).toBe(1);
  });

  it('reads the file again when its content vanishes, and gives up after three attempts', async () => {
    for (const mode of ['open', 'stream'] as const) {
      const { store, file, faults } = await guide();
      faults.mode = mode;
      faults.left = 2;
      faults.gets = 0;
      expect(await store.files.readPart({ ...file, lines: '1-1' })).toMatchObject({ text: '# Guide\n' });
      expect(faults.gets).toBe(3);
      faults.left = 2;
      expect((await store.files.outline(file)).headings).toHaveLength(4);
      faults.left = 3;
      faults.gets = 0;
      expect(await codeOf(() => store.files.readPart({ ...file, lines: '1-1' }))).toBe('FILE_NOT_FOUND');
      expect(faults.gets).toBe(3);
      faults.left = 3;
      expect(await codeOf(() => store.files.outline(file))).toBe('FILE_NOT_FOUND');
    }
  });

  it('passes on any other failure while reading', async () => {
    const { store, file, faults } = await guide();
    faults.mode = 'error';
    faults.left = 1;
    faults.gets = 0;
    await expect(store.files.readPart({ ...file, lines: '1-1' })).rejects.toThrow('disk on fire');
    expect(faults.gets).toBe(1);
  });

  it("passes the caller's signal to every read of content", async () => {
    const { store, file } = await guide();
    await store.files.updateContent({ ...file, content: textStream('# Guide\n\nnew\n') });
    const signal = AbortSignal.abort();
    const reads = [
      () => store.files.readPart({ ...file, lines: '1-1', signal }),
      () => store.files.outline({ ...file, signal }),
      () => store.files.readRevision({ ...file, revision: '1', signal }),
      () => store.files.diff({ ...file, from: '1', signal }),
    ];
    for (const read of reads) await expect(read()).rejects.toMatchObject({ name: 'AbortError' });
    expect(await store.files.diff({ ...file, from: '1', signal: new AbortController().signal })).toContain(
      '+new\n',
    );
  });

  it('outlines headings with their paths and links with their lines', async () => {
    const { store, file, view } = await guide(INLINE);
    expect(await store.files.outline(file)).toEqual({
      headings: [
        { level: 1, text: 'Guide', line: 1, path: ['Guide'] },
        { level: 2, text: 'Setup', line: 5, path: ['Guide', 'Setup'] },
        { level: 3, text: 'Linux', line: 9, path: ['Guide', 'Setup', 'Linux'] },
        { level: 2, text: 'Usage', line: 13, path: ['Guide', 'Usage'] },
      ],
      links: [
        { target: 'https://x.io', text: 'home', line: 3 },
        { target: './docs.md', text: 'docs', line: 15 },
      ],
      file: view,
    });
    expect(await codeOf(() => store.files.outline({ ...file, filename: 'x.md' }))).toBe('FILE_NOT_FOUND');
    expect(await codeOf(() => store.files.outline({ ...file, projectId: UNKNOWN_PROJECT }))).toBe(
      'PROJECT_NOT_FOUND',
    );
  });

  it('outlines files up to 3 MiB of text and refuses longer ones with OUTLINE_TOO_LARGE', async () => {
    const { store, at } = await scene();
    const limit = 3 * 1024 * 1024;
    await store.files.upload({
      ...at,
      filename: 'max.md',
      content: textStream(`# Big\n${'a'.repeat(limit - 6)}`),
    });
    await store.files.upload({
      ...at,
      filename: 'over.md',
      content: textStream(`# Big\n${'a'.repeat(limit - 5)}`),
    });
    expect((await store.files.outline({ ...at, filename: 'max.md' })).headings).toEqual([
      { level: 1, text: 'Big', line: 1, path: ['Big'] },
    ]);
    const refused = await failure(() => store.files.outline({ ...at, filename: 'over.md' }));
    expect(refused.code).toBe('OUTLINE_TOO_LARGE');
  });
});

describe('projects', () => {
  it('creates a project with its settings, and defaults for the ones not given', async () => {
    const { store, at, clock } = await scene();
    clock.advance(10);
    const now = clock.now();
    const notes = await store.projects.create({
      principal: at.principal,
      body: {
        name: 'Notes',
        description: 'mine',
        settings: { keep_revisions: 5, require_if_match: true, trash_retention_days: 7 },
      },
    });
    expect(notes).toMatchObject({
      name: 'Notes',
      description: 'mine',
      bucketName: `mdstore-${notes.id}`,
      isDefault: false,
      isActive: true,
      fileCount: 0,
      totalSizeBytes: 0,
      historySizeBytes: 0,
      trashSizeBytes: 0,
      settings: { requireIfMatch: true, keepRevisions: 5, trashRetentionDays: 7 },
      createdAt: now,
      updatedAt: now,
    });
    expect(await store.projects.get({ ...at, projectId: notes.id })).toEqual(notes);
    const plain = await store.projects.create({ principal: at.principal, body: { name: 'Plain' } });
    expect(plain).toMatchObject({
      description: null,
      settings: { requireIfMatch: false, keepRevisions: 20, trashRetentionDays: 0 },
    });
    expect(plain.id).not.toBe(notes.id);
  });

  it('refuses a name in use among the active projects of the account, and only those', async () => {
    const { store, at } = await scene();
    await store.projects.create({ principal: at.principal, body: { name: 'Notes' } });
    expect(
      await failure(() => store.projects.create({ principal: at.principal, body: { name: 'Notes' } })),
    ).toEqual({
      code: 'PROJECT_NAME_TAKEN',
      message: "Project with name 'Notes' already exists",
      issues: undefined,
    });
    expect(
      await codeOf(() => store.projects.create({ principal: at.principal, body: { name: 'Default' } })),
    ).toBe('PROJECT_NAME_TAKEN');
    const bob = await anAccount(store, 'bob');
    expect((await store.projects.create({ principal: bob.principal, body: { name: 'Notes' } })).name).toBe(
      'Notes',
    );
  });

  it('lists every project of the account oldest first, deleted ones included', async () => {
    const { store, at, clock } = await scene();
    const created = [];
    for (const name of ['p1', 'p2', 'p3']) {
      clock.advance(1000);
      created.push(await store.projects.create({ principal: at.principal, body: { name } }));
    }
    await store.projects.delete({ ...at, projectId: created[1]!.id });
    const bob = await anAccount(store, 'bob');
    await store.projects.create({ principal: bob.principal, body: { name: 'bobs' } });
    const listed = await store.projects.list({ principal: at.principal });
    expect(listed.map((p) => [p.name, p.isActive])).toEqual([
      ['Default', true],
      ['p1', true],
      ['p2', false],
      ['p3', true],
    ]);
    const page = await store.projects.page({ principal: at.principal });
    expect(page).toEqual({ projects: listed, totalCount: 4 });
    expect('nextCursor' in page).toBe(false);
  });

  it('pages with limit and cursor in list order, the total counting every project', async () => {
    const { store, at, clock } = await scene();
    for (const name of ['p1', 'p2', 'p3', 'p4']) {
      clock.advance(1000);
      await store.projects.create({ principal: at.principal, body: { name } });
    }
    const names = (page: { projects: { name: string }[] }) => page.projects.map((p) => p.name);
    const principal = at.principal;

    const first = await store.projects.page({ principal, params: { limit: '2' } });
    expect(names(first)).toEqual(['Default', 'p1']);
    expect(first.totalCount).toBe(5);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await store.projects.page({ principal, params: { limit: 2, cursor: first.nextCursor! } });
    expect(names(second)).toEqual(['p2', 'p3']);
    const third = await store.projects.page({
      principal,
      params: { limit: '2', cursor: second.nextCursor! },
    });
    expect(third).toMatchObject({ totalCount: 5, nextCursor: null });
    expect(names(third)).toEqual(['p4']);

    const all = await store.projects.page({ principal, params: { limit: '5' } });
    expect(names(all)).toEqual(['Default', 'p1', 'p2', 'p3', 'p4']);
    expect(all.nextCursor).toBeNull();
    const four = await store.projects.page({ principal, params: { limit: '4' } });
    expect(four.nextCursor).toEqual(expect.any(String));
    const rest = await store.projects.page({ principal, params: { cursor: four.nextCursor! } });
    expect(names(rest)).toEqual(['p4']);
    expect(rest.nextCursor).toBeNull();

    const bob = await anAccount(store, 'bob');
    const foreign = await failure(() =>
      store.projects.page({ principal: bob.principal, params: { cursor: first.nextCursor! } }),
    );
    expect(foreign.code).toBe('INVALID_INPUT');
    expect(foreign.issues!.map((i) => i.loc)).toEqual([['query', 'cursor']]);
    for (const limit of ['0', '1001']) {
      const refused = await failure(() => store.projects.page({ principal, params: { limit } }));
      expect(refused.issues!.map((i) => i.loc)).toEqual([['query', 'limit']]);
    }
    const bobs = await store.projects.page({ principal: bob.principal, params: { limit: '10' } });
    expect(bobs).toMatchObject({ totalCount: 1, nextCursor: null });
    expect(names(bobs)).toEqual(['Default']);
  });

  it('sends 100 projects a page when only a cursor is given', async () => {
    const { store, at, clock } = await scene();
    for (let i = 1; i <= 101; i++) {
      clock.advance(1);
      await store.projects.create({
        principal: at.principal,
        body: { name: `p${String(i).padStart(3, '0')}` },
      });
    }
    const first = await store.projects.page({ principal: at.principal, params: { limit: '1' } });
    expect(first.projects.map((p) => p.name)).toEqual(['Default']);
    const next = await store.projects.page({
      principal: at.principal,
      params: { cursor: first.nextCursor! },
    });
    expect(next.projects).toHaveLength(100);
    expect(next.projects[0]!.name).toBe('p001');
    expect(next.projects[99]!.name).toBe('p100');
    expect(next.totalCount).toBe(102);
    const last = await store.projects.page({ principal: at.principal, params: { cursor: next.nextCursor! } });
    expect(last.projects.map((p) => p.name)).toEqual(['p101']);
    expect(last.nextCursor).toBeNull();
  });

  it('checks a name before creating the bucket, again in the transaction, and maps a store conflict', async () => {
    const spy: RecordsSpy = {
      hidePreCheck: false,
      hideInTx: false,
      calls: { transactions: 0, insertProject: 0, updateProject: 0 },
    };
    const { store, at, blobs } = await scene(BLOB, spyRecords(spy));
    const principal = at.principal;
    const notes = await store.projects.create({ principal, body: { name: 'Notes' } });
    const buckets = async () => {
      let count = 0;
      for (const p of await store.projects.list({ principal }))
        if (await blobs.bucketExists({ bucket: p.bucketName })) count++;
      return count;
    };
    const reset = () => {
      spy.calls = { transactions: 0, insertProject: 0, updateProject: 0 };
    };
    const taken = { code: 'PROJECT_NAME_TAKEN', message: "Project with name 'Notes' already exists" };

    // The first check: nothing is staged at all.
    reset();
    expect(await failure(() => store.projects.create({ principal, body: { name: 'Notes' } }))).toMatchObject(
      taken,
    );
    expect(spy.calls.transactions).toBe(0);

    // Free at the first look (a race): the transaction's check refuses before inserting.
    spy.hidePreCheck = true;
    reset();
    expect(await failure(() => store.projects.create({ principal, body: { name: 'Notes' } }))).toMatchObject(
      taken,
    );
    expect(spy.calls.insertProject).toBe(0);
    expect(await buckets()).toBe(2);

    // Free at both looks: the store's own conflict is still a PROJECT_NAME_TAKEN.
    spy.hideInTx = true;
    reset();
    expect(await failure(() => store.projects.create({ principal, body: { name: 'Notes' } }))).toMatchObject(
      taken,
    );
    expect(spy.calls.insertProject).toBe(1);
    expect(await buckets()).toBe(2);

    // Rename: refused in the transaction before writing; or by the store, with the name.
    spy.hidePreCheck = false;
    spy.hideInTx = false;
    reset();
    const rename = () => store.projects.update({ ...at, body: { name: 'Notes' } });
    expect(await failure(rename)).toMatchObject(taken);
    expect(spy.calls.updateProject).toBe(0);
    spy.hideInTx = true;
    reset();
    expect(await failure(rename)).toMatchObject(taken);
    expect(spy.calls.updateProject).toBe(1);
    expect((await store.projects.get(at)).name).toBe('Default');
    expect((await store.projects.get({ principal, projectId: notes.id })).name).toBe('Notes');

    // The default project is refused before any transaction.
    reset();
    expect(await codeOf(() => store.projects.delete(at))).toBe('DEFAULT_PROJECT_PROTECTED');
    expect(spy.calls.transactions).toBe(0);
  });

  it('gets a project with its preconditions; refuses unknown, foreign and malformed ids', async () => {
    const { store, at } = await scene();
    const project = await store.projects.get(at);
    expect(await store.projects.read(at)).toEqual({ kind: 'project', project });
    expect(await store.projects.read({ ...at, conditions: { ifNoneMatch: project.etag } })).toEqual({
      kind: 'not-modified',
      project,
    });
    expect(await store.projects.read({ ...at, conditions: { ifNoneMatch: '"other"' } })).toEqual({
      kind: 'project',
      project,
    });
    expect(await store.projects.read({ ...at, conditions: { ifMatch: project.etag } })).toEqual({
      kind: 'project',
      project,
    });
    expect(
      await failure(() => store.projects.read({ ...at, conditions: { ifMatch: '"other"' } })),
    ).toMatchObject({
      code: 'PRECONDITION_FAILED',
    });
    expect(await codeOf(() => store.projects.get({ ...at, projectId: UNKNOWN_PROJECT }))).toBe(
      'PROJECT_NOT_FOUND',
    );
    const refused = await failure(() => store.projects.get({ ...at, projectId: 'nope' }));
    expect(refused.code).toBe('INVALID_INPUT');
    expect(refused.issues!.map((i) => i.loc)).toEqual([['path', 'project_id']]);
    const bob = await anAccount(store, 'bob');
    expect(await codeOf(() => store.projects.get({ ...at, principal: bob.principal }))).toBe('FORBIDDEN');
  });

  it('updates only the fields given, always moving updated_date (and the ETag) forward', async () => {
    const { store, at, clock } = await scene();
    const principal = at.principal;
    const created = await store.projects.create({ principal, body: { name: 'Notes', description: 'd' } });
    // Same millisecond: updated_date still moves, by one.
    const first = await store.projects.update({
      principal,
      projectId: created.id,
      body: { settings: { require_if_match: true } },
    });
    expect(first).toEqual({
      ...created,
      settings: { ...created.settings, requireIfMatch: true },
      updatedAt: created.updatedAt + 1,
      etag: first.etag,
    });
    expect(first.etag).not.toBe(created.etag);
    const same = await store.projects.update({ principal, projectId: created.id, body: { settings: {} } });
    expect(same.updatedAt).toBe(created.updatedAt + 2);
    expect(same.etag).not.toBe(first.etag);

    clock.advance(60_000);
    const renamed = await store.projects.update({
      principal,
      projectId: created.id,
      body: { name: 'Notes 2', description: null },
    });
    expect(renamed).toMatchObject({
      name: 'Notes 2',
      description: null,
      settings: { requireIfMatch: true, keepRevisions: 20, trashRetentionDays: 0 },
      updatedAt: clock.now(),
      createdAt: created.createdAt,
    });
    expect(await store.projects.get({ principal, projectId: created.id })).toEqual(renamed);
    // Its own name is not taken; another project's is.
    const again = await store.projects.update({
      principal,
      projectId: created.id,
      body: { name: 'Notes 2' },
    });
    expect(again.name).toBe('Notes 2');
    expect(
      await failure(() =>
        store.projects.update({ principal, projectId: created.id, body: { name: 'Default' } }),
      ),
    ).toMatchObject({
      code: 'PROJECT_NAME_TAKEN',
      message: "Project with name 'Default' already exists",
    });
    expect((await store.projects.get({ principal, projectId: created.id })).name).toBe('Notes 2');
  });

  it('checks If-Match on update, and refuses unknown, foreign and malformed ids', async () => {
    const { store, at } = await scene();
    const before = await store.projects.get(at);
    expect(
      await codeOf(() =>
        store.projects.update({ ...at, body: { description: 'x' }, conditions: { ifMatch: '"stale"' } }),
      ),
    ).toBe('PRECONDITION_FAILED');
    expect(await store.projects.get(at)).toEqual(before);
    const updated = await store.projects.update({
      ...at,
      body: { description: 'x' },
      conditions: { ifMatch: before.etag },
    });
    expect(updated.description).toBe('x');
    expect(
      await codeOf(() =>
        store.projects.update({ ...at, body: { description: 'y' }, conditions: { ifMatch: before.etag } }),
      ),
    ).toBe('PRECONDITION_FAILED');
    expect(
      await codeOf(() => store.projects.update({ ...at, projectId: UNKNOWN_PROJECT, body: { name: 'n' } })),
    ).toBe('PROJECT_NOT_FOUND');
    const malformed = await failure(() =>
      store.projects.update({ ...at, projectId: 'nope', body: { name: 'n' } }),
    );
    expect(malformed.issues!.map((i) => i.loc)).toEqual([['path', 'project_id']]);
    const bob = await anAccount(store, 'bob');
    expect(
      await codeOf(() => store.projects.update({ ...at, principal: bob.principal, body: { name: 'n' } })),
    ).toBe('FORBIDDEN');
  });

  it('prunes every file history at once when keep_revisions is lowered, and only then', async () => {
    const { store, at, blobs } = await scene();
    const principal = at.principal;
    const project = await store.projects.create({ principal, body: { name: 'Notes' } });
    const file = (filename: string) => ({ principal, projectId: project.id, filename });
    const sizes: Record<string, number[]> = {};
    for (const name of ['a.md', 'b.md']) {
      sizes[name] = [];
      for (let i = 1; i <= 4; i++) {
        const text = `${name} version ${'x'.repeat(i * (name === 'a.md' ? 1 : 10))}\n`;
        const view =
          i === 1
            ? await store.files.upload({ ...file(name), content: textStream(text) })
            : await store.files.updateContent({ ...file(name), content: textStream(text) });
        sizes[name].push(view.sizeBytes);
      }
    }
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    const before = await store.projects.get({ principal, projectId: project.id });
    expect(before.historySizeBytes).toBe(sum(sizes['a.md']!.slice(0, 3)) + sum(sizes['b.md']!.slice(0, 3)));
    expect(await blobKeys(blobs, project.bucketName)).toHaveLength(8);

    const raised = await store.projects.update({
      principal,
      projectId: project.id,
      body: { settings: { keep_revisions: 30 } },
    });
    expect(raised.historySizeBytes).toBe(before.historySizeBytes);
    expect(await blobKeys(blobs, project.bucketName)).toHaveLength(8);

    const lowered = await store.projects.update({
      principal,
      projectId: project.id,
      body: { settings: { keep_revisions: 2 } },
    });
    expect(lowered.settings.keepRevisions).toBe(2);
    expect(lowered.historySizeBytes).toBe(sizes['a.md']![2]! + sizes['b.md']![2]!);
    expect(lowered.totalSizeBytes).toBe(before.totalSizeBytes);
    expect(await store.projects.get({ principal, projectId: project.id })).toEqual(lowered);
    for (const name of ['a.md', 'b.md']) {
      const list = await store.files.listRevisions(file(name));
      expect(list.revisions.map((r) => r.revision)).toEqual([4, 3]);
    }
    expect(await blobKeys(blobs, project.bucketName)).toHaveLength(4);

    // Down to one: the current revisions only.
    const one = await store.projects.update({
      principal,
      projectId: project.id,
      body: { settings: { keep_revisions: 1 } },
    });
    expect(one.historySizeBytes).toBe(0);
    expect(await blobKeys(blobs, project.bucketName)).toHaveLength(2);
  });

  it('deletes a project with its files and bucket, frees its name, and keeps it listed as inactive', async () => {
    const { store, at, blobs, records } = await scene();
    const principal = at.principal;
    const project = await store.projects.create({ principal, body: { name: 'Notes' } });
    await store.files.upload({
      principal,
      projectId: project.id,
      filename: 'a.md',
      content: textStream('# a\n'),
    });
    expect(await blobs.bucketExists({ bucket: project.bucketName })).toBe(true);

    expect(await codeOf(() => store.projects.delete(at))).toBe('DEFAULT_PROJECT_PROTECTED');
    const bob = await anAccount(store, 'bob');
    expect(
      await codeOf(() => store.projects.delete({ principal: bob.principal, projectId: project.id })),
    ).toBe('FORBIDDEN');
    expect(
      await codeOf(() =>
        store.projects.delete({ principal, projectId: project.id, conditions: { ifMatch: '"stale"' } }),
      ),
    ).toBe('PRECONDITION_FAILED');
    const current = await store.projects.get({ principal, projectId: project.id });
    expect(current.fileCount).toBe(1);

    expect(
      await store.projects.delete({
        principal,
        projectId: project.id,
        conditions: { ifMatch: current.etag },
      }),
    ).toEqual({ projectId: project.id });
    expect(await blobs.bucketExists({ bucket: project.bucketName })).toBe(false);
    expect((await records.findProjectById({ projectId: project.id }))!.status).toBe('deleted');
    expect(await records.listFiles({ projectId: project.id })).toEqual([]);
    expect(await codeOf(() => store.projects.get({ principal, projectId: project.id }))).toBe(
      'PROJECT_NOT_FOUND',
    );
    expect(await codeOf(() => store.projects.delete({ principal, projectId: project.id }))).toBe(
      'PROJECT_NOT_FOUND',
    );
    const listed = (await store.projects.list({ principal })).find((p) => p.id === project.id)!;
    expect(listed).toMatchObject({ isActive: false, fileCount: 0, totalSizeBytes: 0, name: 'Notes' });
    expect(listed.updatedAt).toBeGreaterThanOrEqual(project.updatedAt);
    expect((await store.projects.create({ principal, body: { name: 'Notes' } })).name).toBe('Notes');
    expect(await codeOf(() => store.projects.delete({ principal, projectId: 'nope' }))).toBe('INVALID_INPUT');
    expect(await codeOf(() => store.projects.delete({ principal, projectId: UNKNOWN_PROJECT }))).toBe(
      'PROJECT_NOT_FOUND',
    );
  });

  it('finishes a deletion that stopped half-way when its owner asks again', async () => {
    const records = createMemoryRecords();
    const inner = createMemoryBlobStore();
    let failDeletes = 1;
    const blobs: BlobStore = {
      ...inner,
      deleteBucket: async (o) => {
        if (failDeletes > 0) {
          failDeletes--;
          throw new Error('storage down');
        }
        return inner.deleteBucket(o);
      },
    };
    const store = createMdStore({
      records,
      blobs,
      rateLimiter: createMemoryRateLimiter(),
      clock: manualClock(),
    });
    const alice = await anAccount(store, 'alice');
    const bob = await anAccount(store, 'bob');
    const project = await store.projects.create({ principal: alice.principal, body: { name: 'Notes' } });
    const ids = { projectId: project.id };
    await expect(store.projects.delete({ principal: alice.principal, ...ids })).rejects.toThrow(
      'storage down',
    );
    expect((await records.findProjectById(ids))!.status).toBe('deleting');
    expect(await codeOf(() => store.projects.get({ principal: alice.principal, ...ids }))).toBe(
      'PROJECT_NOT_FOUND',
    );
    expect(await codeOf(() => store.projects.delete({ principal: bob.principal, ...ids }))).toBe(
      'PROJECT_NOT_FOUND',
    );
    expect(await inner.bucketExists({ bucket: project.bucketName })).toBe(true);
    expect((await records.findProjectById(ids))!.status).toBe('deleting');

    expect(await store.projects.delete({ principal: alice.principal, ...ids })).toEqual(ids);
    expect((await records.findProjectById(ids))!.status).toBe('deleted');
    expect(await inner.bucketExists({ bucket: project.bucketName })).toBe(false);
  });
});
