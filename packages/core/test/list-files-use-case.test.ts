import { describe, expect, it } from 'vitest';
import { anAccount, createFixture, textStream } from './support/fixture.js';

/**
 * List Files (extensions §3) through the store's use case on the memory adapters: which answer keeps
 * the interface's shape (every file, no `next_cursor`), sorts without a page, the page size, the
 * cursor's end, and what a folded list (`delimiter`) counts. (The mutation run found these reached
 * only by the HTTP suites; see docs/testing.md.)
 */

async function scene(files: readonly [name: string, text: string][]) {
  const { store, clock } = createFixture();
  const alice = await anAccount(store, 'alice');
  const at = { principal: alice.principal, projectId: alice.defaultProjectId };
  for (const [filename, text] of files) {
    clock.advance(1000);
    await store.files.upload({ ...at, filename, content: textStream(text) });
  }
  const list = (params?: Parameters<typeof store.files.list>[0]['params']) =>
    store.files.list({ ...at, params });
  const names = async (params?: Parameters<typeof list>[0]) =>
    (await list(params)).files.map((f) => f.filename);
  return { store, at, list, names };
}

// Created in this order; sizes 3, 1, 2.
const THREE: [string, string][] = [
  ['b.md', 'bbb'],
  ['c.md', 'c'],
  ['a.md', 'aa'],
];

describe('listing files', () => {
  it('without parameters: every file by filename, the totals, and neither next_cursor nor folders', async () => {
    const { list } = await scene(THREE);
    const answer = await list();
    expect(answer.files.map((f) => f.filename)).toEqual(['a.md', 'b.md', 'c.md']);
    expect(answer.totalCount).toBe(3);
    expect(answer.totalSizeBytes).toBe(6);
    expect(Object.keys(answer).sort()).toEqual(['files', 'totalCount', 'totalSizeBytes']);
  });

  it('sorts and orders without a page', async () => {
    const { names, list } = await scene(THREE);
    expect(await names({ order: 'desc' })).toEqual(['c.md', 'b.md', 'a.md']);
    expect(await names({ sort: 'size_bytes' })).toEqual(['c.md', 'a.md', 'b.md']);
    expect(await names({ sort: 'created_date' })).toEqual(['b.md', 'c.md', 'a.md']);
    expect(await names({ sort: 'created_date', order: 'desc' })).toEqual(['a.md', 'c.md', 'b.md']);
    // Sorted but unpaged: still every file, and no next_cursor.
    expect('nextCursor' in (await list({ sort: 'size_bytes' }))).toBe(false);
  });

  it('pages with a cursor to the end, where next_cursor is null', async () => {
    const { list } = await scene(THREE);
    const first = await list({ limit: 2 });
    expect(first.files.map((f) => f.filename)).toEqual(['a.md', 'b.md']);
    expect(first.totalCount).toBe(3);
    expect(first.nextCursor).toEqual(expect.any(String));
    const last = await list({ limit: 2, cursor: first.nextCursor! });
    expect(last.files.map((f) => f.filename)).toEqual(['c.md']);
    expect(last.nextCursor).toBeNull();
    const exact = await list({ limit: 3 });
    expect(exact.files).toHaveLength(3);
    expect(exact.nextCursor).toBeNull();
  });

  it('sends 100 files a page when only a cursor is given', async () => {
    const many: [string, string][] = Array.from({ length: 203 }, (_, i) => [
      `f${String(i).padStart(3, '0')}.md`,
      'x',
    ]);
    const { list } = await scene(many);
    const first = await list({ limit: 1 });
    const page = await list({ cursor: first.nextCursor! });
    expect(page.files).toHaveLength(100);
    expect(page.files[0]!.filename).toBe('f001.md');
    expect(page.nextCursor).not.toBeNull();
  });

  it('a prefix alone: one unpaged answer of the folder, with next_cursor null and no folders', async () => {
    const { list } = await scene([
      ['guides/a.md', 'a'],
      ['guides/b.md', 'bb'],
      ['top.md', 'ccc'],
    ]);
    const answer = await list({ prefix: 'guides/' });
    expect(answer.files.map((f) => f.filename)).toEqual(['guides/a.md', 'guides/b.md']);
    expect(answer.totalCount).toBe(2);
    expect(answer.totalSizeBytes).toBe(3);
    expect(answer.nextCursor).toBeNull();
    expect('folders' in answer).toBe(false);
  });

  it('with delimiter: the files of the level and its folders, both counted', async () => {
    const { list } = await scene([
      ['guides/a.md', 'a'],
      ['guides/deep/b.md', 'bb'],
      ['notes/c.md', 'ccc'],
      ['top.md', 'dddd'],
    ]);
    const top = await list({ delimiter: '/' });
    expect(top.files.map((f) => f.filename)).toEqual(['top.md']);
    expect(top.folders).toEqual(['guides/', 'notes/']);
    expect(top.totalCount).toBe(3);
    expect(top.nextCursor).toBeNull();
    const guides = await list({ delimiter: '/', prefix: 'guides/' });
    expect(guides.files.map((f) => f.filename)).toEqual(['guides/a.md']);
    expect(guides.folders).toEqual(['guides/deep/']);
    expect(guides.totalCount).toBe(2);
  });
});
