import { describe, expect } from 'vitest';
import type { FileLinksRecord, FileRecord, LinkRecord } from '../../model/records.js';
import type { RecordsRepository } from '../../ports/records.js';
import { type SuiteContext, seedFile, seedProject } from './support.js';

/** A link record with defaults: a Markdown link on line 1, located nowhere. */
function aLink(overrides: Partial<LinkRecord> & Pick<LinkRecord, 'seq'>): LinkRecord {
  return {
    line: 1,
    kind: 'markdown',
    raw: overrides.path ?? 'x.md',
    path: 'x.md',
    stem: null,
    anchor: null,
    start: null,
    end: null,
    ...overrides,
  };
}

function anEntry(
  file: FileRecord,
  links: LinkRecord[],
  overrides: Partial<FileLinksRecord> = {},
): FileLinksRecord {
  return {
    fileId: file.id,
    projectId: file.projectId,
    status: 'indexed',
    stem: file.filename.replace(/^.*\//, '').replace(/\.mdx?$/, ''),
    slugs: [],
    headings: [],
    links,
    ...overrides,
  };
}

const index = (repository: RecordsRepository, entry: FileLinksRecord) =>
  repository.withTransaction((tx) => tx.indexLinks({ entry }));

/** Extensions §9: the link index's store side (nothing is resolved there: the core joins names). */
export function linksSuite({ test }: SuiteContext): void {
  describe('link index', () => {
    test('keeps an entry exactly as written, replaces it whole, and has none for a file never indexed', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const file = await seedFile(repository, { projectId: project.id, filename: 'docs/ünï.md' });
      expect(await repository.findFileLinks({ fileId: file.id })).toBeNull();
      const entry = anEntry(
        file,
        [
          aLink({
            seq: 0,
            line: 3,
            raw: '../a%20b.md#Top',
            path: 'a b.md',
            anchor: 'Top',
            start: 10,
            end: 25,
          }),
          aLink({
            seq: 1,
            line: 4,
            kind: 'wiki',
            raw: 'Setup#Install',
            path: 'Setup',
            stem: 'Setup',
            anchor: 'Install',
          }),
          aLink({ seq: 2, line: 9, kind: 'wiki', raw: '#Local', path: null, stem: null, anchor: 'Local' }),
        ],
        { slugs: ['intro', 'intro-1'], headings: ['Intro', 'Intro'] },
      );
      await index(repository, entry);
      expect(await repository.findFileLinks({ fileId: file.id })).toEqual(entry);
      const replaced = anEntry(file, [aLink({ seq: 0, path: 'z.md' })], { status: 'too_large' });
      await index(repository, replaced);
      expect(await repository.findFileLinks({ fileId: file.id })).toEqual(replaced);
    });

    test('entries with many links round-trip in order (batched inserts)', async ({ repository }) => {
      const file = await seedFile(repository, { filename: 'big.md' });
      const links = Array.from({ length: 123 }, (_, seq) =>
        aLink({ seq, line: seq + 1, path: `p${seq}.md` }),
      );
      await index(repository, anEntry(file, links));
      expect((await repository.findFileLinks({ fileId: file.id }))?.links).toEqual(links);
    });

    test('listLinksTo finds links by path and wiki links by stem, in source then seq order, one project only', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const other = await seedProject(repository);
      const b = await seedFile(repository, { projectId: project.id, filename: 'b.md' });
      const a = await seedFile(repository, { projectId: project.id, filename: 'a.md' });
      const elsewhere = await seedFile(repository, { projectId: other.id, filename: 'a.md' });
      await index(
        repository,
        anEntry(b, [
          aLink({ seq: 0, path: 't.md' }),
          aLink({ seq: 1, kind: 'wiki', raw: 'dir/t', path: 'dir/t', stem: 't' }),
          aLink({ seq: 2, path: 'u.md' }),
          // A Markdown link's stem is never matched.
          aLink({ seq: 3, path: 'v.md', stem: 't' }),
        ]),
      );
      await index(repository, anEntry(a, [aLink({ seq: 0, kind: 'wiki', raw: 't', path: 't', stem: 't' })]));
      await index(repository, anEntry(elsewhere, [aLink({ seq: 0, path: 't.md' })]));
      const found = await repository.listLinksTo({ projectId: project.id, paths: ['t.md'], stems: ['t'] });
      expect(found.map(({ source, link }) => [source, link.seq])).toEqual([
        ['a.md', 0],
        ['b.md', 0],
        ['b.md', 1],
      ]);
      expect(found[0]!.sourceId).toBe(a.id);
      expect(await repository.listLinksTo({ projectId: project.id, paths: [], stems: [] })).toEqual([]);
    });

    test('findFileLinks pages the links of a file by seq', async ({ repository }) => {
      const project = await seedProject(repository);
      const file = await seedFile(repository, { projectId: project.id, filename: 'a.md' });
      await index(
        repository,
        anEntry(
          file,
          Array.from({ length: 5 }, (_, seq) => aLink({ seq, path: `p${seq}.md` })),
        ),
      );
      const seqs = async (q: { afterSeq?: number; limit?: number }) =>
        (await repository.findFileLinks({ fileId: file.id, ...q }))?.links.map((link) => link.seq);
      expect(await seqs({ limit: 2 })).toEqual([0, 1]);
      expect(await seqs({ afterSeq: 1, limit: 2 })).toEqual([2, 3]);
      expect(await seqs({ afterSeq: 3 })).toEqual([4]);
      expect(await seqs({ afterSeq: 4, limit: 2 })).toEqual([]);
    });

    test('listLinksTo pages: at most `limit` links, after a position, a link matched twice once', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const a = await seedFile(repository, { projectId: project.id, filename: 'a.md' });
      const b = await seedFile(repository, { projectId: project.id, filename: 'b.md' });
      // Path and stem both match the wiki links: each is still one row.
      const links = Array.from({ length: 6 }, (_, seq) =>
        seq % 2 === 0
          ? aLink({ seq, path: 't.md' })
          : aLink({ seq, kind: 'wiki', raw: 't', path: 't', stem: 't' }),
      );
      await index(repository, anEntry(a, links));
      await index(repository, anEntry(b, links.slice(0, 3)));
      const q = { projectId: project.id, paths: ['t.md', 't'], stems: ['t'] };
      const seen = (page: Awaited<ReturnType<typeof repository.listLinksTo>>) =>
        page.map(({ source, link }) => `${source}:${link.seq}`);
      expect(seen(await repository.listLinksTo(q))).toHaveLength(9);
      expect(seen(await repository.listLinksTo({ ...q, limit: 4 }))).toEqual([
        'a.md:0',
        'a.md:1',
        'a.md:2',
        'a.md:3',
      ]);
      expect(
        seen(await repository.listLinksTo({ ...q, limit: 4, after: { source: 'a.md', seq: 3 } })),
      ).toEqual(['a.md:4', 'a.md:5', 'b.md:0', 'b.md:1']);
      expect(
        seen(await repository.listLinksTo({ ...q, limit: 4, after: { source: 'b.md', seq: 1 } })),
      ).toEqual(['b.md:2']);
      expect(
        await repository.listLinksTo({ ...q, paths: ['t.md'], stems: [], after: { source: 'b.md', seq: 2 } }),
      ).toEqual([]);
    });

    test('listLinkTargets finds files by name (indexed or not) and by their entry stem', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const plain = await seedFile(repository, { projectId: project.id, filename: 'plain.md' });
      const guide = await seedFile(repository, { projectId: project.id, filename: 'docs/guide.md' });
      const other = await seedFile(repository, { projectId: project.id, filename: 'other.md' });
      await index(repository, anEntry(guide, [], { slugs: ['a'], headings: ['A'] }));
      await index(repository, anEntry(other, []));
      const found = await repository.listLinkTargets({
        projectId: project.id,
        filenames: ['plain.md', 'missing.md'],
        stems: ['guide'],
      });
      expect(found).toEqual([
        { fileId: guide.id, filename: 'docs/guide.md', stem: 'guide', slugs: ['a'], headings: ['A'] },
        { fileId: plain.id, filename: 'plain.md', stem: null, slugs: [], headings: [] },
      ]);
    });

    test('listLinkPage pages the project links in (source filename, seq) order after a position', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const x = await seedFile(repository, { projectId: project.id, filename: 'x.md' });
      const w = await seedFile(repository, { projectId: project.id, filename: 'w.md' });
      await index(repository, anEntry(x, [aLink({ seq: 0 }), aLink({ seq: 1 })]));
      await index(repository, anEntry(w, [aLink({ seq: 0 }), aLink({ seq: 1 }), aLink({ seq: 2 })]));
      const all = await repository.listLinkPage({ projectId: project.id, limit: 10 });
      expect(all.map(({ source, link }) => `${source}#${link.seq}`)).toEqual([
        'w.md#0',
        'w.md#1',
        'w.md#2',
        'x.md#0',
        'x.md#1',
      ]);
      const page = await repository.listLinkPage({
        projectId: project.id,
        after: { source: 'w.md', seq: 1 },
        limit: 2,
      });
      expect(page.map(({ source, link }) => `${source}#${link.seq}`)).toEqual(['w.md#2', 'x.md#0']);
    });

    test('listLinkPage marks exactly the links that resolve with no anchor to check', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const a = await seedFile(repository, { projectId: project.id, filename: 'a.md' });
      const b = await seedFile(repository, { projectId: project.id, filename: 'b.md' });
      const c1 = await seedFile(repository, { projectId: project.id, filename: 'one/c.md' });
      const c2 = await seedFile(repository, { projectId: project.id, filename: 'two/c.md' });
      for (const file of [b, c1, c2]) await index(repository, anEntry(file, []));
      const wiki = (seq: number, path: string, anchor: string | null = null) =>
        aLink({ seq, kind: 'wiki', path, stem: path.replace(/^.*\//, ''), anchor });
      await index(
        repository,
        anEntry(a, [
          aLink({ seq: 0, path: 'b.md' }),
          aLink({ seq: 1, path: 'missing.md' }),
          aLink({ seq: 2, path: 'b.md', anchor: 'top' }),
          wiki(3, 'b'),
          wiki(4, 'c'),
          wiki(5, 'nowhere'),
          wiki(6, 'b', 'Top'),
          aLink({ seq: 7, path: 'one/c.md', anchor: '' }),
          aLink({ seq: 8, path: null }),
        ]),
      );
      const page = await repository.listLinkPage({ projectId: project.id, limit: 20 });
      expect(page.filter((entry) => entry.resolved).map((entry) => entry.link.seq)).toEqual([0, 3, 7]);
    });

    test('deleting a file or a project removes its entries; files without one are listed for the backfill', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const kept = await seedFile(repository, { projectId: project.id, filename: 'kept.md' });
      const gone = await seedFile(repository, { projectId: project.id, filename: 'gone.md' });
      const bare = await seedFile(repository, { projectId: project.id, filename: 'bare.md' });
      await index(repository, anEntry(kept, [aLink({ seq: 0, path: 't.md' })]));
      await index(repository, anEntry(gone, [aLink({ seq: 0, path: 't.md' })]));
      await repository.withTransaction((tx) => tx.deleteFile({ fileId: gone.id }));
      expect(await repository.findFileLinks({ fileId: gone.id })).toBeNull();
      const to = await repository.listLinksTo({ projectId: project.id, paths: ['t.md'], stems: [] });
      expect(to.map(({ source }) => source)).toEqual(['kept.md']);
      const without = (await repository.listFilesWithoutLinks({ limit: 100 })).map((file) => file.id);
      expect(without).toContain(bare.id);
      expect(without).not.toContain(kept.id);
      await repository.withTransaction((tx) =>
        tx.purgeProjectRecords({ projectId: project.id, limit: 1000 }),
      );
      expect(await repository.findFileLinks({ fileId: kept.id })).toBeNull();
      expect(await repository.listLinkPage({ projectId: project.id, limit: 10 })).toEqual([]);
    });

    test('a rolled-back transaction leaves the index as it was', async ({ repository }) => {
      const file = await seedFile(repository, { filename: 'r.md' });
      const entry = anEntry(file, [aLink({ seq: 0, path: 'before.md' })]);
      await index(repository, entry);
      await expect(
        repository.withTransaction(async (tx) => {
          await tx.indexLinks({ entry: anEntry(file, [aLink({ seq: 0, path: 'after.md' })]) });
          throw new Error('rollback');
        }),
      ).rejects.toThrow('rollback');
      expect(await repository.findFileLinks({ fileId: file.id })).toEqual(entry);
    });
  });
}
