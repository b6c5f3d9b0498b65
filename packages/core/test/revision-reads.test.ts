import { encodeCursor } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { anAccount, codeOf, readText, textStream } from './support/fixture.js';
import { BLOB, failure, fileKeepingTwo, INLINE, KEY, scene, UNKNOWN_PROJECT } from './support/store-scene.js';

/**
 * Listing and reading revisions through the store on the memory adapters: exact pages and cursors, the
 * revision a view describes, the errors and where they point, and the retries when a content version
 * vanishes while being read.
 * (The mutation run found no core test reaching these; see docs/testing.md.)
 */

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
          changesetId: null,
          message: null,
          keyId: at.principal.keyId,
          createdAt: t0 + 3000,
        },
        {
          revision: 3,
          etag: v3.etag,
          sizeBytes: 10,
          sha256: v3.sha256,
          metadata: { k: 1 },
          change: 'content',
          changesetId: null,
          message: null,
          keyId: at.principal.keyId,
          createdAt: t0 + 2000,
        },
        {
          revision: 2,
          etag: v2.etag,
          sizeBytes: 6,
          sha256: v1.sha256,
          metadata: { k: 1 },
          change: 'metadata',
          changesetId: null,
          message: null,
          keyId: at.principal.keyId,
          createdAt: t0 + 1000,
        },
        {
          revision: 1,
          etag: v1.etag,
          sizeBytes: 6,
          sha256: v1.sha256,
          metadata: null,
          change: 'created',
          changesetId: null,
          message: null,
          keyId: at.principal.keyId,
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
