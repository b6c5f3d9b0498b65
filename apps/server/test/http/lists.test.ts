import { describe, expect } from 'vitest';
import { serverTest } from '../support/http-harness.js';

const test = serverTest();

type Harness = Parameters<Parameters<typeof test>[1]>[0];
type FileListBody = {
  files: Array<{ filename: string; size_bytes: number }>;
  total_count: number;
  total_size_bytes: number;
  folders?: string[];
  next_cursor?: string | null;
};
type Detail = { detail: Array<{ loc: unknown[]; msg: string; type: string }> };

async function projectWith(h: Harness, files: Record<string, string>) {
  const { apiKey, accountId } = await h.account();
  const project = await h.createProject(apiKey, 'Lists');
  for (const [filename, content] of Object.entries(files))
    await h.uploadFile(apiKey, project.id, filename, content);
  return { apiKey, accountId, projectId: project.id };
}

async function list(h: Harness, apiKey: string, projectId: string, query = '') {
  const response = await h.fetch(`/api/projects/${projectId}/files${query}`, { key: apiKey });
  return { status: response.status, body: (await response.json()) as FileListBody };
}

/** Every page of a list, following `next_cursor`. */
async function walk(h: Harness, apiKey: string, projectId: string, query: string) {
  const pages: FileListBody[] = [];
  let cursor: string | null | undefined;
  do {
    const suffix = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const { status, body } = await list(h, apiKey, projectId, `?${query}${suffix}`);
    expect(status, JSON.stringify(body)).toBe(200);
    pages.push(body);
    cursor = body.next_cursor;
  } while (cursor && pages.length < 50);
  return pages;
}

const TREE = {
  'a.md': 'a',
  'docs/intro.md': 'intro',
  'docs/guides/setup.md': 'setup!',
  'docs/guides/deploy.md': 'deploy',
  'docs/zz.md': 'zz',
  'docs0.md': 'docs0',
  'notes/x.md': 'x',
  'é.md': 'e',
};

