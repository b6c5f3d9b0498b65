import type { ExportedFile, ProjectExport } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { EXPORT_PAGE_ROWS } from '../src/use-cases/export/index.js';
import {
  anAccount,
  codeOf,
  createFixture,
  overriding,
  readText,
  STORAGE_FORMS,
  textStream,
} from './support/fixture.js';

/**
 * Export (extensions §10) through the store's use case, on both storage forms: every file of the
 * project (or of a prefix) in filename order with the bytes of the version its view describes, page
 * after page; refusals before the first file; and what a write during the export does.
 */

async function collect(
  exported: ProjectExport,
): Promise<Array<{ file: ExportedFile['file']; text: string }>> {
  const out: Array<{ file: ExportedFile['file']; text: string }> = [];
  for await (const entry of exported.files)
    out.push({ file: entry.file, text: await readText(entry.content) });
  return out;
}

for (const [form, inlineMaxBytes] of STORAGE_FORMS) {
  describe(`exporting a project (${form} content)`, () => {
    async function scene(names: Record<string, string> = {}) {
      const fixture = createFixture({ settings: { inlineMaxBytes } });
      const alice = await anAccount(fixture.store, 'alice');
      const at = { principal: alice.principal, projectId: alice.defaultProjectId };
      for (const [filename, text] of Object.entries(names)) {
        await fixture.store.files.upload({ ...at, filename, content: textStream(text) });
      }
      return { ...fixture, alice, at };
    }

    it('gives every file in code-point order, bytes and view of the same version, and the project', async () => {
      const files = {
        'b.md': '# b\n',
        'a/z.md': '# a/z\n',
        'r\u00e9sum\u00e9 \u65e5\u672c.mdx': '# R\u00e9sum\u00e9 \u{1F600}\n',
        'A.md': '# A\n',
        'a.md': '',
      };
      const { store, at } = await scene({ ...files, 'a.md': '# a\n' });
      await store.files.updateMetadata({ ...at, filename: 'b.md', body: { metadata: { tags: ['x'] } } });
      const exported = await store.projects.export(at);
      expect(exported.project).toEqual(await store.projects.get(at));
      const out = await collect(exported);
      expect(out.map((e) => e.file.filename)).toEqual([
        'A.md',
        'a.md',
        'a/z.md',
        'b.md',
        'r\u00e9sum\u00e9 \u65e5\u672c.mdx',
      ]);
      for (const entry of out) {
        const current = await store.files.read({ ...at, filename: entry.file.filename, open: false });
        expect(entry.file).toEqual(current.file);
        expect(entry.file.sizeBytes).toBe(Buffer.byteLength(entry.text));
      }
      expect(out.find((e) => e.file.filename === 'b.md')?.file).toMatchObject({
        revision: 2,
        metadata: { tags: ['x'] },
      });
      expect(out.find((e) => e.file.filename === 'a/z.md')?.text).toBe('# a/z\n');
    });

    it('narrows to a prefix; an empty project or prefix gives no file', async () => {
      const { store, at } = await scene({
        'guides/a.md': 'a',
        'guides/deep/b.md': 'b',
        'guidesx.md': 'x',
        'top.md': 't',
      });
      const guides = await collect(await store.projects.export({ ...at, prefix: 'guides/' }));
      expect(guides.map((e) => e.file.filename)).toEqual(['guides/a.md', 'guides/deep/b.md']);
      expect(await collect(await store.projects.export({ ...at, prefix: 'none/' }))).toEqual([]);
      const empty = await store.projects.create({ ...at, body: { name: 'Empty' } });
      expect(await collect(await store.projects.export({ ...at, projectId: empty.id }))).toEqual([]);
    });

    it(`walks page after page (${EXPORT_PAGE_ROWS} records a statement) and never holds more than one page`, async () => {
      const count = EXPORT_PAGE_ROWS * 2 + 7;
      const names = Object.fromEntries(
        Array.from({ length: count }, (_, i) => [`n/${String(i).padStart(4, '0')}.md`, `# ${i}\n`]),
      );
      const fixture = createFixture({ settings: { inlineMaxBytes } });
      const alice = await anAccount(fixture.store, 'alice');
      const at = { principal: alice.principal, projectId: alice.defaultProjectId };
      for (const [filename, text] of Object.entries(names))
        await fixture.store.files.upload({ ...at, filename, content: textStream(text) });
      const limits: number[] = [];
      const spied = fixture.restart({
        records: overriding(fixture.records, {
          listFilePage: (q) => {
            limits.push(q.limit);
            return fixture.records.listFilePage(q);
          },
        }),
      });
      const out = await collect(await spied.projects.export(at));
      expect(out.map((e) => e.text)).toEqual(Object.values(names));
      expect(limits).toEqual([EXPORT_PAGE_ROWS, EXPORT_PAGE_ROWS, EXPORT_PAGE_ROWS]);
    });

    it('refuses another account, a missing project and a bad prefix before giving anything', async () => {
      const { store, at } = await scene({ 'a.md': 'a' });
      const bob = await anAccount(store, 'bob');
      expect(await codeOf(() => store.projects.export({ ...at, principal: bob.principal }))).toBe(
        'FORBIDDEN',
      );
      expect(
        await codeOf(() =>
          store.projects.export({ ...at, projectId: '00000000-0000-4000-8000-000000000000' }),
        ),
      ).toBe('PROJECT_NOT_FOUND');
      const bad = await store.projects.export({ ...at, prefix: 'x'.repeat(1025) }).catch((e: unknown) => e);
      expect(bad).toMatchObject({ code: 'INVALID_INPUT', issues: [{ loc: ['query', 'prefix'] }] });
    });

    it('a file replaced (and its version pruned) after its page was read comes in its new version, whole', async () => {
      const { store, at } = await scene({ 'a.md': '# a\n', 'b.md': '# b one\n', 'c.md': '# c\n' });
      await store.projects.update({ ...at, body: { settings: { keep_revisions: 1 } } });
      const files = (await store.projects.export(at)).files[Symbol.asyncIterator]();
      const first = await files.next();
      expect(first.value?.file.filename).toBe('a.md');
      await store.files.updateContent({ ...at, filename: 'b.md', content: textStream('# b two, longer\n') });
      await store.files.delete({ ...at, filename: 'c.md' });
      const second = await files.next();
      expect(second.value?.file).toMatchObject({ filename: 'b.md', revision: 2, sizeBytes: 16 });
      expect(await readText((second.value as ExportedFile).content)).toBe('# b two, longer\n');
      expect((await files.next()).done).toBe(true);
    });
  });
}

describe('exporting a project whose content is lost', () => {
  it('fails instead of leaving the file out', async () => {
    const fixture = createFixture({ settings: { inlineMaxBytes: 0 } });
    const alice = await anAccount(fixture.store, 'alice');
    const at = { principal: alice.principal, projectId: alice.defaultProjectId };
    await fixture.store.files.upload({ ...at, filename: 'a.md', content: textStream('# a\n') });
    const project = await fixture.store.projects.get(at);
    const file = await fixture.records.findFile({ projectId: at.projectId, filename: 'a.md' });
    await fixture.blobs.delete({ bucket: project.bucketName, key: file!.contentKey });
    const exported = await fixture.store.projects.export(at);
    await expect(collect(exported)).rejects.toThrow('the content of "a.md" could not be read');
  });
});
