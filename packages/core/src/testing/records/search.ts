import { describe, expect } from 'vitest';
import type { FileRecord } from '../../model/records.js';
import type { RecordsRepository, SearchCandidatesQuery } from '../../ports/records.js';
import { fileSearchDocument } from '../../search/file-document.js';
import { lookupPath } from '../../search/filter/json.js';
import {
  holdsNarrowing,
  holdsPushdown,
  type JsonNarrowing,
  type PushdownCondition,
} from '../../search/filter/pushdown.js';
import { matchesQuery } from '../../search/match.js';
import { parseQuery } from '../../search/query.js';
import { aFile, aRevision } from '../builders.js';
import { type SuiteContext, seedProject } from './support.js';

/** Inserts a file and indexes it with `text`, in one transaction, as the write path does. */
export async function seedIndexedFile(
  repo: RecordsRepository,
  overrides: Partial<FileRecord> & { projectId: string },
  text: string,
): Promise<FileRecord> {
  const file = aFile(overrides);
  await repo.withTransaction(async (tx) => {
    await tx.insertFile({ file });
    await tx.insertRevision({ revision: aRevision(file) });
    await tx.indexFile({ file, contentText: text });
  });
  return file;
}

const candidates = (repo: RecordsRepository, q: Partial<SearchCandidatesQuery> & { projectIds: string[] }) =>
  repo.findSearchCandidates({ query: null, conditions: [], withText: false, limit: 1000, ...q });

/** The files a query finds: the store's candidates, decided by the reference matcher. */
async function found(repo: RecordsRepository, projectIds: string[], text: string): Promise<string[]> {
  const query = parseQuery(text);
  const list = await candidates(repo, { projectIds, query, withText: true });
  return list
    .filter((c) => matchesQuery(query, fileSearchDocument(c.file, c.contentText ?? '')))
    .map((c) => c.file.filename);
}

/** A small corpus with words that are query syntax to FTS5 and to `to_tsquery`. */
const CORPUS: Record<string, { text: string; metadata?: unknown; frontmatter?: unknown }> = {
  'a.md': { text: 'The quick brown fox jumps NEAR the lazy dog. Café crème.' },
  'b.md': {
    text: 'column filter content:secret and "quoted" words & more | pipes ! bang',
    metadata: { tag: 'Alpha beta' },
  },
  'c.md': {
    text: 'AND OR NOT near prefixes: prefabricated prefix preface',
    frontmatter: { title: 'Straße guide' },
  },
  'd.md': { text: 'e-mail hyphen-ated ^caret *star* (paren) {brace} [bracket] :colon' },
  'e.md': { text: '東京都 と 大阪 日本語のテキスト ünïcödé ΣΊΣΥΦΟΣ' },
  'notes/f.md': { text: 'nothing special here, just a dog and a fox' },
};

const QUERIES = [
  'fox',
  'FOX dog',
  '"lazy dog"',
  '"dog lazy"',
  'fox -lazy',
  'pref*',
  'prefab* OR quick',
  'NEAR',
  'near(fox',
  'content:secret',
  'secret',
  'filename:a',
  '"quoted"',
  '" unclosed quote',
  'words & more',
  '!bang',
  '| pipes',
  '^caret',
  '*star*',
  'e-mail',
  'hyphen-ated',
  '(paren) {brace}',
  'colon:',
  'alpha',
  'strasse',
  'STRASSE guide',
  'cafe creme',
  '東京*',
  'unicode',
  'σίσυφος',
  'md',
  'notes',
  "it's a 'test'",
  'a:b:c d*e NOT f AND g',
  '-- -x fox',
  "' OR 1=1 --",
  'x:*',
];

