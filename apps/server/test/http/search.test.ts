import { SEARCH_COST_LIMITS } from '@mdstore/core';
import { describe, expect } from 'vitest';
import { type HttpHarness, serverTest } from '../support/http-harness.js';

/**
 * Search and filter (extensions §3) and front matter, on whichever adapter set runs the suite (see
 * `apps/server/test/matrix`): the same requests give the same answers on memory, SQLite and Postgres.
 */
const test = serverTest({ settings: { maxFileBytes: 256 * 1024 } });

type Json = Record<string, unknown>;
type Issue = { loc: unknown[]; msg: string; type: string };
interface Answer {
  results: {
    file: Json;
    score: number | null;
    snippets: { text: string; highlights: [number, number][] }[];
  }[];
  total_count: number;
  next_cursor: string | null;
}

async function scene(h: HttpHarness) {
  const { apiKey, defaultProjectId } = await h.account();
  const { id: projectId } = await h.createProject(apiKey, 'Search');
  const search = async (body: unknown, path = `/api/projects/${projectId}/search`) => {
    const response = await h.json(path, 'POST', apiKey, body);
    return { status: response.status, body: (await response.json()) as Answer & { detail: Issue[] } };
  };
  const names = async (body: Json, path?: string) => {
    const answer = await search(body, path);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.results.map((result) => result.file.filename);
  };
  const upload = (filename: string, content: string, metadata?: unknown) =>
    h.uploadFile(apiKey, projectId, filename, content, metadata);
  const path = (filename: string) => `/api/projects/${projectId}/files/${encodeURIComponent(filename)}`;
  return { apiKey, defaultProjectId, projectId, search, names, upload, path };
}

const FRONT = '---\ntitle: Release Plan\ntags: [api, draft]\ndate: 2024-05-01\nweight: 3\n---\n';

async function seed(s: Awaited<ReturnType<typeof scene>>) {
  await s.upload('guide.md', '# Guide\n\nInstall the quick brown fox. The fox is lazy.\n', {
    tags: ['api'],
    n: 2,
  });
  await s.upload('plan.md', `${FRONT}# Plan\n\nShip the API by Friday.\n`, { status: 'draft' });
  await s.upload('recipe-crème.md', 'Crème brûlée: sugar, cream, eggs.\n', { tags: ['food'], n: 10 });
  await s.upload('zeta.mdx', 'Nothing to see here, café society.\n');
}

