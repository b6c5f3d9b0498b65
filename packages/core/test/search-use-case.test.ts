import {
  BlobNotFoundError,
  type BlobStore,
  encodeCursor,
  InputError,
  isMdStoreError,
  type MdStore,
  type RecordsRepository,
  type SearchAnswer,
  type SearchCandidatesQuery,
  type ValidationIssue,
} from '@mdstore/core';
import { aFile } from '@mdstore/core/testing';
import { describe, expect, it } from 'vitest';
import { anAccount, codeOf, createFixture, type TestAccount, textStream } from './support/fixture.js';

/**
 * Search (extensions §3) through the store's use case, `store.files.search`, on the memory adapters:
 * the checks of the body (422 with `loc`), the projects searched, filters, queries, ranking, snippets,
 * sorting and keyset paging with cursors, the store reads (batches, text batches, the document cache),
 * and the content read for search when a restore reuses a stored version.
 */

const KEY = new Uint8Array(32).fill(7);

type Body = Record<string, unknown>;
const ACCOUNT = null;

async function scene(
  options: {
    settings?: { inlineMaxBytes: number };
    wrapRecords?: (inner: RecordsRepository) => RecordsRepository;
    wrapBlobs?: (inner: BlobStore) => BlobStore;
  } = {},
) {
  const fixture = createFixture();
  const store: MdStore = fixture.restart({
    cursorKey: KEY,
    settings: options.settings,
    ...(options.wrapRecords && { records: options.wrapRecords(fixture.records) }),
    ...(options.wrapBlobs && { blobs: options.wrapBlobs(fixture.blobs) }),
  });
  const alice = await anAccount(store, 'alice');
  const at = { principal: alice.principal, projectId: alice.defaultProjectId };
  const put = (filename: string, text: string, metadata?: unknown, where = at) =>
    store.files.upload({
      ...where,
      filename,
      content: textStream(text),
      ...(metadata !== undefined && { metadata: JSON.stringify(metadata) }),
    });
  /** A project's search, or with `ACCOUNT` the account's (`/api/search`). */
  const search = (body: unknown, projectId: string | null = at.projectId, who = alice) =>
    store.files.search({ principal: who.principal, ...(projectId !== null && { projectId }), body });
  const names = async (body: unknown, projectId: string | null = at.projectId) =>
    filenames(await search(body, projectId));
  return { ...fixture, store, alice, at, put, search, names };
}

const filenames = (answer: SearchAnswer) => answer.results.map((result) => result.file.filename);

/** The code and issues of a failing call. */
async function failure(
  run: () => Promise<unknown>,
): Promise<{ code: string; issues: readonly ValidationIssue[] }> {
  try {
    await run();
  } catch (error) {
    if (!isMdStoreError(error)) throw error;
    return { code: error.code, issues: error instanceof InputError ? error.issues : [] };
  }
  throw new Error('expected the call to fail');
}

/** The one 422 issue of a failing call, as `[loc, type, msg]`. */
async function issueOf(run: () => Promise<unknown>): Promise<[readonly (string | number)[], string, string]> {
  const { code, issues } = await failure(run);
  expect(code).toBe('INVALID_INPUT');
  expect(issues).toHaveLength(1);
  return [issues[0]!.loc, issues[0]!.type, issues[0]!.msg];
}

/** Every page of a walk with `limit`, following `next_cursor`. */
async function walk(
  search: (body: unknown) => Promise<SearchAnswer>,
  body: Body,
): Promise<{ pages: string[][]; totals: number[] }> {
  const pages: string[][] = [];
  const totals: number[] = [];
  let cursor: string | null = null;
  do {
    const answer: SearchAnswer = await search({ ...body, ...(cursor !== null && { cursor }) });
    pages.push(filenames(answer));
    totals.push(answer.totalCount);
    cursor = answer.nextCursor;
    if (pages.length > 50) throw new Error('the walk does not end');
  } while (cursor !== null);
  return { pages, totals };
}