describe('List Files: paging and sorting (extensions §3)', () => {
  test('without parameters: everything, no next_cursor (compatibility)', async (h) => {
    const { apiKey, projectId } = await projectWith(h, TREE);
    const { body } = await list(h, apiKey, projectId);
    expect(Object.keys(body).sort()).toEqual(['files', 'total_count', 'total_size_bytes']);
    expect(body.files.map((f) => f.filename)).toEqual(Object.keys(TREE).sort());
  });

  test('limit pages by filename with next_cursor; totals count the whole project', async (h) => {
    const { apiKey, projectId } = await projectWith(h, TREE);
    const pages = await walk(h, apiKey, projectId, 'limit=3');
    expect(pages.map((page) => page.files.length)).toEqual([3, 3, 2]);
    expect(pages.flatMap((page) => page.files.map((f) => f.filename))).toEqual(Object.keys(TREE).sort());
    expect(pages.at(-1)!.next_cursor).toBeNull();
    for (const page of pages) expect(page).toMatchObject({ total_count: 8, total_size_bytes: 27 });
    // limit exactly the size: one page, next_cursor null.
    const whole = await list(h, apiKey, projectId, '?limit=8');
    expect(whole.body.files).toHaveLength(8);
    expect(whole.body.next_cursor).toBeNull();
  });

  test('sort and order, ties broken by filename in the direction of the order', async (h) => {
    const { apiKey, projectId } = await projectWith(h, {
      'b.md': 'xx',
      'c.md': 'x',
      'a.md': 'xx',
      'd.md': 'xxx',
    });
    const names = async (query: string) =>
      (await walk(h, apiKey, projectId, query)).flatMap((page) => page.files.map((f) => f.filename));
    expect(await names('sort=size_bytes&limit=1')).toEqual(['c.md', 'a.md', 'b.md', 'd.md']);
    expect(await names('sort=size_bytes&order=desc&limit=2')).toEqual(['d.md', 'b.md', 'a.md', 'c.md']);
    expect(await names('order=desc&limit=3')).toEqual(['d.md', 'c.md', 'b.md', 'a.md']);
    expect(await names('sort=created_date&limit=3')).toEqual(['b.md', 'c.md', 'a.md', 'd.md']);
    expect(await names('sort=updated_date&order=desc&limit=10')).toEqual(['d.md', 'a.md', 'c.md', 'b.md']);
    // Without limit: the whole list, in that order, and no next_cursor.
    const all = await list(h, apiKey, projectId, '?sort=size_bytes&order=desc');
    expect(all.body.files.map((f) => f.filename)).toEqual(['d.md', 'b.md', 'a.md', 'c.md']);
    expect(all.body.next_cursor).toBeUndefined();
  });

  test('prefix narrows the list and its totals; next_cursor null when unpaged', async (h) => {
    const { apiKey, projectId } = await projectWith(h, TREE);
    const { body } = await list(h, apiKey, projectId, '?prefix=docs%2F');
    expect(body.files.map((f) => f.filename)).toEqual([
      'docs/guides/deploy.md',
      'docs/guides/setup.md',
      'docs/intro.md',
      'docs/zz.md',
    ]);
    expect(body).toMatchObject({ total_count: 4, total_size_bytes: 19, next_cursor: null });
    const paged = await walk(h, apiKey, projectId, 'prefix=docs&limit=2');
    expect(paged.flatMap((page) => page.files.map((f) => f.filename))).toEqual([
      'docs/guides/deploy.md',
      'docs/guides/setup.md',
      'docs/intro.md',
      'docs/zz.md',
      'docs0.md',
    ]);
    expect((await list(h, apiKey, projectId, '?prefix=%C3%A9')).body.files.map((f) => f.filename)).toEqual([
      'é.md',
    ]);
    expect((await list(h, apiKey, projectId, '?prefix=none')).body).toMatchObject({
      files: [],
      total_count: 0,
      total_size_bytes: 0,
      next_cursor: null,
    });
  });

  test('delimiter=/ folds each level into folders, one sequence by name, paged', async (h) => {
    const { apiKey, projectId } = await projectWith(h, TREE);
    const top = await list(h, apiKey, projectId, '?delimiter=%2F');
    expect(top.body.files.map((f) => f.filename)).toEqual(['a.md', 'docs0.md', 'é.md']);
    expect(top.body.folders).toEqual(['docs/', 'notes/']);
    expect(top.body).toMatchObject({ total_count: 5, total_size_bytes: 7, next_cursor: null });

    const level = await list(h, apiKey, projectId, '?delimiter=/&prefix=docs/');
    expect(level.body.files.map((f) => f.filename)).toEqual(['docs/intro.md', 'docs/zz.md']);
    expect(level.body.folders).toEqual(['docs/guides/']);
    expect(level.body).toMatchObject({ total_count: 3, total_size_bytes: 7 });

    // Pages of one entry each: 'a.md' < 'docs/' < 'docs0.md' < 'notes/' < 'é.md'.
    const pages = await walk(h, apiKey, projectId, 'delimiter=/&limit=1');
    expect(pages.map((page) => [...page.files.map((f) => f.filename), ...(page.folders ?? [])])).toEqual([
      ['a.md'],
      ['docs/'],
      ['docs0.md'],
      ['notes/'],
      ['é.md'],
    ]);
    const backwards = await walk(h, apiKey, projectId, 'delimiter=/&limit=2&order=desc');
    expect(backwards.map((page) => [...(page.folders ?? []), ...page.files.map((f) => f.filename)])).toEqual([
      ['notes/', 'é.md'],
      ['docs/', 'docs0.md'],
      ['a.md'],
    ]);
  });

  test('a cursor is bound to its project, account and parameters: anything else is 422, never 500', async (h) => {
    const { apiKey, projectId } = await projectWith(h, TREE);
    const other = await h.createProject(apiKey, 'Other');
    await h.uploadFile(apiKey, other.id, 'secret.md', 'secret');
    const stranger = await projectWith(h, { 'z.md': 'z' });
    const first = await list(h, apiKey, projectId, '?limit=2');
    const cursor = encodeURIComponent(first.body.next_cursor!);
    const refused = async (key: string, project: string, query: string) => {
      const response = await h.fetch(`/api/projects/${project}/files${query}`, { key });
      const body = (await response.json()) as Detail;
      expect(response.status, query).toBe(422);
      expect(body.detail).toEqual([
        { loc: ['query', 'cursor'], msg: 'Value error, invalid cursor', type: 'value_error' },
      ]);
    };
    await refused(apiKey, other.id, `?limit=2&cursor=${cursor}`);
    await refused(stranger.apiKey, stranger.projectId, `?limit=2&cursor=${cursor}`);
    for (const query of ['&sort=size_bytes', '&order=desc', '&prefix=d', '&delimiter=/'])
      await refused(apiKey, projectId, `?limit=2&cursor=${cursor}${query}`);
    const token = first.body.next_cursor!;
    const flipped = `${token.slice(0, 10)}${token[10] === 'A' ? 'B' : 'A'}${token.slice(11)}`;
    for (const bad of [flipped, `${token}A`, 'not-a-cursor', '', '%00', 'x'.repeat(3000)])
      await refused(apiKey, projectId, `?limit=2&cursor=${encodeURIComponent(bad)}`);
    // A List Projects cursor is no List Files cursor.
    const projects = (await (await h.fetch('/api/projects?limit=1', { key: apiKey })).json()) as {
      next_cursor: string;
    };
    await refused(apiKey, projectId, `?cursor=${encodeURIComponent(projects.next_cursor)}`);
    // The same cursor still works where it belongs; the limit may change between pages.
    const second = await list(h, apiKey, projectId, `?limit=3&cursor=${cursor}`);
    expect(second.body.files.map((f) => f.filename)).toEqual([
      'docs/guides/setup.md',
      'docs/intro.md',
      'docs/zz.md',
    ]);
  });

  test('query parameter problems are 422 at ["query", name]', async (h) => {
    const { apiKey, projectId } = await projectWith(h, { 'a.md': 'a' });
    const cases: Array<[string, string]> = [
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=', 'limit'],
      ['limit=99999999999999999999', 'limit'],
      ['limit=1&limit=2', 'limit'],
      ['sort=name', 'sort'],
      ['sort=constructor', 'sort'],
      ['order=up', 'order'],
      ['delimiter=%7C', 'delimiter'],
      ['delimiter=/&sort=size_bytes', 'sort'],
      ['prefix=%ED%A0%80', 'prefix'],
      [`prefix=${'a'.repeat(1025)}`, 'prefix'],
      ['prefix=%E0%A4%A', 'prefix'],
    ];
    for (const [query, name] of cases) {
      const response = await h.fetch(`/api/projects/${projectId}/files?${query}`, { key: apiKey });
      expect(response.status, query).toBe(422);
      const body = (await response.json()) as Detail;
      expect(
        body.detail.map((issue) => issue.loc),
        query,
      ).toContainEqual(['query', name]);
    }
    expect((await list(h, apiKey, projectId, '?limit=1000&other=1')).status).toBe(200);
  });

  test('paging a foreign or missing project is 403/404 as before', async (h) => {
    const { projectId } = await projectWith(h, { 'a.md': 'a' });
    const other = await h.account();
    expect((await h.fetch(`/api/projects/${projectId}/files?limit=1`, { key: other.apiKey })).status).toBe(
      403,
    );
    const missing = '3f1c5b9e-8d2a-4c7b-9e1f-2a3b4c5d6e7f';
    expect((await h.fetch(`/api/projects/${missing}/files?limit=1`, { key: other.apiKey })).status).toBe(404);
  });
});