describe('search: full text', () => {
  test('finds words in content, filename, metadata and front matter, with scores and snippets', async (h) => {
    const s = await scene(h);
    await seed(s);
    expect(await s.names({ query: 'fox' })).toEqual(['guide.md']);
    expect(await s.names({ query: 'recipe' })).toEqual(['recipe-crème.md']);
    expect(await s.names({ query: 'draft', sort: 'filename' })).toEqual(['plan.md']);
    expect(await s.names({ query: 'release plan' })).toEqual(['plan.md']);
    expect(await s.names({ query: 'CREME brulee' })).toEqual(['recipe-crème.md']);
    expect(await s.names({ query: 'cafe OR fox', sort: 'filename' })).toEqual(['guide.md', 'zeta.mdx']);
    expect(await s.names({ query: '"brown fox"' })).toEqual(['guide.md']);
    expect(await s.names({ query: '"fox brown"' })).toEqual([]);
    expect(await s.names({ query: 'fox -lazy' })).toEqual([]);
    expect(await s.names({ query: 'ins*' })).toEqual(['guide.md']);
    const answer = await s.search({ query: 'fox' });
    expect(answer.body.total_count).toBe(1);
    expect(answer.body.next_cursor).toBeNull();
    const [result] = answer.body.results;
    expect(result!.score).toBeGreaterThan(0);
    expect(result!.file).toMatchObject({
      filename: 'guide.md',
      metadata: { tags: ['api'], n: 2 },
      revision: 1,
    });
    const [snippet] = result!.snippets;
    const marked = snippet!.highlights.map(([start, end]) => [...snippet!.text].slice(start, end).join(''));
    expect(marked).toEqual(['fox', 'fox']);
  });

  test('ranks the better match first: a word in the filename beats one in the content', async (h) => {
    const s = await scene(h);
    await s.upload('other.md', 'A note that mentions kettle once.\n');
    await s.upload('kettle.md', 'About tea.\n');
    await s.upload('none.md', 'Nothing.\n');
    const answer = await s.search({ query: 'kettle' });
    expect(answer.body.results.map((r) => r.file.filename)).toEqual(['kettle.md', 'other.md']);
    expect(answer.body.results[0]!.score!).toBeGreaterThan(answer.body.results[1]!.score!);
    expect(answer.body.results[0]!.snippets).toEqual([]);
  });

  test('query syntax of FTS5 and tsquery is only characters', async (h) => {
    const s = await scene(h);
    await s.upload('a.md', 'NEAR the column content:secret & more | pipes ! bang ^caret *star* "quoted"\n');
    await s.upload('b.md', 'unrelated words\n');
    const hostile = [
      'NEAR(secret more)',
      'content:secret',
      '"quoted',
      'secret & more',
      '!bang',
      'pipes | more',
      '^caret',
      '*star*',
      'secret:*',
      "' OR 1=1 --",
      'a:b:c NOT d AND near',
      '{content filename}: secret',
      '\\ / ( ) [ ] < > <-> :* @@',
    ];
    for (const query of hostile) {
      const answer = await s.search({ query, sort: 'filename' });
      if (answer.status === 422) expect(answer.body.detail[0]!.loc, query).toEqual(['body', 'query']);
      else expect(answer.status, query).toBe(200);
    }
    expect(await s.names({ query: 'content:secret' })).toEqual(['a.md']);
    expect(await s.names({ query: 'NEAR(secret more)' })).toEqual(['a.md']);
    expect(await s.names({ query: 'secret & more | pipes' })).toEqual(['a.md']);
    expect((await s.search({ query: '&&& ||| !!!' })).status).toBe(422);
  });

  test('read-your-writes: found when the write returns, gone when the delete returns', async (h) => {
    const s = await scene(h);
    await s.upload('w.md', 'alpha\n');
    expect(await s.names({ query: 'alpha' })).toEqual(['w.md']);
    const put = await h.fetch(`${s.path('w.md')}/content`, {
      method: 'PUT',
      key: s.apiKey,
      headers: { 'Content-Type': 'text/markdown' },
      body: 'beta\n',
    });
    expect(put.status).toBe(200);
    expect(await s.names({ query: 'alpha' })).toEqual([]);
    expect(await s.names({ query: 'beta' })).toEqual(['w.md']);
    const meta = await h.json(s.path('w.md'), 'PUT', s.apiKey, {
      metadata: { label: 'gamma' },
    });
    expect(meta.status).toBe(200);
    expect(await s.names({ query: 'gamma beta' })).toEqual(['w.md']);
    const patch = await h.fetch(s.path('w.md'), {
      method: 'PATCH',
      key: s.apiKey,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ edits: [{ op: 'replace', old: 'beta', new: 'delta' }] }),
    });
    expect(patch.status).toBe(200);
    expect(await s.names({ query: 'delta' })).toEqual(['w.md']);
    expect(await s.names({ query: 'beta' })).toEqual([]);
    expect((await h.fetch(s.path('w.md'), { method: 'DELETE', key: s.apiKey })).status).toBe(204);
    expect(await s.names({ query: 'delta' })).toEqual([]);
    expect(await s.names({})).toEqual([]);
  });
});

