import { type BlobStore, createMdStore } from '@mdstore/core';
import { createMemoryBlobStore, createMemoryRateLimiter, createMemoryRecords } from '@mdstore/memory';
import { describe, expect, it } from 'vitest';
import { anAccount, blobKeys, codeOf, manualClock, textStream } from './support/fixture.js';
import { BLOB, failure, type RecordsSpy, scene, spyRecords, UNKNOWN_PROJECT } from './support/store-scene.js';

/**
 * The project use cases through the store on the memory adapters: creation, updates, settings, the
 * layered name checks (before the transaction and inside it) and what each write costs.
 * (The mutation run found no core test reaching these; see docs/testing.md.)
 */

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
