import {
  BlobNotFoundError,
  type FileView,
  type RecordsRepository,
  type SearchCandidatesQuery,
} from '@mdstore/core';
import { aFile } from '@mdstore/core/testing';
import { describe, expect, it } from 'vitest';
import { textStream } from './support/fixture.js';
import { filenames, scene } from './support/search-scene.js';

/**
 * Search (extensions §3) through the store's use case on the memory adapters: what it reads from its
 * stores (batches, text batches, the document cache), and the content read again when a write reuses
 * a stored version.
 */

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
      const back = (await store.trash.restore({
        ...at,
        trashId: item!.trashId,
        body: { to: 'b.md' },
      })) as FileView;
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
