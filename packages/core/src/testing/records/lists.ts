import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { keysetOf, selectFilePage } from '../../listing/keyset.js';
import { readFileLevel } from '../../listing/walk.js';
import type { FileRecord } from '../../model/records.js';
import type { FilePageQuery, FileSortField, RecordsRepository } from '../../ports/records.js';
import { aFile, aRevision, BASE_TIME } from '../builders.js';
import { type SuiteContext, scramble, seedAccount, seedFile, seedProject } from './support.js';

const SORTS: readonly FileSortField[] = ['filename', 'createdAt', 'updatedAt', 'sizeBytes'];
const names = (files: readonly FileRecord[]) => files.map((file) => file.filename);

/** Every page of a query, walked with the keyset of each page's last row. */
async function walk(repository: RecordsRepository, query: Omit<FilePageQuery, 'after'>) {
  const seen: FileRecord[] = [];
  for (let pages = 0; pages < 100; pages++) {
    const last = seen.at(-1);
    const after =
      last === undefined
        ? undefined
        : query.sort === 'filename'
          ? { filename: last.filename }
          : { value: last[query.sort], filename: last.filename };
    const page = await repository.listFilePage({ ...query, ...(after && { after }) });
    seen.push(...page);
    if (page.length < query.limit) return seen;
  }
  throw new Error('the walk did not end');
}

/** A small deterministic generator (mulberry32), so the suite needs no property-testing library. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]! };
}

/** Names with folders, code points on both sides of the surrogates, and ones sharing prefixes. */
const NAME_PARTS = ['a', 'b', 'a/', 'b/', 'é', '\uE000', '\uFFFD', '\u{1F600}', '\uD7FF', '.', '-', 'Z'];

