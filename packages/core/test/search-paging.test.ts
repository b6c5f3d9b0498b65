import { encodeCursor, type SearchAnswer } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { anAccount, codeOf } from './support/fixture.js';
import { ACCOUNT, type Body, filenames, issueOf, KEY, scene, walk } from './support/search-scene.js';

/**
 * Search (extensions §3) through the store's use case on the memory adapters: keyset paging with
 * cursors, and the account's search over its projects.
 */

describe('paging', () => {
  async function five() {
    const s = await scene();
    for (const [name, text] of [
      ['a.md', 'word xx'],
      ['b.md', 'word'],
      ['c.md', 'word xx'],
      ['d.md', 'word'],
      ['e.md', 'word xx'],
    ] as const) {
      await s.put(name, text);
    }
    return s;
  }

  it('walks every file once, page by page, with the same total on each page', async () => {
    const { search } = await five();
    expect(await walk(search, { limit: 2 })).toEqual({
      pages: [['a.md', 'b.md'], ['c.md', 'd.md'], ['e.md']],
      totals: [5, 5, 5],
    });
    expect(await walk(search, { limit: 2, order: 'desc' })).toEqual({
      pages: [['e.md', 'd.md'], ['c.md', 'b.md'], ['a.md']],
      totals: [5, 5, 5],
    });
    expect(await walk(search, { limit: 5 })).toEqual({
      pages: [['a.md', 'b.md', 'c.md', 'd.md', 'e.md']],
      totals: [5],
    });
    expect(await walk(search, { limit: 4 })).toEqual({
      pages: [['a.md', 'b.md', 'c.md', 'd.md'], ['e.md']],
      totals: [5, 5],
    });
    expect(await walk(search, { limit: 1, sort: 'size_bytes', order: 'desc' })).toEqual({
      pages: [['e.md'], ['c.md'], ['a.md'], ['d.md'], ['b.md']],
      totals: [5, 5, 5, 5, 5],
    });
  });

  it('walks a relevance ranking with ties in filename order', async () => {
    const { search } = await five();
    const all = await search({ query: 'word' });
    // Shorter documents rank higher; equal documents tie and go by filename.
    expect(filenames(all)).toEqual(['b.md', 'd.md', 'a.md', 'c.md', 'e.md']);
    expect(all.results[0]!.score).toBe(all.results[1]!.score);
    expect(all.results[0]!.score).toBeGreaterThan(all.results[2]!.score!);
    expect((await walk(search, { query: 'word', limit: 2 })).pages).toEqual([
      ['b.md', 'd.md'],
      ['a.md', 'c.md'],
      ['e.md'],
    ]);
    expect((await walk(search, { query: 'word', limit: 1, order: 'desc' })).pages.flat()).toEqual(
      filenames(all),
    );
  });

  it('starts a page after the cursor’s position, whatever was written or deleted since', async () => {
    const { store, at, put, search } = await five();
    const first = await search({ limit: 2 });
    expect(filenames(first)).toEqual(['a.md', 'b.md']);
    await store.files.delete({ ...at, filename: 'b.md' });
    await store.files.delete({ ...at, filename: 'c.md' });
    await put('aa.md', 'word');
    await put('ca.md', 'word');
    const second = await search({ limit: 2, cursor: first.nextCursor });
    expect(filenames(second)).toEqual(['ca.md', 'd.md']);
    expect(second.totalCount).toBe(5);
    const third = await search({ limit: 2, cursor: second.nextCursor });
    expect(filenames(third)).toEqual(['e.md']);
    expect(third.nextCursor).toBeNull();
  });

  it('answers an empty last page when every file after the cursor is gone', async () => {
    const { store, at, search } = await five();
    const first = await search({ limit: 3 });
    expect(filenames(first)).toEqual(['a.md', 'b.md', 'c.md']);
    await store.files.delete({ ...at, filename: 'd.md' });
    await store.files.delete({ ...at, filename: 'e.md' });
    expect(await search({ limit: 3, cursor: first.nextCursor })).toEqual({
      results: [],
      totalCount: 3,
      nextCursor: null,
    });
  });

  it('takes a cursor only with the query, filter, sort, order and projects it was issued for', async () => {
    const { store, search, alice } = await five();
    const filter = { field: 'size_bytes', op: 'gt', value: 1 };
    const body = { query: 'word', filter, sort: 'filename', order: 'asc', limit: 1 };
    const { nextCursor: cursor } = await search(body);
    expect(cursor).toEqual(expect.any(String));
    const invalid = [['body', 'cursor'], 'value_error', 'Value error, invalid cursor'];
    for (const change of [
      { query: 'word xx' },
      { query: null },
      { filter: { field: 'size_bytes', op: 'gt', value: 2 } },
      { filter: null },
      { sort: 'size_bytes' },
      { order: 'desc' },
    ]) {
      expect(await issueOf(() => search({ ...body, ...change, cursor }))).toEqual(invalid);
    }
    // The limit is not bound; the same filter written with its keys in another order is the same filter.
    const reordered = { value: 1, op: 'gt', field: 'size_bytes' };
    expect(filenames(await search({ ...body, filter: reordered, cursor, limit: 3 }))).toEqual([
      'b.md',
      'c.md',
      'd.md',
    ]);
    // Another project, or another account.
    const other = await store.projects.create({ principal: alice.principal, body: { name: 'other' } });
    expect(await issueOf(() => search({ ...body, cursor }, other.id))).toEqual(invalid);
    const bob = await anAccount(store, 'bob');
    expect(await issueOf(() => search({ ...body, cursor }, bob.defaultProjectId, bob))).toEqual(invalid);
    // A changed character is refused.
    const flipped = `${cursor!.slice(0, -2)}${cursor!.at(-2) === 'A' ? 'B' : 'A'}${cursor!.at(-1)}`;
    expect(await issueOf(() => search({ ...body, cursor: flipped }))).toEqual(invalid);
  });

  it('reads the position a cursor names, and refuses a signed payload that is not one', async () => {
    const { search, alice, at } = await five();
    const binding = (over: Body = {}) => ({
      kind: 'search',
      account: alice.accountId,
      projects: [at.projectId],
      query: null,
      filter: 'null',
      sort: 'filename',
      order: 'asc',
      ...over,
    });
    const cursor = (payload: unknown, over?: Body) => encodeCursor(payload, binding(over), KEY);
    const position = { k: 'b.md', f: 'b.md', p: at.projectId };
    expect(await search({ cursor: await cursor(position) })).toMatchObject({ totalCount: 5 });
    expect(await walk(search, { limit: 2, cursor: await cursor(position) })).toEqual({
      pages: [['c.md', 'd.md'], ['e.md']],
      totals: [5, 5],
    });
    // The filename and then the project break a tie of the sort key.
    expect(
      filenames(await search({ cursor: await cursor({ k: 'c.md', f: 'b.md', p: at.projectId }) })),
    ).toEqual(['c.md', 'd.md', 'e.md']);
    expect(filenames(await search({ cursor: await cursor({ k: 'c.md', f: 'c.md', p: '' }) }))).toEqual([
      'c.md',
      'd.md',
      'e.md',
    ]);
    expect(filenames(await search({ cursor: await cursor({ k: 'c.md', f: 'c.md', p: 'z' }) }))).toEqual([
      'd.md',
      'e.md',
    ]);
    // The sort key decides before the filename: strings in code-point order, a number before any of them.
    expect(
      filenames(await search({ cursor: await cursor({ k: 'c.md', f: 'a.md', p: at.projectId }) })),
    ).toEqual(['c.md', 'd.md', 'e.md']);
    expect(filenames(await search({ cursor: await cursor({ k: 3, f: 'c.md', p: at.projectId }) }))).toEqual([
      'a.md',
      'b.md',
      'c.md',
      'd.md',
      'e.md',
    ]);
    // A string key against numbers compares as text: '4' and '7' come before 'x'.
    const textKey = await cursor({ k: 'x', f: 'a.md', p: at.projectId }, { sort: 'size_bytes' });
    expect(filenames(await search({ sort: 'size_bytes', cursor: textKey }))).toEqual([]);
    // Past the last file: an empty page.
    expect(await search({ cursor: await cursor({ k: 'z', f: 'z', p: 'z' }) })).toEqual({
      results: [],
      totalCount: 5,
      nextCursor: null,
    });
    // Sorted by size (a number), descending.
    const bySize = await cursor({ k: 7, f: 'b.md', p: at.projectId }, { sort: 'size_bytes', order: 'desc' });
    expect(filenames(await search({ sort: 'size_bytes', order: 'desc', cursor: bySize }))).toEqual([
      'a.md',
      'd.md',
      'b.md',
    ]);
    // Relevance: after a score, the lower ones.
    const all = await search({ query: 'word' });
    const tie = all.results[0]!.score!;
    const relevance = await cursor(
      { k: tie, f: 'b.md', p: at.projectId },
      { query: 'word', sort: 'relevance' },
    );
    expect(filenames(await search({ query: 'word', cursor: relevance }))).toEqual([
      'd.md',
      'a.md',
      'c.md',
      'e.md',
    ]);
    const invalid = [['body', 'cursor'], 'value_error', 'Value error, invalid cursor'];
    for (const payload of [
      null,
      'b.md',
      [position],
      { ...position, k: true },
      { ...position, k: null },
      { f: 'b.md', p: at.projectId },
      { ...position, f: 1 },
      { k: 'b.md', p: at.projectId },
      { ...position, p: 1 },
      { k: 'b.md', f: 'b.md' },
    ]) {
      expect(await issueOf(async () => search({ cursor: await cursor(payload) }))).toEqual(invalid);
    }
    // Signed for another kind or account: refused.
    expect(await issueOf(async () => search({ cursor: await cursor(position, { kind: 'files' }) }))).toEqual(
      invalid,
    );
    expect(await issueOf(async () => search({ cursor: await cursor(position, { account: 'x' }) }))).toEqual(
      invalid,
    );
  });
});