describe('the body of a search', () => {
  it('must be a JSON object: anything else is 422 at ["body"]', async () => {
    const { search } = await scene();
    for (const body of [null, [], 'query', 42, true]) {
      expect(await issueOf(() => search(body))).toEqual([
        ['body'],
        'model_attributes_type',
        'Input should be a valid dictionary or object',
      ]);
    }
  });

  it('checks the project before the body: 404 for an unknown project, 403 for another account’s', async () => {
    const { store, search } = await scene();
    const bob: TestAccount = await anAccount(store, 'bob');
    expect(await codeOf(() => search({ limit: 0 }, '0f8fad5b-d9cb-469f-a165-70867728950e'))).toBe(
      'PROJECT_NOT_FOUND',
    );
    expect(await codeOf(() => search({ limit: 0 }, bob.defaultProjectId))).toBe('FORBIDDEN');
  });

  it('refuses an unknown sort or order, and relevance without a query', async () => {
    const { search } = await scene();
    const sortMsg = "Input should be 'relevance', 'filename', 'created_date', 'updated_date' or 'size_bytes'";
    for (const sort of ['name', 'Filename', 7, '']) {
      expect(await issueOf(() => search({ sort }))).toEqual([['body', 'sort'], 'literal_error', sortMsg]);
    }
    for (const order of ['up', 'ASC', 1]) {
      expect(await issueOf(() => search({ order }))).toEqual([
        ['body', 'order'],
        'literal_error',
        "Input should be 'asc' or 'desc'",
      ]);
    }
    const needsQuery = [['body', 'sort'], 'value_error', 'Value error, sort relevance needs a query'];
    expect(await issueOf(() => search({ sort: 'relevance' }))).toEqual(needsQuery);
    expect(await issueOf(() => search({ sort: 'relevance', query: null }))).toEqual(needsQuery);
    expect((await search({ sort: 'relevance', query: 'x' })).results).toEqual([]);
  });

  it('takes a limit from 1 to 100 and refuses anything else at ["body","limit"]', async () => {
    const { search } = await scene();
    for (const limit of [1.5, '5', true, []]) {
      expect(await issueOf(() => search({ limit }))).toEqual([
        ['body', 'limit'],
        'int_type',
        'Input should be a valid integer',
      ]);
    }
    for (const limit of [0, -1]) {
      expect(await issueOf(() => search({ limit }))).toEqual([
        ['body', 'limit'],
        'greater_than_equal',
        'Input should be greater than or equal to 1',
      ]);
    }
    expect(await issueOf(() => search({ limit: 101 }))).toEqual([
      ['body', 'limit'],
      'less_than_equal',
      'Input should be less than or equal to 100',
    ]);
    expect((await search({ limit: 1 })).nextCursor).toBeNull();
    expect((await search({ limit: 100 })).nextCursor).toBeNull();
  });

  it('refuses a cursor that is not a string, and one it did not issue', async () => {
    const { search } = await scene();
    expect(await issueOf(() => search({ cursor: 5 }))).toEqual([
      ['body', 'cursor'],
      'string_type',
      'Input should be a valid string',
    ]);
    for (const cursor of ['', 'abc', 'x'.repeat(3000)]) {
      expect(await issueOf(() => search({ cursor }))).toEqual([
        ['body', 'cursor'],
        'value_error',
        'Value error, invalid cursor',
      ]);
    }
  });

  it('counts a field that is JSON null as not given, and ignores unknown fields', async () => {
    const { put, search } = await scene();
    for (let i = 0; i < 22; i++) await put(`f${String(i).padStart(2, '0')}.md`, `# note ${i}`);
    const answer = await search({
      query: null,
      filter: null,
      sort: null,
      order: null,
      limit: null,
      cursor: null,
      project_ids: null,
      unknown: { anything: 1 },
    });
    expect(answer.results).toHaveLength(20);
    expect(answer.results[0]!.file.filename).toBe('f00.md');
    expect(answer.results[19]!.file.filename).toBe('f19.md');
    expect(answer.results.every((r) => r.score === null && r.snippets.length === 0)).toBe(true);
    expect(answer.totalCount).toBe(22);
    expect(answer.nextCursor).toEqual(expect.any(String));
  });

  it('refuses project_ids on a project’s search, and checks them on the account’s search', async () => {
    const { search, alice } = await scene();
    expect(await issueOf(() => search({ project_ids: [alice.defaultProjectId] }))).toEqual([
      ['body', 'project_ids'],
      'extra_forbidden',
      'Extra inputs are not permitted',
    ]);
    expect(await issueOf(() => search({ project_ids: alice.defaultProjectId }, ACCOUNT))).toEqual([
      ['body', 'project_ids'],
      'list_type',
      'Input should be a valid list',
    ]);
    expect(
      await issueOf(() => search({ project_ids: [alice.defaultProjectId, 'not-a-uuid'] }, ACCOUNT)),
    ).toEqual([['body', 'project_ids', 1], 'uuid_parsing', 'Input should be a valid UUID']);
    expect(await issueOf(() => search({ project_ids: [[alice.defaultProjectId]] }, ACCOUNT))).toEqual([
      ['body', 'project_ids', 0],
      'uuid_parsing',
      'Input should be a valid UUID',
    ]);
    expect(await issueOf(() => search({ project_ids: [7] }, ACCOUNT))).toEqual([
      ['body', 'project_ids', 0],
      'uuid_parsing',
      'Input should be a valid UUID',
    ]);
    for (const bad of [
      ` ${alice.defaultProjectId}`,
      `${alice.defaultProjectId}0`,
      alice.defaultProjectId.slice(1),
    ]) {
      expect(await issueOf(() => search({ project_ids: [bad] }, ACCOUNT))).toEqual([
        ['body', 'project_ids', 0],
        'uuid_parsing',
        'Input should be a valid UUID',
      ]);
    }
    const ids = (count: number) =>
      Array.from({ length: count }, (_, i) => `0f8fad5b-d9cb-469f-a165-${String(i).padStart(12, '0')}`);
    expect(await issueOf(() => search({ project_ids: ids(101) }, ACCOUNT))).toEqual([
      ['body', 'project_ids'],
      'too_long',
      'List should have at most 100 items',
    ]);
    // 100 ids pass the check: each is then looked up (none of them exists).
    expect(await codeOf(() => search({ project_ids: ids(100) }, ACCOUNT))).toBe('PROJECT_NOT_FOUND');
  });

  it('reports the first problem in the order query, filter, sort, order, limit, cursor, project_ids', async () => {
    const { search } = await scene();
    const bad = {
      query: 5,
      filter: 5,
      sort: 5,
      order: 5,
      limit: 0,
      cursor: 5,
      project_ids: 5,
    };
    const locs: (string | number)[][] = [];
    let body: Body = { ...bad };
    for (const field of Object.keys(bad)) {
      const [loc] = await issueOf(() => search(body, ACCOUNT));
      locs.push([...loc]);
      const { [field]: _dropped, ...rest } = body;
      body = rest;
    }
    expect(locs.map((loc) => loc[1])).toEqual(Object.keys(bad));
  });
});