describe('search: cost bounds (issue 34)', () => {
  test(`a prefix with more than ${SEARCH_COST_LIMITS.prefixMaxTerms} indexed words: the first words' files, truncated where the store expands prefixes (SQLite, Postgres)`, async (h) => {
    const s = await scene(h);
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    // 676 words `loaa` … `lozz` in one file; `first.md` holds an early one, `last.md` a late one.
    const words = [...letters].flatMap((a) => [...letters].map((b) => `lo${a}${b}`));
    await s.upload('all.md', words.join(' '));
    await s.upload('first.md', 'loaa\n');
    await s.upload('last.md', 'lozz\n');
    const expands = (await h.adapters.records.expandSearchPrefix({ word: 'lo', limit: 1 })) !== null;
    const page = await s.search({ query: 'lo*', sort: 'filename' });
    expect(page.status).toBe(200);
    const found = page.body.results.map((result) => result.file.filename);
    if (expands) {
      expect(page.body).toMatchObject({ truncated: true });
      expect(found).toEqual(['all.md', 'first.md']);
    } else {
      expect(page.body).not.toHaveProperty('truncated');
      expect(found).toEqual(['all.md', 'first.md', 'last.md']);
    }
    // A longer prefix has fewer words than the bound: every file, not truncated.
    const narrow = await s.search({ query: 'loz*', sort: 'filename' });
    expect(narrow.body.results.map((result) => result.file.filename)).toEqual(['all.md', 'last.md']);
    expect(narrow.body).not.toHaveProperty('truncated');
  });

  test('a page past its snippet bytes keeps its results without snippets, and says so', async (h) => {
    const s = await scene(h);
    const size = 200 * 1024;
    const text = 'lorem ipsum dolor '.repeat(Math.ceil(size / 18)).slice(0, size);
    const shown = Math.floor(SEARCH_COST_LIMITS.snippetTextMaxBytes / size);
    const names = Array.from({ length: shown + 2 }, (_, index) => `n${String(index).padStart(2, '0')}.md`);
    for (const name of names) await s.upload(name, text);
    const page = await s.search({ query: 'lorem', sort: 'filename', limit: names.length });
    expect(page.status).toBe(200);
    expect(page.body.results.map((result) => result.file.filename)).toEqual(names);
    expect(page.body.results.map((result) => result.snippets.length > 0)).toEqual(
      names.map((_, index) => index < shown),
    );
    expect(page.body).toMatchObject({ snippets_truncated: true, total_count: names.length });
    expect(page.body).not.toHaveProperty('truncated');
    // Within the bounds the answer has only the interface's fields.
    const small = await s.search({ query: 'lorem', limit: 2 });
    expect(Object.keys(small.body).sort()).toEqual(['next_cursor', 'results', 'total_count']);
  });
});