describe('the account’s search', () => {
  async function twoProjects() {
    const s = await scene();
    const second = await s.store.projects.create({ principal: s.alice.principal, body: { name: 'second' } });
    const third = await s.store.projects.create({ principal: s.alice.principal, body: { name: 'third' } });
    const there = (projectId: string) => ({ principal: s.alice.principal, projectId });
    await s.put('same.md', 'shared word');
    await s.put('only-default.md', 'word');
    await s.put('same.md', 'shared word', undefined, there(second.id));
    await s.put('z.md', 'other', undefined, there(second.id));
    await s.put('third.md', 'word', undefined, there(third.id));
    const bob = await anAccount(s.store, 'bob');
    await s.put('same.md', 'shared word', undefined, {
      principal: bob.principal,
      projectId: bob.defaultProjectId,
    });
    const [low, high] = [s.at.projectId, second.id].sort();
    return { ...s, second: second.id, third: third.id, bob, low: low!, high: high! };
  }

  const entries = (answer: SearchAnswer) =>
    answer.results.map((r) => `${r.file.projectId}:${r.file.filename}`);

  it('searches every active project of the account, ties going by project id', async () => {
    const { search, store, alice, third, low, high } = await twoProjects();
    const all = await search({ filter: { field: 'filename', op: 'eq', value: 'same.md' } }, ACCOUNT);
    expect(entries(all)).toEqual([`${low}:same.md`, `${high}:same.md`]);
    const desc = await search(
      { filter: { field: 'filename', op: 'eq', value: 'same.md' }, order: 'desc' },
      ACCOUNT,
    );
    expect(entries(desc)).toEqual([`${high}:same.md`, `${low}:same.md`]);
    expect(filenames(await search({}, ACCOUNT))).toEqual([
      'only-default.md',
      'same.md',
      'same.md',
      'third.md',
      'z.md',
    ]);
    const shared = await search({ query: 'shared' }, ACCOUNT);
    expect(entries(shared)).toEqual([`${low}:same.md`, `${high}:same.md`]);
    expect(shared.results[0]!.score).toBe(shared.results[1]!.score);
    expect(shared.results.map((r) => r.snippets[0]!.text)).toEqual(['shared word', 'shared word']);
    expect((await walk((b) => search(b, ACCOUNT), { query: 'shared', limit: 1 })).pages).toEqual([
      ['same.md'],
      ['same.md'],
    ]);
    const walked = [];
    let cursor: string | null = null;
    do {
      const page: SearchAnswer = await search(
        { query: 'shared', limit: 1, ...(cursor && { cursor }) },
        ACCOUNT,
      );
      walked.push(...entries(page));
      cursor = page.nextCursor;
    } while (cursor);
    expect(walked).toEqual([`${low}:same.md`, `${high}:same.md`]);
    // A deleted project is no longer searched, and a cursor issued while it was one is refused.
    const before = await search({ query: 'word', limit: 1 }, ACCOUNT);
    await store.projects.delete({ principal: alice.principal, projectId: third });
    expect(
      await issueOf(() => search({ query: 'word', limit: 1, cursor: before.nextCursor }, ACCOUNT)),
    ).toEqual([['body', 'cursor'], 'value_error', 'Value error, invalid cursor']);
    expect(filenames(await search({ query: 'word' }, ACCOUNT)).sort()).toEqual([
      'only-default.md',
      'same.md',
      'same.md',
    ]);
    expect(await codeOf(() => search({ project_ids: [third] }, ACCOUNT))).toBe('PROJECT_NOT_FOUND');
  });

  it('searches only the projects of project_ids, each once, in any letter case', async () => {
    const { search, bob, second, at, third } = await twoProjects();
    const answer = await search({ project_ids: [second] }, ACCOUNT);
    expect(answer.results.map((r) => [r.file.projectId, r.file.filename])).toEqual([
      [second, 'same.md'],
      [second, 'z.md'],
    ]);
    const both = await search({ project_ids: [third, at.projectId], limit: 1 }, ACCOUNT);
    expect(filenames(both)).toEqual(['only-default.md']);
    expect(both.totalCount).toBe(3);
    // A cursor is bound to the set of projects: the same projects named twice or in upper case are the same.
    const next = await search(
      { project_ids: [at.projectId, third.toUpperCase(), third], limit: 1, cursor: both.nextCursor },
      ACCOUNT,
    );
    expect(filenames(next)).toEqual(['same.md']);
    expect(next.totalCount).toBe(3);
    expect(
      await issueOf(() =>
        search({ project_ids: [at.projectId], limit: 1, cursor: both.nextCursor }, ACCOUNT),
      ),
    ).toEqual([['body', 'cursor'], 'value_error', 'Value error, invalid cursor']);
    expect(await codeOf(() => search({ project_ids: [second, bob.defaultProjectId] }, ACCOUNT))).toBe(
      'FORBIDDEN',
    );
    expect(await search({ project_ids: [] }, ACCOUNT)).toEqual({
      results: [],
      totalCount: 0,
      nextCursor: null,
    });
  });
});