describe('filters and sorts without a query', () => {
  /** Five files: sizes 3, 5, 5, 1, 8 bytes; created a minute apart in the order c, a, e, b, d. */
  async function sorted() {
    const s = await scene();
    const writes: [string, string][] = [
      ['c.md', '# c1'],
      ['a.md', '# a56'],
      ['e.md', '# e01'],
      ['b.md', 'b'],
      ['d.md', '# d12345'],
    ];
    for (const [name, text] of writes) {
      await s.put(name, text, { name: name[0], size: text.length });
      s.clock.advance(60_000);
    }
    // Updated in the order e, c, then the rest keep their creation time.
    await s.store.files.updateMetadata({ ...s.at, filename: 'e.md', body: { metadata: { name: 'e' } } });
    s.clock.advance(60_000);
    await s.store.files.updateMetadata({ ...s.at, filename: 'c.md', body: { metadata: { name: 'c' } } });
    return s;
  }

  it('lists every file by filename without a query or filter, asc by default and desc on demand', async () => {
    const { search, names } = await sorted();
    const answer = await search({});
    expect(filenames(answer)).toEqual(['a.md', 'b.md', 'c.md', 'd.md', 'e.md']);
    expect(answer.totalCount).toBe(5);
    expect(answer.nextCursor).toBeNull();
    expect(answer.results.map((r) => [r.score, r.snippets])).toEqual(Array(5).fill([null, []]));
    expect(answer.results[0]!.file).toMatchObject({
      filename: 'a.md',
      sizeBytes: 5,
      metadata: { name: 'a', size: 5 },
    });
    expect(await names({ order: 'desc' })).toEqual(['e.md', 'd.md', 'c.md', 'b.md', 'a.md']);
    expect(await names({ sort: 'filename', order: 'asc' })).toEqual(['a.md', 'b.md', 'c.md', 'd.md', 'e.md']);
  });

  it('sorts by size, breaking ties by filename in the direction of the order', async () => {
    const { names } = await sorted();
    expect(await names({ sort: 'size_bytes' })).toEqual(['b.md', 'c.md', 'a.md', 'e.md', 'd.md']);
    expect(await names({ sort: 'size_bytes', order: 'desc' })).toEqual([
      'd.md',
      'e.md',
      'a.md',
      'c.md',
      'b.md',
    ]);
  });

  it('sorts by creation and by update date', async () => {
    const { names } = await sorted();
    expect(await names({ sort: 'created_date' })).toEqual(['c.md', 'a.md', 'e.md', 'b.md', 'd.md']);
    expect(await names({ sort: 'created_date', order: 'desc' })).toEqual([
      'd.md',
      'b.md',
      'e.md',
      'a.md',
      'c.md',
    ]);
    expect(await names({ sort: 'updated_date' })).toEqual(['a.md', 'b.md', 'd.md', 'e.md', 'c.md']);
    expect(await names({ sort: 'updated_date', order: 'desc' })).toEqual([
      'c.md',
      'e.md',
      'd.md',
      'b.md',
      'a.md',
    ]);
  });

  it('keeps the files a filter matches: pushed-down fields, metadata, and both together', async () => {
    const { search, names } = await sorted();
    expect(await names({ filter: { field: 'size_bytes', op: 'gte', value: 5 } })).toEqual([
      'a.md',
      'd.md',
      'e.md',
    ]);
    expect(await names({ filter: { field: 'metadata.size', op: 'lt', value: 5 } })).toEqual(['b.md']);
    expect(await names({ filter: { field: 'metadata.size', op: 'exists', value: false } })).toEqual([
      'c.md',
      'e.md',
    ]);
    const both = await search({
      filter: {
        and: [
          { field: 'filename', op: 'ne', value: 'a.md' },
          {
            or: [
              { field: 'metadata.name', op: 'in', value: ['a', 'd', 'e'] },
              { field: 'size_bytes', op: 'eq', value: 1 },
            ],
          },
        ],
      },
      order: 'desc',
    });
    expect(filenames(both)).toEqual(['e.md', 'd.md', 'b.md']);
    expect(both.totalCount).toBe(3);
    expect(await names({ filter: { not: { field: 'metadata.name', op: 'prefix', value: 'd' } } })).toEqual([
      'a.md',
      'b.md',
      'c.md',
      'e.md',
    ]);
  });

  it('answers nothing for a filter that can never match, without reading the store', async () => {
    const { search } = await sorted();
    for (const filter of [
      { field: 'size_bytes', op: 'eq', value: 'five' },
      {
        and: [
          { field: 'revision', op: 'lt', value: 'x' },
          { field: 'filename', op: 'exists', value: true },
        ],
      },
    ]) {
      expect(await search({ filter })).toEqual({ results: [], totalCount: 0, nextCursor: null });
    }
  });

  it('reports a malformed filter at its loc under ["body","filter"]', async () => {
    const { search } = await sorted();
    const [loc, type] = await issueOf(() =>
      search({
        filter: {
          and: [
            { field: 'size_bytes', op: 'eq', value: 1 },
            { field: 'nope', op: 'eq', value: 1 },
          ],
        },
      }),
    );
    expect(loc.slice(0, 2)).toEqual(['body', 'filter']);
    expect(loc.length).toBeGreaterThan(2);
    expect(type).toBe('value_error');
  });
});