export function searchSuite({ test }: SuiteContext): void {
  describe('search index', () => {
    test('finds the same files as the reference matcher, whatever the query syntax', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const other = await seedProject(repository);
      for (const [filename, entry] of Object.entries(CORPUS)) {
        await seedIndexedFile(
          repository,
          {
            projectId: project.id,
            filename,
            metadataJson: entry.metadata === undefined ? null : JSON.stringify(entry.metadata),
            frontmatterJson: entry.frontmatter === undefined ? null : JSON.stringify(entry.frontmatter),
          },
          entry.text,
        );
      }
      await seedIndexedFile(repository, { projectId: other.id, filename: 'a.md' }, 'fox everywhere');
      for (const text of QUERIES) {
        const query = parseQuery(text);
        const expected = Object.entries(CORPUS)
          .filter(([filename, entry]) =>
            matchesQuery(
              query,
              fileSearchDocument(
                aFile({
                  filename,
                  metadataJson: entry.metadata === undefined ? null : JSON.stringify(entry.metadata),
                  frontmatterJson: entry.frontmatter === undefined ? null : JSON.stringify(entry.frontmatter),
                }),
                entry.text,
              ),
            ),
          )
          .map(([filename]) => filename);
        expect(await found(repository, [project.id], text), text).toEqual(expected);
      }
      expect(await found(repository, [project.id, other.id], 'everywhere')).toEqual(['a.md']);
      expect(await found(repository, [project.id], 'fox')).toEqual(['a.md', 'notes/f.md']);
    });

    test('expandSearchPrefix: null, or at most `limit` indexed words with the prefix, in UTF-8 order (issue 34)', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const words = ['lob', 'loam', 'lo', 'lobby', 'lozenge', 'lot', 'lunar', 'alone'];
      await seedIndexedFile(
        repository,
        { projectId: project.id, filename: 'a.md' },
        words.slice(0, 4).join(' '),
      );
      await seedIndexedFile(
        repository,
        { projectId: project.id, filename: 'b.md' },
        words.slice(4).join(' '),
      );
      const all = await repository.expandSearchPrefix({ word: 'lo', limit: 100 });
      if (all === null) return;
      const utf8 = (word: string) => Buffer.from(word, 'utf8');
      const expected = ['lo', 'loam', 'lob', 'lobby', 'lot', 'lozenge'].sort((x, y) =>
        Buffer.compare(utf8(x), utf8(y)),
      );
      expect(all).toEqual(expected);
      expect(await repository.expandSearchPrefix({ word: 'lo', limit: 3 })).toEqual(expected.slice(0, 3));
      expect(await repository.expandSearchPrefix({ word: 'lob', limit: 100 })).toEqual(['lob', 'lobby']);
      expect(await repository.expandSearchPrefix({ word: 'zz', limit: 100 })).toEqual([]);
    });

    test('expandSearchPrefix: the words of the index as it is, after re-indexing, deletes and a project purge (issue 34)', async ({
      repository,
    }) => {
      const words = () => repository.expandSearchPrefix({ word: 'lo', limit: 100 });
      if ((await words()) === null) return;
      const project = await seedProject(repository);
      const other = await seedProject(repository);
      const a = await seedIndexedFile(repository, { projectId: project.id, filename: 'a.md' }, 'loam lob');
      const b = await seedIndexedFile(repository, { projectId: project.id, filename: 'b.md' }, 'lob lot');
      await seedIndexedFile(repository, { projectId: other.id, filename: 'c.md' }, 'lot lox');
      expect(await words()).toEqual(['loam', 'lob', 'lot', 'lox']);
      // Re-indexed: `loam` is gone with its only document, `lob` is still in b.md, `lo` and the
      // filename's `md` come in with the metadata.
      await repository.withTransaction((tx) =>
        tx.indexFile({ file: { ...a, metadataJson: '{"k":"lo"}' }, contentText: 'lob' }),
      );
      expect(await words()).toEqual(['lo', 'lob', 'lot', 'lox']);
      // A metadata write keeps the stored text: its words stay.
      await repository.withTransaction((tx) => tx.indexFile({ file: a, contentText: null }));
      expect(await words()).toEqual(['lob', 'lot', 'lox']);
      await repository.withTransaction((tx) => tx.deleteFile({ fileId: b.id }));
      expect(await words()).toEqual(['lob', 'lot', 'lox']);
      await repository.withTransaction((tx) => tx.deleteFile({ fileId: a.id }));
      expect(await words()).toEqual(['lot', 'lox']);
      // A rolled-back index write leaves the words as they were.
      await expect(
        repository.withTransaction(async (tx) => {
          await tx.indexFile({ file: aFile({ projectId: other.id }), contentText: 'lozenge' });
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(await words()).toEqual(['lot', 'lox']);
      for (let left = 1; left > 0; ) {
        left = await repository.withTransaction((tx) =>
          tx.purgeProjectRecords({ projectId: other.id, limit: 1 }),
        );
      }
      expect(await words()).toEqual([]);
    });

    test('a query-less search lists every file of the projects in (project, filename) order, paged', async ({
      repository,
    }) => {
      const first = await seedProject(repository);
      const second = await seedProject(repository);
      const [low, high] = [first.id, second.id].sort();
      for (const name of ['b.md', 'a.md', '\u00e9.md', 'Z.md'])
        for (const projectId of [low!, high!])
          await seedIndexedFile(repository, { projectId, filename: name }, '');
      // A file never indexed is listed too, without a text.
      const plain = aFile({ projectId: low!, filename: 'plain.md' });
      await repository.withTransaction((tx) => tx.insertFile({ file: plain }));
      const all = await candidates(repository, { projectIds: [high!, low!] });
      const expected = ['Z.md', 'a.md', 'b.md', 'plain.md', '\u00e9.md'];
      expect(all.map((c) => [c.file.projectId, c.file.filename])).toEqual([
        ...expected.map((name) => [low, name]),
        ...expected.filter((name) => name !== 'plain.md').map((name) => [high, name]),
      ]);
      expect(all.every((c) => c.contentText === null)).toBe(true);
      const page = await candidates(repository, {
        projectIds: [low!, high!],
        after: { projectId: low!, filename: 'b.md' },
        limit: 3,
      });
      expect(page.map((c) => [c.file.projectId, c.file.filename])).toEqual([
        [low, 'plain.md'],
        [low, '\u00e9.md'],
        [high, 'Z.md'],
      ]);
      const byId = await candidates(repository, { projectIds: [low!], fileIds: [plain.id] });
      expect(byId.map((c) => c.file)).toEqual([plain]);
      expect(await found(repository, [low!], 'plain')).toEqual([]);
    });

    test('a query reads at most `limit` candidates, and their text only when asked (a search’s cost bound)', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const text = 'lorem ipsum '.repeat(1000);
      const names = Array.from({ length: 9 }, (_, index) => `n${index}.md`);
      for (const filename of names)
        await seedIndexedFile(repository, { projectId: project.id, filename }, text);
      const query = parseQuery('lorem');
      const first = await candidates(repository, { projectIds: [project.id], query, limit: 4 });
      expect(first.map((c) => c.file.filename)).toEqual(names.slice(0, 4));
      expect(first.every((c) => c.contentText === null)).toBe(true);
      const next = await candidates(repository, {
        projectIds: [project.id],
        query: parseQuery('lo*'),
        after: { projectId: project.id, filename: 'n3.md' },
        limit: 4,
      });
      expect(next.map((c) => c.file.filename)).toEqual(names.slice(4, 8));
      // The text of exactly the files asked for, at most `limit` of them.
      const texts = await candidates(repository, {
        projectIds: [project.id],
        fileIds: first.map((c) => c.file.id),
        withText: true,
        limit: 2,
      });
      expect(texts.map((c) => [c.file.filename, c.contentText?.length])).toEqual([
        ['n0.md', text.length],
        ['n1.md', text.length],
      ]);
    });

    test('pushed-down conditions are exact', async ({ repository }) => {
      const project = await seedProject(repository);
      const files: FileRecord[] = [];
      const names = ['a.md', 'a%b.md', 'a_b.md', 'notes/x.md', 'notes/y.md', 'z.md', '\u00e9.md', 'A.md'];
      for (const [index, filename] of names.entries()) {
        files.push(
          await seedIndexedFile(
            repository,
            {
              projectId: project.id,
              filename,
              sizeBytes: index * 10,
              revision: (index % 3) + 1,
              createdAt: 1_700_000_000_000 + index,
              updatedAt: 1_700_000_000_000 + 2 * index,
            },
            `word${index % 2}`,
          ),
        );
      }
      const conditions: PushdownCondition[][] = [
        [{ field: 'filename', op: 'prefix', value: 'notes/' }],
        [{ field: 'filename', op: 'prefix', value: 'a%' }],
        [{ field: 'filename', op: 'contains', value: '_' }],
        [{ field: 'filename', op: 'contains', value: '%' }],
        [{ field: 'filename', op: 'lt', value: 'a_b.md' }],
        [{ field: 'filename', op: 'gte', value: 'z.md' }],
        [{ field: 'filename', op: 'in', value: ['z.md', 'A.md', 'missing.md'] }],
        [{ field: 'filename', op: 'ne', value: 'a.md' }],
        [{ field: 'size_bytes', op: 'gt', value: 25 }],
        [{ field: 'size_bytes', op: 'lte', value: 20.5 }],
        [{ field: 'revision', op: 'in', value: [1, 3] }],
        [{ field: 'created_date', op: 'gte', value: 1_700_000_000_003 }],
        [{ field: 'updated_date', op: 'lt', value: 1_700_000_000_004.5 }],
        [{ field: 'updated_date', op: 'eq', value: 1_700_000_000_002.5 }],
        [{ field: 'updated_date', op: 'eq', value: 1_700_000_000_002 }],
        [{ field: 'size_bytes', op: 'in', value: [10, 30, 31] }],
        [
          { field: 'size_bytes', op: 'ne', value: 0 },
          { field: 'filename', op: 'prefix', value: 'a' },
        ],
      ];
      for (const list of conditions) {
        const expected = files
          .filter((file) => list.every((condition) => holdsPushdown(condition, file)))
          .map((file) => file.filename)
          .sort((a, b) => (Buffer.from(a) < Buffer.from(b) ? -1 : 1));
        const got = await candidates(repository, { projectIds: [project.id], conditions: list });
        expect(
          got.map((c) => c.file.filename),
          JSON.stringify(list),
        ).toEqual(expected);
        const withQuery = await candidates(repository, {
          projectIds: [project.id],
          conditions: list,
          query: parseQuery('word1'),
        });
        const decided = withQuery.filter((c) =>
          matchesQuery(
            parseQuery('word1'),
            fileSearchDocument(c.file, `word${names.indexOf(c.file.filename) % 2}`),
          ),
        );
        expect(decided.map((c) => c.file.filename)).toEqual(
          expected.filter((name) => names.indexOf(name) % 2 === 1),
        );
      }
    });

    test('narrowing on JSON values keeps every file it holds for and leaves out those it cannot', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const documents: Record<string, { metadata?: unknown; frontmatter?: unknown }> = {
        'a.md': { metadata: { topic: 'api', tags: ['api', 'web'], n: 1, flag: true, title: 'Intro to API' } },
        'b.md': { metadata: { topic: 'web', tags: ['web'], n: 1.5, flag: false, title: 'API intro' } },
        'c.md': { frontmatter: { topic: 'api', a: { b: 'deep' } } },
        'd.md': { metadata: { topic: 'a\u0000pi', tags: 'api, web', n: '1', 'a.b': 'dotted' } },
        'e.md': { metadata: { topic: 1, tags: [1, 'apiary'], n: true, title: '\u00c9t\u00e9 "q"' } },
        'f.md': {},
      };
      const files: FileRecord[] = [];
      for (const [filename, json] of Object.entries(documents)) {
        files.push(
          await seedIndexedFile(
            repository,
            {
              projectId: project.id,
              filename,
              metadataJson: json.metadata === undefined ? null : JSON.stringify(json.metadata),
              frontmatterJson: json.frontmatter === undefined ? null : JSON.stringify(json.frontmatter),
            },
            'text',
          ),
        );
      }
      const meta = (keys: string[]) => ({ root: 'metadata' as const, keys });
      const narrowings: JsonNarrowing[] = [
        { kind: 'equals', ...meta(['topic']), values: ['api'] },
        { kind: 'equals', ...meta(['topic']), values: ['api', 'web', 1] },
        { kind: 'equals', ...meta(['n']), values: [1] },
        { kind: 'equals', ...meta(['n']), values: ['1'] },
        { kind: 'equals', ...meta(['flag']), values: [true] },
        { kind: 'equals', ...meta(['flag']), values: [false] },
        { kind: 'equals', ...meta(['a.b']), values: ['dotted'] },
        { kind: 'equals', ...meta(['title']), values: ['\u00c9t\u00e9 "q"'] },
        { kind: 'contains', ...meta(['tags']), value: 'api' },
        { kind: 'contains', ...meta(['title']), value: 'API' },
        { kind: 'contains', ...meta(['tags']), value: '' },
        { kind: 'prefix', ...meta(['title']), value: 'Intro' },
        { kind: 'prefix', ...meta(['tags']), value: 'api' },
        { kind: 'exists', ...meta(['flag']) },
        { kind: 'exists', ...meta(['topic']) },
        { kind: 'equals', root: 'frontmatter', keys: ['topic'], values: ['api'] },
        { kind: 'equals', root: 'frontmatter', keys: ['a', 'b'], values: ['deep'] },
        { kind: 'exists', root: 'frontmatter', keys: ['a', 'b'] },
      ];
      for (const narrowing of narrowings) {
        const got = (await candidates(repository, { projectIds: [project.id], narrowing: [narrowing] })).map(
          (c) => c.file.filename,
        );
        const label = JSON.stringify(narrowing);
        for (const file of files) {
          if (holdsNarrowing(narrowing, file))
            expect(got, `${label} keeps ${file.filename}`).toContain(file.filename);
          // No store may keep a file whose key is absent, or whose value is a string that fails (a JSON
          // text holding an escaped U+0000 anywhere may be kept: Postgres' jsonb cannot read it).
          const json = narrowing.root === 'metadata' ? file.metadataJson : file.frontmatterJson;
          const found = lookupPath(json === null ? null : JSON.parse(json), narrowing.keys);
          const far =
            !(json ?? '').includes('\\u0000') &&
            (!found.present || (typeof found.value === 'string' && !holdsNarrowing(narrowing, file)));
          if (far) expect(got, `${label} leaves out ${file.filename}`).not.toContain(file.filename);
        }
        // Narrowing and exact conditions together, paged.
        const both = await candidates(repository, {
          projectIds: [project.id],
          narrowing: [narrowing],
          conditions: [{ field: 'filename', op: 'ne', value: 'a.md' }],
          limit: 1,
        });
        expect(both.map((c) => c.file.filename)).toEqual(got.filter((name) => name !== 'a.md').slice(0, 1));
      }
    });

    test('re-indexing follows writes: new content, metadata only, delete, project delete', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const file = await seedIndexedFile(repository, { projectId: project.id, filename: 'n.md' }, 'apple');
      expect(await found(repository, [project.id], 'apple')).toEqual(['n.md']);
      const withMeta = { ...file, metadataJson: '{"k":"banana"}', revision: 2 };
      await repository.withTransaction(async (tx) => {
        await tx.updateFile({ file: withMeta });
        await tx.indexFile({ file: withMeta, contentText: null });
      });
      expect(await found(repository, [project.id], 'apple banana')).toEqual(['n.md']);
      const [withText] = await candidates(repository, { projectIds: [project.id], withText: true });
      expect(withText?.contentText).toBe('apple');
      await repository.withTransaction(async (tx) => {
        await tx.updateFile({ file: { ...withMeta, revision: 3 } });
        await tx.indexFile({ file: { ...withMeta, revision: 3 }, contentText: 'cherry' });
      });
      expect(await found(repository, [project.id], 'apple')).toEqual([]);
      expect(await found(repository, [project.id], 'cherry banana')).toEqual(['n.md']);
      // A rolled-back index write leaves the index as it was.
      await expect(
        repository.withTransaction(async (tx) => {
          await tx.indexFile({ file: withMeta, contentText: 'durian' });
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(await found(repository, [project.id], 'durian')).toEqual([]);
      await repository.withTransaction((tx) => tx.deleteFile({ fileId: file.id }));
      expect(await found(repository, [project.id], 'cherry')).toEqual([]);
      expect(await repository.listUnindexedFiles({ limit: 10 })).toEqual([]);
      await seedIndexedFile(repository, { projectId: project.id, filename: 'm.md' }, 'elder');
      await repository.withTransaction((tx) =>
        tx.purgeProjectRecords({ projectId: project.id, limit: 1000 }),
      );
      expect(await found(repository, [project.id], 'elder')).toEqual([]);
      // A file uploaded again under the same name is found by its new text only.
      await seedIndexedFile(repository, { projectId: project.id, filename: 'm.md' }, 'fig');
      expect(await found(repository, [project.id], 'elder')).toEqual([]);
      expect(await found(repository, [project.id], 'fig')).toEqual(['m.md']);
    });

    test('keeps the first 1 MiB of the text and lists files never indexed', async ({ repository }) => {
      const project = await seedProject(repository);
      const long = `${'lorem '.repeat(174_763)}tail`; // 1 048 578 bytes before "tail"
      const file = await seedIndexedFile(repository, { projectId: project.id, filename: 'l.md' }, long);
      const [stored] = await candidates(repository, { projectIds: [project.id], withText: true });
      expect(stored?.contentText).toBe(long.slice(0, 1024 * 1024));
      expect(await found(repository, [project.id], 'tail')).toEqual([]);
      const plain = aFile({ projectId: project.id, filename: 'p.md' });
      await repository.withTransaction((tx) => tx.insertFile({ file: plain }));
      expect(await repository.listUnindexedFiles({ limit: 10 })).toEqual([plain]);
      await repository.withTransaction((tx) => tx.indexFile({ file: plain, contentText: 'pear' }));
      expect(await repository.listUnindexedFiles({ limit: 10 })).toEqual([]);
      expect(await found(repository, [project.id], 'pear')).toEqual(['p.md']);
      expect(file.filename).toBe('l.md');
    });
  });
}