describe('search follows history writes (extensions §5)', () => {
  test('restore, move and copy re-index the file and its front matter in their transaction', async (h) => {
    const s = await scene(h);
    await s.upload('h.md', '---\ntitle: Walrus\n---\nalpha words\n');
    const post = (op: string, body: unknown, name = 'h.md') =>
      h.fetch(`${s.path(name)}/${op}`, {
        method: 'POST',
        key: s.apiKey,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    const put = await h.fetch(`${s.path('h.md')}/content`, {
      method: 'PUT',
      key: s.apiKey,
      headers: { 'Content-Type': 'text/markdown' },
      body: 'beta words\n',
    });
    expect(put.status).toBe(200);
    expect(await s.names({ query: 'walrus' })).toEqual([]);
    expect((await post('restore', { revision: 1 })).status).toBe(200);
    expect(await s.names({ query: 'alpha' })).toEqual(['h.md']);
    expect(await s.names({ query: 'beta' })).toEqual([]);
    expect(await s.names({ filter: { field: 'frontmatter.title', op: 'eq', value: 'Walrus' } })).toEqual([
      'h.md',
    ]);
    expect((await post('move', { to: 'moved.md' })).status).toBe(200);
    expect(await s.names({ query: 'moved alpha' })).toEqual(['moved.md']);
    expect(await s.names({ filter: { field: 'filename', op: 'eq', value: 'h.md' } })).toEqual([]);
    expect((await post('copy', { to: 'copied.md' }, 'moved.md')).status).toBe(201);
    expect(await s.names({ query: 'alpha walrus' })).toEqual(['copied.md', 'moved.md'].sort());
    expect(await s.names({ query: 'copied' })).toEqual(['copied.md']);
  });
});

describe('search: filters, sorting and paging', () => {
  test('filters on fixed fields, metadata and front matter', async (h) => {
    const s = await scene(h);
    await seed(s);
    const c = (field: unknown, op: string, value: unknown) => ({ field, op, value });
    const filtered = (filter: unknown) => s.names({ filter });
    expect(await filtered(c('metadata.tags', 'contains', 'api'))).toEqual(['guide.md']);
    expect(await filtered(c('frontmatter.tags', 'contains', 'api'))).toEqual(['plan.md']);
    expect(await filtered(c('frontmatter.date', 'eq', '2024-05-01'))).toEqual(['plan.md']);
    expect(await filtered(c(['frontmatter', 'weight'], 'gte', 3))).toEqual(['plan.md']);
    expect(await filtered(c('metadata.n', 'gt', 5))).toEqual(['recipe-crème.md']);
    expect(await filtered(c('metadata.n', 'ne', 2))).toEqual(['plan.md', 'recipe-crème.md', 'zeta.mdx']);
    expect(await filtered(c('filename', 'prefix', 'pla'))).toEqual(['plan.md']);
    expect(await filtered(c('size_bytes', 'lt', 40))).toEqual(['recipe-crème.md', 'zeta.mdx']);
    expect(await filtered(c('revision', 'eq', 1))).toHaveLength(4);
    expect(await filtered(c('created_date', 'gte', '2000-01-01'))).toHaveLength(4);
    expect(await filtered(c('created_date', 'lt', '2000-01-01T00:00:00'))).toEqual([]);
    expect(
      await filtered({
        or: [c('metadata.status', 'eq', 'draft'), { not: c('metadata.tags', 'exists', true) }],
      }),
    ).toEqual(['plan.md', 'zeta.mdx']);
    expect(
      await s.names({ query: 'the', filter: c('metadata.tags', 'contains', 'api'), sort: 'filename' }),
    ).toEqual(['guide.md']);
  });

  test('sorts by each field in both orders and pages with cursors', async (h) => {
    const s = await scene(h);
    const sizes = [30, 10, 20, 10, 50];
    for (const [index, size] of sizes.entries()) await s.upload(`f${index}.md`, `${'x'.repeat(size - 1)}\n`);
    expect(await s.names({ sort: 'size_bytes' })).toEqual(['f1.md', 'f3.md', 'f2.md', 'f0.md', 'f4.md']);
    expect(await s.names({ sort: 'size_bytes', order: 'desc' })).toEqual([
      'f4.md',
      'f0.md',
      'f2.md',
      'f3.md',
      'f1.md',
    ]);
    expect(await s.names({ sort: 'filename', order: 'desc' })).toEqual([
      'f4.md',
      'f3.md',
      'f2.md',
      'f1.md',
      'f0.md',
    ]);
    expect(await s.names({ sort: 'created_date' })).toEqual(['f0.md', 'f1.md', 'f2.md', 'f3.md', 'f4.md']);
    expect(await s.names({ sort: 'updated_date', order: 'desc' })).toEqual([
      'f4.md',
      'f3.md',
      'f2.md',
      'f1.md',
      'f0.md',
    ]);
    const seen: unknown[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const answer = await s.search({
        sort: 'size_bytes',
        order: 'desc',
        limit: 2,
        ...(cursor && { cursor }),
      });
      expect(answer.status).toBe(200);
      expect(answer.body.total_count).toBe(5);
      seen.push(...answer.body.results.map((result) => result.file.filename));
      cursor = answer.body.next_cursor;
      pages += 1;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toEqual(['f4.md', 'f0.md', 'f2.md', 'f3.md', 'f1.md']);
  });

  test('a cursor is bound to its search and cannot be forged', async (h) => {
    const s = await scene(h);
    for (const name of ['a.md', 'b.md', 'c.md']) await s.upload(name, 'same words\n');
    const first = await s.search({ query: 'words', limit: 1 });
    const cursor = first.body.next_cursor!;
    expect(typeof cursor).toBe('string');
    const next = await s.search({ query: 'words', limit: 1, cursor });
    expect(next.status).toBe(200);
    const cursorIssue = [
      { loc: ['body', 'cursor'], msg: 'Value error, invalid cursor', type: 'value_error' },
    ];
    for (const body of [
      { query: 'same', limit: 1, cursor },
      { query: 'words', sort: 'filename', limit: 1, cursor },
      { query: 'words', limit: 1, cursor: `${cursor.slice(0, -2)}AA` },
      { query: 'words', limit: 1, cursor: 'x'.repeat(3000) },
      { query: 'words', limit: 1, cursor: 12 },
    ]) {
      const answer = await s.search(body);
      expect(answer.status, JSON.stringify(body)).toBe(422);
      if (typeof body.cursor === 'string') expect(answer.body.detail).toEqual(cursorIssue);
    }
    const other = await s.search({ query: 'words', limit: 1, cursor }, '/api/search');
    expect(other.status).toBe(422);
  });
});

describe('search: validation and access', () => {
  test('bad bodies are 422 with loc into the body, never 500', async (h) => {
    const s = await scene(h);
    const cases: [unknown, unknown[]][] = [
      [[], ['body']],
      [{ sort: 'relevance' }, ['body', 'sort']],
      [{ sort: 'name' }, ['body', 'sort']],
      [{ order: 'up' }, ['body', 'order']],
      [{ limit: 0 }, ['body', 'limit']],
      [{ limit: 101 }, ['body', 'limit']],
      [{ limit: 1.5 }, ['body', 'limit']],
      [{ limit: '10' }, ['body', 'limit']],
      [{ limit: -1 }, ['body', 'limit']],
      [{ limit: 1e12 }, ['body', 'limit']],
      [{ query: 'a '.repeat(33) }, ['body', 'query']],
      [{ filter: { field: 'metadata.a', op: 'eq', value: 'x'.repeat(1025) } }, ['body', 'filter', 'value']],
      [{ filter: { field: 'metadata.a', op: 'in', value: Array(101).fill(1) } }, ['body', 'filter', 'value']],
      [{ query: '-only' }, ['body', 'query']],
      [{ query: 'x'.repeat(100_000) }, ['body', 'query']],
      [{ query: 5 }, ['body', 'query']],
      [{ filter: { field: 'metadata.a', op: 'like', value: 1 } }, ['body', 'filter', 'op']],
      [{ filter: { and: [{ field: 'size', op: 'eq', value: 1 }] } }, ['body', 'filter', 'and', 0, 'field']],
      [{ filter: { field: 'created_date', op: 'lt', value: 'yesterday' } }, ['body', 'filter', 'value']],
      [{ project_ids: [s.projectId] }, ['body', 'project_ids']],
    ];
    let deep: unknown = { field: 'size_bytes', op: 'eq', value: 1 };
    for (let level = 0; level < 20; level += 1) deep = { not: deep };
    cases.push([{ filter: deep }, ['body', 'filter', ...Array(8).fill('not')]]);
    for (const [body, loc] of cases) {
      const answer = await s.search(body);
      expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      expect(answer.body.detail[0]!.loc, JSON.stringify(body).slice(0, 80)).toEqual(loc);
    }
    const invalidUtf8 = await h.fetch(`/api/projects/${s.projectId}/search`, {
      method: 'POST',
      key: s.apiKey,
      headers: { 'Content-Type': 'application/json' },
      body: Buffer.concat([Buffer.from('{"query":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
    });
    expect([400, 422]).toContain(invalidUtf8.status);
    const wide = { or: Array.from({ length: 51 }, () => ({ field: 'revision', op: 'eq', value: 1 })) };
    expect((await s.search({ filter: wide })).status).toBe(422);
    expect((await s.search({ query: 'fine', limit: 100 })).status).toBe(200);
  });

  test('/api/search covers the account’s projects; project_ids narrows; others are 403/404', async (h) => {
    const s = await scene(h);
    await s.upload('here.md', 'shared word\n');
    await h.uploadFile(s.apiKey, s.defaultProjectId, 'default.md', 'shared word\n');
    const stranger = await h.account();
    await h.uploadFile(stranger.apiKey, stranger.defaultProjectId, 'theirs.md', 'shared word\n');
    const all = await s.search({ query: 'shared', sort: 'filename' }, '/api/search');
    expect(all.body.results.map((r) => [r.file.filename, r.file.project_id])).toEqual([
      ['default.md', s.defaultProjectId],
      ['here.md', s.projectId],
    ]);
    expect(await s.names({ query: 'shared', project_ids: [s.projectId] }, '/api/search')).toEqual([
      'here.md',
    ]);
    const foreign = await s.search(
      { query: 'shared', project_ids: [s.projectId, stranger.defaultProjectId] },
      '/api/search',
    );
    expect(foreign.status).toBe(403);
    const missing = await s.search({ project_ids: ['00000000-0000-4000-8000-000000000000'] }, '/api/search');
    expect(missing.status).toBe(404);
    const malformed = await s.search({ project_ids: ['nope'] }, '/api/search');
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0]!.loc).toEqual(['body', 'project_ids', 0]);
    const tooMany = await s.search({ project_ids: Array(101).fill(s.projectId) }, '/api/search');
    expect(tooMany.status).toBe(422);
    // Equal filenames in two projects: ties by project id, in the direction of `order`, across pages.
    await s.upload('default.md', 'shared word\n');
    const byProject = [s.defaultProjectId, s.projectId].sort();
    for (const order of ['asc', 'desc'] as const) {
      const pages: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await s.search(
          { query: 'shared', sort: 'filename', order, limit: 1, ...(cursor && { cursor }) },
          '/api/search',
        );
        pages.push(...page.body.results.map((r) => `${r.file.filename}@${r.file.project_id}`));
        cursor = page.body.next_cursor;
      } while (cursor);
      const ascending = [...byProject.map((id) => `default.md@${id}`), `here.md@${s.projectId}`];
      expect(pages).toEqual(order === 'asc' ? ascending : ascending.reverse());
    }
    const plain = await h.fetch('/api/search', {
      method: 'POST',
      key: s.apiKey,
      headers: { 'Content-Type': 'text/plain' },
      body: '{}',
    });
    expect(plain.status).toBe(415);
    const theirs = await s.search({ query: 'shared' }, `/api/projects/${stranger.defaultProjectId}/search`);
    expect(theirs.status).toBe(403);
    const noKey = await h.fetch(`/api/projects/${s.projectId}/search`, { method: 'POST' });
    expect(noKey.status).toBe(401);
    expect(noKey.headers.get('x-ratelimit-limit')).toBeNull();
    const keyed = await h.json('/api/search', 'POST', s.apiKey, {});
    expect(keyed.headers.get('x-ratelimit-limit')).not.toBeNull();
  });

  test('total_count counts every match, limit pages them', async (h) => {
    const s = await scene(h);
    for (let index = 0; index < 25; index += 1)
      await s.upload(`n${String(index).padStart(2, '0')}.md`, 'common\n');
    const answer = await s.search({ query: 'common' });
    expect(answer.body.total_count).toBe(25);
    expect(answer.body.results).toHaveLength(20);
    expect(answer.body.next_cursor).not.toBeNull();
  });
});

describe('front matter', () => {
  test('upload, content update and PATCH read it into the File object; null when absent or invalid', async (h) => {
    const s = await scene(h);
    const uploaded = await s.upload('fm.md', `${FRONT}# Plan\n`);
    expect(uploaded.frontmatter).toEqual({
      title: 'Release Plan',
      tags: ['api', 'draft'],
      date: '2024-05-01',
      weight: 3,
    });
    const listed = async () => {
      const list = (await (
        await h.fetch(`/api/projects/${s.projectId}/files`, { key: s.apiKey })
      ).json()) as {
        files: Json[];
      };
      return list.files.find((file) => file.filename === 'fm.md')!.frontmatter;
    };
    expect(await listed()).toEqual(uploaded.frontmatter);
    const patch = await h.fetch(s.path('fm.md'), {
      method: 'PATCH',
      key: s.apiKey,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ edits: [{ op: 'replace', old: 'weight: 3', new: 'weight: 4' }] }),
    });
    expect(patch.status).toBe(200);
    expect(await listed()).toMatchObject({ weight: 4 });
    expect(await s.names({ filter: { field: 'frontmatter.weight', op: 'eq', value: 4 } })).toEqual(['fm.md']);
    const nulls = [
      '# No front matter\n',
      '---\ntitle: [unclosed\n---\n',
      '---\n- a list\n- not a mapping\n---\n',
      '---\nvalue: .inf\n---\n',
      '---\ntitle: never closed\n',
      '---\n? [a, b]\n: complex key\n---\n',
      `---\nbig: "${'x'.repeat(70 * 1024)}"\n---\n`,
      `---\nbase: &a value\nmany: [${Array(101).fill('*a').join(', ')}]\n---\n`,
      `---\ndeep: ${'['.repeat(40)}${']'.repeat(40)}\n---\n`,
      '---\nraw: !!binary aGk=\n---\n',
    ];
    for (const content of nulls) {
      const put = await h.fetch(`${s.path('fm.md')}/content`, {
        method: 'PUT',
        key: s.apiKey,
        headers: { 'Content-Type': 'text/markdown' },
        body: content,
      });
      expect(put.status, content).toBe(200);
      expect(await listed(), content).toBeNull();
    }
    const bom = await s.upload('bom.md', '\uFEFF---\r\nkey: value\r\n...\r\nbody\r\n');
    expect(bom.frontmatter).toEqual({ key: 'value' });
  });
});