describe('a query', () => {
  async function notes() {
    const s = await scene();
    await s.put('notes/alpha.md', 'Alpha release notes.\nThe quick brown fox jumps.', {
      title: 'Release plan',
    });
    await s.put('beta.md', '---\ntags: [draft]\nowner: Zoë\n---\nBeta is slower than alpha.');
    await s.put('gamma.md', 'Gamma rays. The brown dog sleeps.');
    await s.put('delta.md', 'Nothing here but release.');
    return s;
  }

  it('finds the files holding every word, a phrase, without excluded words, by prefix and with OR', async () => {
    const { names } = await notes();
    const found = async (query: string) => (await names({ query, sort: 'filename' })).join(' ');
    expect(await found('brown')).toBe('gamma.md notes/alpha.md');
    expect(await found('brown fox')).toBe('notes/alpha.md');
    expect(await found('"brown dog"')).toBe('gamma.md');
    expect(await found('"dog brown"')).toBe('');
    expect(await found('brown -fox')).toBe('gamma.md');
    expect(await found('brown -"quick brown"')).toBe('gamma.md');
    expect(await found('rel*')).toBe('delta.md notes/alpha.md');
    expect(await found('release OR gamma')).toBe('delta.md gamma.md notes/alpha.md');
    expect(await found('release or gamma')).toBe('');
    // The filename, metadata and front matter are searched too; case and diacritics do not count.
    expect(await found('NOTES')).toBe('notes/alpha.md');
    expect(await found('plan')).toBe('notes/alpha.md');
    expect(await found('zoe draft')).toBe('beta.md');
    expect(await found('nowhere')).toBe('');
  });

  it('ranks by relevance by default, best first whatever the order, with the score and snippets', async () => {
    const { search } = await notes();
    const answer = await search({ query: 'alpha' });
    expect(filenames(answer)).toEqual(['notes/alpha.md', 'beta.md']);
    expect(answer.totalCount).toBe(2);
    const [first, second] = answer.results;
    expect(first!.score).toBeGreaterThan(second!.score!);
    expect(second!.score).toBeGreaterThan(0);
    expect(first!.snippets).toEqual([
      { text: 'Alpha release notes.\nThe quick brown fox jumps.', highlights: [[0, 5]] },
    ]);
    expect(second!.snippets).toEqual([
      { text: '---\ntags: [draft]\nowner: Zoë\n---\nBeta is slower than alpha.', highlights: [[53, 58]] },
    ]);
    const desc = await search({ query: 'alpha', order: 'desc' });
    expect(desc.results).toEqual(answer.results);
    const explicit = await search({ query: 'alpha', sort: 'relevance', order: 'asc' });
    expect(explicit.results).toEqual(answer.results);
  });

  it('scores each match against all the matches, not only the page', async () => {
    const { search } = await notes();
    const whole = await search({ query: 'release OR gamma' });
    expect(filenames(whole)).toEqual(['gamma.md', 'notes/alpha.md', 'delta.md']);
    const scores = whole.results.map((r) => r.score!);
    expect(scores[0]).toBeGreaterThan(scores[1]!);
    expect(scores[1]).toBeGreaterThan(scores[2]!);
    const first = await search({ query: 'release OR gamma', limit: 1 });
    expect(first.results.map((r) => r.score)).toEqual([scores[0]]);
    const second = await search({ query: 'release OR gamma', limit: 1, cursor: first.nextCursor });
    expect(second.results.map((r) => [r.file.filename, r.score])).toEqual([['notes/alpha.md', scores[1]]]);
    expect(second.totalCount).toBe(3);
  });

  it('with another sort gives no score but still the snippets, each from its own file', async () => {
    const { search } = await notes();
    const answer = await search({ query: 'brown OR release', sort: 'filename', order: 'desc' });
    expect(answer.results.map((r) => [r.file.filename, r.score, r.snippets])).toEqual([
      [
        'notes/alpha.md',
        null,
        [
          {
            text: 'Alpha release notes.\nThe quick brown fox jumps.',
            highlights: [
              [6, 13],
              [31, 36],
            ],
          },
        ],
      ],
      ['gamma.md', null, [{ text: 'Gamma rays. The brown dog sleeps.', highlights: [[16, 21]] }]],
      ['delta.md', null, [{ text: 'Nothing here but release.', highlights: [[17, 24]] }]],
    ]);
    const phrase = await search({ query: '"brown dog"', sort: 'size_bytes' });
    expect(phrase.results[0]!.snippets).toEqual([
      {
        text: 'Gamma rays. The brown dog sleeps.',
        highlights: [
          [16, 21],
          [22, 25],
        ],
      },
    ]);
  });

  it('gives no snippet for a match outside the content, and a query with a filter keeps both', async () => {
    const { search } = await notes();
    const plan = await search({ query: 'plan' });
    expect(plan.results.map((r) => [r.file.filename, r.snippets])).toEqual([['notes/alpha.md', []]]);
    const filtered = await search({
      query: 'brown OR release',
      filter: { field: 'filename', op: 'prefix', value: 'notes/' },
    });
    expect(filenames(filtered)).toEqual(['notes/alpha.md']);
    expect(filtered.totalCount).toBe(1);
    const metadata = await search({
      query: 'release',
      filter: { field: 'metadata.title', op: 'exists', value: false },
    });
    expect(filenames(metadata)).toEqual(['delta.md']);
  });

  it('refuses a query that is not a string or has no word to find, at ["body","query"]', async () => {
    const { search } = await notes();
    expect(await issueOf(() => search({ query: 5 }))).toEqual([
      ['body', 'query'],
      'string_type',
      'Input should be a valid string',
    ]);
    for (const query of ['', '-alpha', '  ']) {
      const [loc, type] = await issueOf(() => search({ query }));
      expect([loc, type]).toEqual([['body', 'query'], 'value_error']);
    }
  });

  it('finds a file as soon as it is written and never once it is deleted', async () => {
    const { store, at, put, names } = await notes();
    expect(await names({ query: 'epsilon' })).toEqual([]);
    await put('e.md', 'epsilon');
    expect(await names({ query: 'epsilon' })).toEqual(['e.md']);
    await store.files.updateContent({ ...at, filename: 'e.md', content: textStream('zeta') });
    expect(await names({ query: 'epsilon' })).toEqual([]);
    expect(await names({ query: 'zeta' })).toEqual(['e.md']);
    await store.files.delete({ ...at, filename: 'e.md' });
    expect(await names({ query: 'zeta' })).toEqual([]);
  });
});

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