describe('List Projects: paging (extensions §3)', () => {
  test('limit and cursor page the projects in List Projects order; total_count is every project', async (h) => {
    const { apiKey } = await h.account();
    for (const name of ['one', 'two', 'three', 'four']) await h.createProject(apiKey, name);
    const all = (await (await h.fetch('/api/projects', { key: apiKey })).json()) as {
      projects: Array<{ id: string }>;
      total_count: number;
      next_cursor?: unknown;
    };
    expect(all.total_count).toBe(5);
    expect(all.next_cursor).toBeUndefined();
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : '?limit=2';
      const page = (await (await h.fetch(`/api/projects${query}`, { key: apiKey })).json()) as {
        projects: Array<{ id: string }>;
        total_count: number;
        next_cursor: string | null;
      };
      expect(page.total_count).toBe(5);
      seen.push(...page.projects.map((p) => p.id));
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(all.projects.map((p) => p.id));
    // Another account's cursor, a tampered one, a bad limit: 422.
    const other = await h.account();
    const first = (await (await h.fetch('/api/projects?limit=1', { key: apiKey })).json()) as {
      next_cursor: string;
    };
    for (const [key, query, name] of [
      [other.apiKey, `?cursor=${encodeURIComponent(first.next_cursor)}`, 'cursor'],
      [apiKey, `?cursor=${encodeURIComponent(`${first.next_cursor}x`)}`, 'cursor'],
      [apiKey, '?limit=0', 'limit'],
    ] as const) {
      const response = await h.fetch(`/api/projects${query}`, { key });
      expect(response.status, query).toBe(422);
      expect(((await response.json()) as Detail).detail[0]!.loc).toEqual(['query', name]);
    }
  });
});
