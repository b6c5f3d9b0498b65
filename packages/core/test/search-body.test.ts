import { describe, expect, it } from 'vitest';
import { anAccount, codeOf, type TestAccount, textStream } from './support/fixture.js';
import { ACCOUNT, type Body, filenames, issueOf, scene } from './support/search-scene.js';

/**
 * Search (extensions §3) through the store's use case on the memory adapters: the checks of the body
 * (422 with `loc`), filters and sorts without a query, and queries (matching, ranking, snippets).
 */

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