describe('what a search reads from its store', () => {
  interface Read {
    readonly withText: boolean;
    readonly limit: number;
    readonly fileIds: number | null;
    readonly after: string | null;
  }

  /** Records whose `findSearchCandidates` calls are logged; with `loose`, the index ignores the query. */
  function logged(reads: Read[], options: { loose?: boolean } = {}) {
    return (inner: RecordsRepository): RecordsRepository =>
      new Proxy(inner, {
        get(target, property) {
          if (property === 'findSearchCandidates') {
            return (q: SearchCandidatesQuery) => {
              reads.push({
                withText: q.withText,
                limit: q.limit,
                fileIds: q.fileIds?.length ?? null,
                after: q.after ? q.after.filename : null,
              });
              return target.findSearchCandidates(options.loose ? { ...q, query: null } : q);
            };
          }
          const value = Reflect.get(target, property, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
  }

  const name = (i: number) => `f${String(i).padStart(4, '0')}.md`;

  it('reads the candidates in batches of 500 until a batch is short', async () => {
    const reads: Read[] = [];
    const { records, at, search } = await scene({ wrapRecords: logged(reads) });
    const project = (await records.findProjectById({ projectId: at.projectId }))!;
    await records.withTransaction(async (tx) => {
      for (let i = 0; i < 1001; i++) {
        const file = aFile({ projectId: project.id, filename: name(i), sizeBytes: i });
        await tx.insertFile({ file });
        await tx.indexFile({ file, contentText: i % 2 === 0 ? 'even' : 'odd' });
      }
    });
    const all = await search({ limit: 3, order: 'desc' });
    expect(filenames(all)).toEqual([name(1000), name(999), name(998)]);
    expect(all.totalCount).toBe(1001);
    expect(reads).toEqual([
      { withText: false, limit: 500, fileIds: null, after: null },
      { withText: false, limit: 500, fileIds: null, after: name(499) },
      { withText: false, limit: 500, fileIds: null, after: name(999) },
    ]);
    reads.length = 0;
    const filtered = await search({ filter: { field: 'size_bytes', op: 'lt', value: 500 }, limit: 1 });
    expect(filtered.totalCount).toBe(500);
    expect(reads.map((r) => r.after)).toEqual([null, name(499)]);
    reads.length = 0;
    const even = await search({ query: 'even', sort: 'size_bytes', order: 'desc', limit: 2 });
    expect(filenames(even)).toEqual([name(1000), name(998)]);
    expect(even.totalCount).toBe(501);
    expect(reads.filter((r) => !r.withText).map((r) => r.after)).toEqual([null, name(998)]);
    // The text of the candidates is read 50 at a time, then once for the page's snippets.
    const texts = reads.filter((r) => r.withText).map((r) => r.fileIds);
    expect(texts).toEqual([...Array(10).fill(50), 1, 2]);
    expect(reads.filter((r) => r.withText).map((r) => r.limit)).toEqual([...Array(10).fill(50), 1, 2]);
    expect(even.results[0]!.snippets).toEqual([{ text: 'even', highlights: [[0, 4]] }]);
  });

  it('counts up to 10 000 matches, and ranks only the first 10 000 the store gives', async () => {
    const { records, at, search } = await scene();
    await records.withTransaction(async (tx) => {
      for (let i = 0; i < 10_000; i++) {
        const file = aFile({
          projectId: at.projectId,
          filename: `f${String(i).padStart(5, '0')}.md`,
          sizeBytes: 5,
        });
        await tx.insertFile({ file });
        await tx.indexFile({ file, contentText: 'word' });
      }
      // Last in the store's order, and the best match of all.
      const best = aFile({ projectId: at.projectId, filename: 'word.md', sizeBytes: 1 });
      await tx.insertFile({ file: best });
      await tx.indexFile({ file: best, contentText: 'word' });
    });
    const bySize = await search({ sort: 'size_bytes', limit: 1 });
    expect(filenames(bySize)).toEqual(['word.md']);
    expect(bySize.totalCount).toBe(10_000);
    const filtered = await search({ filter: { field: 'size_bytes', op: 'lt', value: 5 } });
    expect(filenames(filtered)).toEqual(['word.md']);
    expect(filtered.totalCount).toBe(1);
    const ranked = await search({ query: 'word', limit: 1 });
    expect(filenames(ranked)).toEqual(['f00000.md']);
    expect(ranked.totalCount).toBe(10_000);
  });

  it('decides the query itself when the store’s index narrows loosely', async () => {
    const reads: Read[] = [];
    const { put, names, search } = await scene({ wrapRecords: logged(reads, { loose: true }) });
    await put('a.md', 'brown fox');
    await put('b.md', 'brown dog');
    await put('c.md', 'red fox');
    expect(await names({ query: 'fox', sort: 'filename' })).toEqual(['a.md', 'c.md']);
    expect(await names({ query: '"brown fox"' })).toEqual(['a.md']);
    expect(await names({ query: 'fox -brown' })).toEqual(['c.md']);
    const answer = await search({ query: 'dog OR red' });
    expect(filenames(answer).sort()).toEqual(['b.md', 'c.md']);
    expect(answer.totalCount).toBe(2);
  });

  it('leaves out a file deleted while its text is read, and gives no snippet for one deleted before its page', async () => {
    let before: ((q: SearchCandidatesQuery) => Promise<void>) | undefined;
    const hooked = (inner: RecordsRepository): RecordsRepository =>
      new Proxy(inner, {
        get(target, property) {
          if (property === 'findSearchCandidates') {
            return async (q: SearchCandidatesQuery) => {
              const hook = q.withText ? before : undefined;
              if (hook) {
                before = undefined;
                await hook(q);
              }
              return target.findSearchCandidates(q);
            };
          }
          const value = Reflect.get(target, property, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    const { store, at, put, search } = await scene({ wrapRecords: hooked });
    await put('a.md', 'here');
    await put('b.md', 'here');
    const remove = (filename: string) => async () => {
      await store.files.delete({ ...at, filename });
    };
    // Deleted between the candidates and their text: not a match.
    before = remove('a.md');
    const answer = await search({ query: 'here', sort: 'filename' });
    expect(filenames(answer)).toEqual(['b.md']);
    expect(answer.totalCount).toBe(1);
    await put('a.md', 'here');
    // Both are known (cached) now; a.md is deleted before the page's text is read.
    await search({ query: 'here' });
    before = remove('a.md');
    const page = await search({ query: 'here', sort: 'filename' });
    expect(page.results.map((r) => [r.file.filename, r.snippets])).toEqual([
      ['a.md', []],
      ['b.md', [{ text: 'here', highlights: [[0, 4]] }]],
    ]);
  });

  it('keeps what it made of a file between searches until the file is written', async () => {
    const reads: Read[] = [];
    const { store, at, put, search } = await scene({ wrapRecords: logged(reads) });
    await put('a.md', 'one word');
    await put('b.md', 'two words');
    await put('c.md', 'three word');
    const textReads = () => reads.filter((r) => r.withText).map((r) => r.fileIds);
    const first = await search({ query: 'word' });
    // b.md holds `words`, not `word`.
    expect(textReads()).toEqual([2, 2]);
    reads.length = 0;
    const again = await search({ query: 'word' });
    expect(again.results).toEqual(first.results);
    expect(textReads()).toEqual([2]);
    reads.length = 0;
    await store.files.updateContent({ ...at, filename: 'c.md', content: textStream('three') });
    await store.files.updateMetadata({ ...at, filename: 'b.md', body: { metadata: { note: 'word' } } });
    const after = await search({ query: 'word' });
    expect(filenames(after).sort()).toEqual(['a.md', 'b.md']);
    expect(textReads()).toEqual([1, 2]);
    reads.length = 0;
    await search({ query: 'word', sort: 'filename' });
    expect(textReads()).toEqual([2]);
    // No text is read for a page without a query, nor for an empty page.
    reads.length = 0;
    expect(filenames(await search({ sort: 'filename' }))).toEqual(['a.md', 'b.md', 'c.md']);
    expect(await search({ query: 'nowhere' })).toEqual({ results: [], totalCount: 0, nextCursor: null });
    expect(reads).toEqual([
      { withText: false, limit: 500, fileIds: null, after: null },
      { withText: false, limit: 500, fileIds: null, after: null },
    ]);
  });
});

describe('the content read again when a write reuses a stored version', () => {
  for (const [form, settings] of [
    ['blob', { inlineMaxBytes: 0 }],
    ['inline', { inlineMaxBytes: 64 * 1024 }],
  ] as const) {
    it(`a restored revision is searched by its own content and front matter (${form})`, async () => {
      const { store, at, put, search, names } = await scene({ settings });
      await put('a.md', '---\ntitle: One\n---\nalpha words');
      await store.files.updateContent({ ...at, filename: 'a.md', content: textStream('beta words') });
      expect(await names({ query: 'alpha' })).toEqual([]);
      const restored = await store.files.restore({ ...at, filename: 'a.md', body: { revision: 1 } });
      expect(restored.frontmatter).toEqual({ title: 'One' });
      expect(await names({ query: 'beta' })).toEqual([]);
      const answer = await search({ query: 'alpha' });
      expect(answer.results.map((r) => [r.file.filename, r.file.revision, r.snippets])).toEqual([
        ['a.md', 3, [{ text: '---\ntitle: One\n---\nalpha words', highlights: [[19, 24]] }]],
      ]);
      expect(await names({ filter: { field: 'frontmatter.title', op: 'eq', value: 'One' } })).toEqual([
        'a.md',
      ]);
    });

    it(`a file put back from the trash is found again, under its new name (${form})`, async () => {
      const { store, at, put, names } = await scene({ settings });
      await store.projects.update({ ...at, body: { settings: { trash_retention_days: 7 } } });
      await put('a.md', '---\nowner: ann\n---\ndelta content');
      await store.files.delete({ ...at, filename: 'a.md' });
      expect(await names({ query: 'delta' })).toEqual([]);
      const [item] = (await store.trash.list(at)).trash;
      const back = await store.trash.restore({ ...at, trashId: item!.trashId, body: { to: 'b.md' } });
      expect(back.frontmatter).toEqual({ owner: 'ann' });
      expect(await names({ query: 'delta' })).toEqual(['b.md']);
      expect(await names({ query: 'ann' })).toEqual(['b.md']);
    });
  }

  it('a restored version whose content is gone is restored without its words', async () => {
    const stored: string[] = [];
    let gone: string | undefined;
    const { store, at, put, names } = await scene({
      settings: { inlineMaxBytes: 0 },
      wrapBlobs: (inner) => ({
        ...inner,
        put: async (request) => {
          stored.push(request.key);
          return inner.put(request);
        },
        get: async (request) => {
          if (request.key === gone) throw new BlobNotFoundError(request.bucket, request.key);
          return inner.get(request);
        },
      }),
    });
    await put('a.md', '---\ntitle: One\n---\nalpha');
    await store.files.updateContent({ ...at, filename: 'a.md', content: textStream('beta') });
    expect(stored).toHaveLength(2);
    gone = stored[0];
    const restored = await store.files.restore({ ...at, filename: 'a.md', body: { revision: 1 } });
    expect(restored.revision).toBe(3);
    expect(restored.frontmatter).toBeNull();
    expect(await names({ query: 'alpha' })).toEqual([]);
    expect(await names({ query: 'beta' })).toEqual([]);
    expect(await names({ query: 'a' })).toEqual(['a.md']);
  });
});
