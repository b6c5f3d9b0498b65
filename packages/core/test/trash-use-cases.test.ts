import type { FileView, MdStore, RecordsRepository } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { DAY_MS, TRASH_LIMITS } from '../src/defaults/trash.js';
import { parseTrashRestoreBody } from '../src/validation/trash.js';
import { anAccount, codeOf, createFixture, overriding, textStream } from './support/fixture.js';
import { failure } from './support/store-scene.js';

/**
 * The trash (extensions §5) through the store's use cases on the memory adapters: the restore body, the
 * list's pages and counts, what a restore puts back, and expiry in batches and under a race. (The
 * mutation run found these reached only by the HTTP suites; see docs/testing.md.)
 */

const RETENTION_DAYS = 7;

/** Records that run `before()` as each transaction starts. */
const beforeTransactions =
  (before: () => void) =>
  (inner: RecordsRepository): RecordsRepository =>
    overriding(inner, {
      withTransaction: (work) => {
        before();
        return inner.withTransaction(work);
      },
    });

async function scene(options: { wrapRecords?: (inner: RecordsRepository) => RecordsRepository } = {}) {
  const fixture = createFixture(options);
  const alice = await anAccount(fixture.store, 'alice');
  const project = await fixture.store.projects.create({
    principal: alice.principal,
    body: { name: 'bin', settings: { trash_retention_days: RETENTION_DAYS, keep_revisions: 5 } },
  });
  const at = { principal: alice.principal, projectId: project.id };
  /** Uploads then deletes `filename` (one clock step apart), answering its trash id. */
  const trashed = async (filename: string, text = `# ${filename}\n`) => {
    await fixture.store.files.upload({ ...at, filename, content: textStream(text) });
    fixture.clock.advance(1000);
    await fixture.store.files.delete({ ...at, filename });
    const page = await fixture.store.trash.list(at);
    return page.trash.find((item) => item.filename === filename)!.trashId;
  };
  const projectNow = () => fixture.store.projects.get(at);
  return { ...fixture, alice, at, trashed, projectNow };
}

describe('the restore body', () => {
  it('restores under the original name when absent, null, {} or {"to": null}', () => {
    for (const body of [undefined, null, {}, { to: null }, { to: undefined }])
      expect(parseTrashRestoreBody(body)).toEqual({ to: null });
  });

  it('takes a valid `to`', () => {
    expect(parseTrashRestoreBody({ to: 'guides/b.md' })).toEqual({ to: 'guides/b.md' });
  });

  it('refuses a body that is not an object, at ["body"]', async () => {
    for (const body of [[], 'a.md', 5, true]) {
      const refused = await failure(async () => parseTrashRestoreBody(body));
      expect(refused.code).toBe('INVALID_INPUT');
      expect(refused.issues?.map((issue) => [issue.loc, issue.type])).toEqual([
        [['body'], 'model_attributes_type'],
      ]);
    }
  });

  it('refuses a `to` that is not a string or breaks the filename rules, at ["body", "to"]', async () => {
    const notString = await failure(async () => parseTrashRestoreBody({ to: 5 }));
    expect(notString.issues?.map((issue) => [issue.loc, issue.type])).toEqual([
      [['body', 'to'], 'string_type'],
    ]);
    for (const to of ['', '../x.md']) {
      const bad = await failure(async () => parseTrashRestoreBody({ to }));
      expect(bad.code).toBe('MALFORMED_INPUT');
      expect(bad.issues?.map((issue) => [issue.loc, issue.type])).toEqual([[['body', 'to'], 'value_error']]);
    }
    expect((await failure(async () => parseTrashRestoreBody({ to: 'a.txt' }))).code).toBe(
      'UNSUPPORTED_EXTENSION',
    );
  });
});