export function listsSuite({ test }: SuiteContext): void {
  describe('paged lists', () => {
    test('pages of every sort and order, with ties, agree with the reference order', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const rows: FileRecord[] = [];
      // Ties on every sort value: three creation times, two update times, two sizes.
      const filenames = ['c.md', 'a.md', 'b/x.md', 'B.md', 'a/b.md', 'é.md', '\u{1F600}.md', '\uFFFD.md'];
      for (const [index, filename] of scramble(filenames).entries()) {
        rows.push(
          await seedFile(repository, {
            projectId: project.id,
            filename,
            createdAt: BASE_TIME + (index % 3),
            updatedAt: BASE_TIME + 10 * (index % 2),
            sizeBytes: 100 + (index % 2),
          }),
        );
      }
      await seedFile(repository, { filename: 'a.md' }); // another project's
      for (const sort of SORTS) {
        for (const descending of [false, true]) {
          const query = { projectId: project.id, sort, descending, prefix: '' };
          const expected = selectFilePage(rows, { ...query, limit: 100 });
          expect(names(await walk(repository, { ...query, limit: 3 })), `${sort} ${descending}`).toEqual(
            names(expected),
          );
          expect(await repository.listFilePage({ ...query, limit: 100 })).toEqual(expected);
        }
      }
      const byFilename = await repository.listFilePage({
        projectId: project.id,
        sort: 'filename',
        descending: false,
        prefix: '',
        limit: 3,
      });
      expect(names(byFilename)).toEqual(['B.md', 'a.md', 'a/b.md']);
    });

    test('ties are broken by filename in the direction of the order', async ({ repository }) => {
      const project = await seedProject(repository);
      for (const filename of ['b.md', 'c.md', 'a.md'])
        await seedFile(repository, { projectId: project.id, filename, sizeBytes: 5 });
      await seedFile(repository, { projectId: project.id, filename: 'z.md', sizeBytes: 1 });
      const page = (descending: boolean, after?: { value: number; filename: string }) =>
        repository
          .listFilePage({
            projectId: project.id,
            sort: 'sizeBytes',
            descending,
            prefix: '',
            limit: 10,
            ...(after && { after }),
          })
          .then(names);
      expect(await page(false)).toEqual(['z.md', 'a.md', 'b.md', 'c.md']);
      expect(await page(true)).toEqual(['c.md', 'b.md', 'a.md', 'z.md']);
      expect(await page(false, { value: 5, filename: 'a.md' })).toEqual(['b.md', 'c.md']);
      expect(await page(true, { value: 5, filename: 'b.md' })).toEqual(['a.md', 'z.md']);
      // A position between rows (a deleted file's) resumes at the next row.
      expect(await page(false, { value: 3, filename: 'zz.md' })).toEqual(['a.md', 'b.md', 'c.md']);
    });

    test('prefix is a range of names, at code-point boundaries; inclusive positions', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const all = [
        'guide.md',
        'guides/a.md',
        'guides/b/c.md',
        'guides0.md',
        'guidesZ.md',
        '\uD7FF/a.md',
        '\uD7FFz.md',
        '\uE000.md',
        '\u{10FFFF}/x.md',
        '\u{10FFFF}\u{10FFFF}.md',
      ];
      for (const filename of scramble(all)) await seedFile(repository, { projectId: project.id, filename });
      const page = (prefix: string, extra: Partial<FilePageQuery> = {}) =>
        repository
          .listFilePage({
            projectId: project.id,
            sort: 'filename',
            descending: false,
            prefix,
            limit: 50,
            ...extra,
          })
          .then(names);
      expect(await page('guides/')).toEqual(['guides/a.md', 'guides/b/c.md']);
      expect(await page('guides')).toEqual(['guides/a.md', 'guides/b/c.md', 'guides0.md', 'guidesZ.md']);
      expect(await page('\uD7FF')).toEqual(['\uD7FF/a.md', '\uD7FFz.md']);
      expect(await page('\u{10FFFF}')).toEqual(['\u{10FFFF}/x.md', '\u{10FFFF}\u{10FFFF}.md']);
      expect(await page('nothing')).toEqual([]);
      expect(await page('guides', { after: { filename: 'guides/b' } })).toEqual([
        'guides/b/c.md',
        'guides0.md',
        'guidesZ.md',
      ]);
      // Skipping a folder: at or after the name with `0` for its `/`.
      expect(await page('', { after: { filename: 'guides0' }, inclusive: true, limit: 2 })).toEqual([
        'guides0.md',
        'guidesZ.md',
      ]);
      expect(await page('', { after: { filename: 'guides0.md' }, inclusive: true, limit: 1 })).toEqual([
        'guides0.md',
      ]);
      expect(await page('', { after: { filename: 'guides/' }, descending: true, limit: 2 })).toEqual([
        'guide.md',
      ]);
      const sized = await repository.listFilePage({
        projectId: project.id,
        sort: 'createdAt',
        descending: true,
        prefix: 'guides/',
        limit: 50,
      });
      expect(names(sized).sort()).toEqual(['guides/a.md', 'guides/b/c.md']);
    });

    test('counts the files of a prefix, and with a delimiter the level and its folders', async ({
      repository,
    }) => {
      const project = await seedProject(repository);
      const sizes: Record<string, number> = {
        'a.md': 1,
        'docs/a.md': 2,
        'docs/b.md': 4,
        'docs/x/y.md': 8,
        'docs/x/z/w.md': 16,
        'docs/y/a.md': 32,
        'docs0.md': 64,
        'é/a.md': 128,
      };
      for (const [filename, sizeBytes] of Object.entries(sizes))
        await seedFile(repository, { projectId: project.id, filename, sizeBytes });
      await seedFile(repository, { filename: 'docs/other-project.md' });
      const count = (prefix: string, delimiter: boolean) =>
        repository.countFiles({ projectId: project.id, prefix, delimiter });
      expect(await count('', false)).toEqual({ files: 8, sizeBytes: 255, folders: 0 });
      expect(await count('docs/', false)).toEqual({ files: 5, sizeBytes: 62, folders: 0 });
      expect(await count('', true)).toEqual({ files: 2, sizeBytes: 65, folders: 2 });
      expect(await count('docs/', true)).toEqual({ files: 2, sizeBytes: 6, folders: 2 });
      expect(await count('docs/x/', true)).toEqual({ files: 1, sizeBytes: 8, folders: 1 });
      expect(await count('docs/x', true)).toEqual({ files: 0, sizeBytes: 0, folders: 1 });
      expect(await count('é/', true)).toEqual({ files: 1, sizeBytes: 128, folders: 0 });
      expect(await count('missing/', true)).toEqual({ files: 0, sizeBytes: 0, folders: 0 });
      expect(await repository.countFiles({ projectId: randomUUID(), prefix: '', delimiter: false })).toEqual({
        files: 0,
        sizeBytes: 0,
        folders: 0,
      });
    });

    test('random files and queries agree with the reference page', async ({ repository }) => {
      const rng = random(20261123);
      const project = await seedProject(repository);
      const rows: FileRecord[] = [];
      const used = new Set<string>();
      while (rows.length < 40) {
        const stem = Array.from({ length: 1 + Math.floor(rng.next() * 4) }, () => rng.pick(NAME_PARTS)).join(
          '',
        );
        const filename = `${stem}.md`;
        if (used.has(filename) || filename.includes('//') || filename.startsWith('/')) continue;
        used.add(filename);
        rows.push(
          await seedFile(repository, {
            projectId: project.id,
            filename,
            createdAt: BASE_TIME + Math.floor(rng.next() * 4),
            updatedAt: BASE_TIME + Math.floor(rng.next() * 3),
            sizeBytes: Math.floor(rng.next() * 3),
          }),
        );
      }
      for (let round = 0; round < 60; round++) {
        const sort = rng.pick(SORTS);
        const anchor = rng.pick(rows);
        const query: FilePageQuery = {
          projectId: project.id,
          sort,
          descending: rng.next() < 0.5,
          prefix: rng.next() < 0.5 ? '' : rng.pick(NAME_PARTS),
          limit: 1 + Math.floor(rng.next() * 8),
          ...(rng.next() < 0.7 && {
            after: { filename: anchor.filename, ...(sort !== 'filename' && { value: anchor[sort] }) },
            inclusive: rng.next() < 0.3,
          }),
        };
        expect(names(await repository.listFilePage(query)), JSON.stringify(query)).toEqual(
          names(selectFilePage(rows, query)),
        );
      }
    });

    test('a walk while others write sees every unchanged file once (seeded random rounds)', async ({
      repository,
    }) => {
      const rng = random(7);
      const pool = [
        'a.md',
        'b.md',
        'a/x.md',
        'a/y.md',
        'a/b/z.md',
        'b/q.md',
        'c.md',
        'aa.md',
        'a0.md',
        'é.md',
      ];
      for (let round = 0; round < 12; round++) {
        const project = await seedProject(repository);
        const live = new Map<string, FileRecord>();
        let clock = BASE_TIME;
        const write = async () => {
          const name = rng.pick(pool);
          const existing = live.get(name);
          clock += Math.floor(rng.next() * 2);
          await repository.withTransaction(async (tx) => {
            if (!existing) {
              const file = aFile({
                projectId: project.id,
                filename: name,
                createdAt: clock,
                updatedAt: clock,
              });
              await tx.insertFile({ file });
              await tx.insertRevision({ revision: aRevision(file) });
              live.set(name, file);
            } else if (rng.next() < 0.5) {
              const file = { ...existing, sizeBytes: Math.floor(rng.next() * 3), updatedAt: clock };
              await tx.updateFile({ file });
              live.set(name, file);
            } else {
              await tx.deleteFile({ fileId: existing.id });
              live.delete(name);
            }
          });
          return name;
        };
        for (let i = 0; i < 8; i++) await write();
        const initial = new Set(live.keys());
        const sort = rng.pick(SORTS);
        const delimiter = sort === 'filename' && rng.next() < 0.5;
        const prefix = rng.pick(['', 'a', 'a/']);
        const query = { projectId: project.id, sort, descending: rng.next() < 0.5, prefix, delimiter };
        const touched = new Set<string>();
        const seen: string[] = [];
        let start: Parameters<typeof readFileLevel>[1]['start'];
        for (let page = 0; page < 50; page++) {
          const { entries, more } = await readFileLevel(repository, { ...query, start, want: 2 });
          seen.push(...entries.map((entry) => (entry.kind === 'file' ? entry.file.filename : entry.name)));
          const last = entries.at(-1);
          if (!more || !last) break;
          start =
            last.kind === 'file'
              ? { kind: 'file', keyset: keysetOf(last.file, sort) }
              : { kind: 'folder', folder: last.name };
          for (let i = Math.floor(rng.next() * 3); i > 0; i--) touched.add(await write());
        }
        const atLevel = (name: string) =>
          name.startsWith(prefix) && !(delimiter && name.indexOf('/', prefix.length) >= 0);
        for (const name of initial) {
          if (!atLevel(name) || touched.has(name)) continue;
          expect(
            seen.filter((item) => item === name),
            `${JSON.stringify(query)} ${name}`,
          ).toHaveLength(1);
        }
        if (sort === 'filename') expect(new Set(seen).size).toBe(seen.length);
      }
    });

    test('pages of the projects of an account in List Projects order, and their count', async ({
      repository,
    }) => {
      const account = await seedAccount(repository);
      const projects = [];
      for (const [index, createdAt] of [2, 1, 1, 3, 1].entries()) {
        projects.push(
          await seedProject(repository, {
            accountId: account.id,
            createdAt: BASE_TIME + createdAt,
            name: `p${index}`,
          }),
        );
      }
      await seedProject(repository); // another account's
      const expected = await repository.listProjects({ accountId: account.id });
      const seen = [];
      let after: { createdAt: number; id: string } | undefined;
      for (;;) {
        const page = await repository.listProjectPage({
          accountId: account.id,
          limit: 2,
          ...(after && { after }),
        });
        seen.push(...page);
        const last = page.at(-1);
        if (page.length < 2 || !last) break;
        after = { createdAt: last.createdAt, id: last.id };
      }
      expect(seen).toEqual(expected);
      expect(expected).toHaveLength(5);
      expect(await repository.countProjects({ accountId: account.id })).toBe(5);
      expect(await repository.countProjects({ accountId: randomUUID() })).toBe(0);
    });
  });
}