describe('the list of the trash', () => {
  it('pages newest deletion first with exact views, a count of the whole trash and a cursor only before the end', async () => {
    const { store, at, clock, trashed } = await scene();
    const deletedAt: number[] = [];
    for (const name of ['a.md', 'b.md', 'c.md']) {
      await trashed(name, `${name} text`);
      deletedAt.push(clock.now());
    }
    const first = await store.trash.list({ ...at, limit: 2 });
    expect(first.totalCount).toBe(3);
    expect(first.trash).toEqual([
      {
        trashId: expect.any(String),
        filename: 'c.md',
        sizeBytes: 'c.md text'.length,
        revision: 1,
        deletedAt: deletedAt[2],
        expiresAt: deletedAt[2]! + RETENTION_DAYS * DAY_MS,
        kind: 'file',
      },
      expect.objectContaining({ filename: 'b.md', deletedAt: deletedAt[1] }),
    ]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await store.trash.list({ ...at, limit: 2, cursor: first.nextCursor! });
    expect(second.trash.map((item) => item.filename)).toEqual(['a.md']);
    expect(second.totalCount).toBe(3);
    expect(second.nextCursor).toBeNull();
    // A page exactly as long as what is left has no next page either.
    const exact = await store.trash.list({ ...at, limit: 3 });
    expect(exact.trash).toHaveLength(3);
    expect(exact.nextCursor).toBeNull();
  });

  it('sends 100 items a page by default', async () => {
    const { store, at } = await scene();
    for (let i = 0; i < 101; i++) {
      await store.files.upload({ ...at, filename: `f${i}.md`, content: textStream('x') });
      await store.files.delete({ ...at, filename: `f${i}.md` });
    }
    const page = await store.trash.list(at);
    expect(page.trash).toHaveLength(100);
    expect(page.totalCount).toBe(101);
    expect(page.nextCursor).not.toBeNull();
  });

  it('leaves out items from their expiry on, in the page and the count, before any purge', async () => {
    const { store, at, clock, trashed } = await scene();
    await trashed('old.md');
    clock.advance(DAY_MS);
    await trashed('new.md');
    const oldExpiry = (await store.trash.list(at)).trash.find(
      (item) => item.filename === 'old.md',
    )!.expiresAt;
    clock.set(oldExpiry - 1);
    expect((await store.trash.list(at)).trash.map((item) => item.filename)).toEqual(['new.md', 'old.md']);
    clock.set(oldExpiry);
    const page = await store.trash.list(at);
    expect(page.trash.map((item) => item.filename)).toEqual(['new.md']);
    expect(page.totalCount).toBe(1);
  });
});

describe('restoring an item', () => {
  it('puts the file back with a new revision, its history and exact counters', async () => {
    const { store, at, clock, projectNow } = await scene();
    await store.files.upload({ ...at, filename: 'a.md', content: textStream('one') });
    clock.advance(10);
    await store.files.updateContent({ ...at, filename: 'a.md', content: textStream('second') });
    clock.advance(10);
    await store.files.delete({ ...at, filename: 'a.md' });
    const deleted = await projectNow();
    expect([
      deleted.fileCount,
      deleted.totalSizeBytes,
      deleted.historySizeBytes,
      deleted.trashSizeBytes,
    ]).toEqual([0, 0, 0, 9]);
    const [item] = (await store.trash.list(at)).trash;
    clock.advance(10);
    const restored = (await store.trash.restore({ ...at, trashId: item!.trashId })) as FileView;
    expect(restored.filename).toBe('a.md');
    expect(restored.revision).toBe(3);
    expect(restored.updatedAt).toBe(clock.now());
    const after = await projectNow();
    expect([after.fileCount, after.totalSizeBytes, after.historySizeBytes, after.trashSizeBytes]).toEqual([
      1, 6, 3, 0,
    ]);
    const revisions = await store.files.listRevisions({ ...at, filename: 'a.md' });
    expect(revisions.revisions.map((r) => [r.revision, r.change])).toEqual([
      [3, 'restore'],
      [2, 'content'],
      [1, 'created'],
    ]);
    // It is searchable again under its name.
    const found = await store.files.search({ ...at, body: { query: 'second' } });
    expect(found.results.map((result) => result.file.filename)).toEqual(['a.md']);
    expect(await codeOf(() => store.trash.restore({ ...at, trashId: item!.trashId }))).toBe(
      'TRASH_ITEM_NOT_FOUND',
    );
  });

  it('restores under `to`, refuses a taken name (nothing changes), and refuses an expired item', async () => {
    const { store, at, clock, trashed, projectNow } = await scene();
    const id = await trashed('a.md');
    await store.files.upload({ ...at, filename: 'a.md', content: textStream('new a') });
    const before = await projectNow();
    expect(await codeOf(() => store.trash.restore({ ...at, trashId: id }))).toBe('FILENAME_TAKEN');
    expect(await projectNow()).toEqual(before);
    expect((await store.trash.list(at)).totalCount).toBe(1);
    const moved = (await store.trash.restore({ ...at, trashId: id, body: { to: 'old/a.md' } })) as FileView;
    expect(moved.filename).toBe('old/a.md');
    const gone = await trashed('b.md');
    const expiry = (await store.trash.list(at)).trash[0]!.expiresAt;
    clock.set(expiry);
    expect(await codeOf(() => store.trash.restore({ ...at, trashId: gone }))).toBe('TRASH_ITEM_NOT_FOUND');
  });

  it('refuses an item that expires between the first look and the transaction', async () => {
    let clockRef: { set(at: number): void } | undefined;
    let expiry = 0;
    let armed = false;
    const { store, at, clock, trashed } = await scene({
      wrapRecords: beforeTransactions(() => {
        if (armed) {
          armed = false;
          clockRef?.set(expiry);
        }
      }),
    });
    clockRef = clock;
    const id = await trashed('a.md');
    expiry = (await store.trash.list(at)).trash[0]!.expiresAt;
    armed = true;
    expect(await codeOf(() => store.trash.restore({ ...at, trashId: id }))).toBe('TRASH_ITEM_NOT_FOUND');
  });
});

describe('expiry', () => {
  async function expiredItems(count: number) {
    const s = await scene();
    for (let i = 0; i < count; i++) await s.trashed(`f${i}.md`, 'x'.repeat(10));
    s.clock.advance(RETENTION_DAYS * DAY_MS + 1);
    return s;
  }

  it('purges every expired item, in batches, with the trash counter back to zero', async () => {
    const count = TRASH_LIMITS.expiryBatch + 3;
    const { store, at, projectNow } = await expiredItems(count);
    expect((await projectNow()).trashSizeBytes).toBe(count * 10);
    expect(await store.maintenance.expireTrash()).toEqual({ purged: count, failures: 0 });
    expect((await projectNow()).trashSizeBytes).toBe(0);
    expect((await store.trash.list(at)).totalCount).toBe(0);
    expect(await store.maintenance.expireTrash()).toEqual({ purged: 0, failures: 0 });
  });

  it('purges nothing before the expiry, and only the expired items after it', async () => {
    const { store, at, clock, trashed, projectNow } = await scene();
    await trashed('old.md', 'old');
    clock.advance(DAY_MS);
    await trashed('new.md', 'newer');
    const oldExpiry = (await store.trash.list(at)).trash.find(
      (item) => item.filename === 'old.md',
    )!.expiresAt;
    clock.set(oldExpiry - 1);
    expect(await store.maintenance.expireTrash()).toEqual({ purged: 0, failures: 0 });
    clock.set(oldExpiry);
    expect(await store.maintenance.expireTrash()).toEqual({ purged: 1, failures: 0 });
    expect((await projectNow()).trashSizeBytes).toBe('newer'.length);
    expect((await store.trash.list(at)).trash.map((item) => item.filename)).toEqual(['new.md']);
  });

  it('counts only what it claimed when another instance purges the same items', async () => {
    const first = await expiredItems(3);
    // A second store on the same adapters: the other instance.
    const other: MdStore = first.restart();
    const [mine, theirs] = await Promise.all([
      first.store.maintenance.expireTrash(),
      other.maintenance.expireTrash(),
    ]);
    expect(mine.purged + theirs.purged).toBe(3);
    expect((await first.projectNow()).trashSizeBytes).toBe(0);
  });

  it('reports a failed transaction and keeps its items for the next run', async () => {
    let fail = false;
    const s = await scene({
      wrapRecords: beforeTransactions(() => {
        if (fail) throw new Error('disk on fire');
      }),
    });
    await s.trashed('a.md', 'abc');
    s.clock.advance(RETENTION_DAYS * DAY_MS + 1);
    fail = true;
    expect(await s.store.maintenance.expireTrash()).toEqual({ purged: 0, failures: 1 });
    fail = false;
    expect((await s.projectNow()).trashSizeBytes).toBe(3);
    expect(await s.store.maintenance.expireTrash()).toEqual({ purged: 1, failures: 0 });
    expect((await s.projectNow()).trashSizeBytes).toBe(0);
  });
});
