import { BlobNotFoundError, type BlobStore, deferredBody, type RecordsRepository } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
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
 * Copy (extensions §5) through the store's use case, on both storage forms: what the copy is and
 * counts, preconditions before the body, the layered name checks (before the transaction, and the
 * store's unique rule inside it), and a source version that vanishes while it is copied. (The
 * mutation run found these reached only by the HTTP suites; see docs/testing.md.)
 */

for (const [form, inlineMaxBytes] of STORAGE_FORMS) {
  describe(`copying a file (${form} content)`, () => {
    async function scene(
      o: {
        wrapBlobs?: (inner: BlobStore) => BlobStore;
        wrapRecords?: (inner: RecordsRepository) => RecordsRepository;
      } = {},
    ) {
      const fixture = createFixture({ settings: { inlineMaxBytes }, ...o });
      const alice = await anAccount(fixture.store, 'alice');
      const at = { principal: alice.principal, projectId: alice.defaultProjectId };
      fixture.clock.advance(1000);
      const source = await fixture.store.files.upload({
        ...at,
        filename: 'a.md',
        content: textStream('# A\n'),
        metadata: '{"tag":"x"}',
      });
      fixture.clock.advance(1000);
      return { ...fixture, alice, at, source };
    }

    it('copies content and metadata into a new file at revision 1, counted in its project', async () => {
      const { store, at, source, clock } = await scene();
      const copy = await store.files.copy({ ...at, filename: 'a.md', body: { to: 'b.md' } });
      expect(copy).toMatchObject({ filename: 'b.md', revision: 1, sizeBytes: 4, metadata: { tag: 'x' } });
      expect(copy.sha256).toBe(source.sha256);
      expect(copy.createdAt).toBe(clock.now());
      expect(copy.etag).not.toBe(source.etag);
      const project = await store.projects.get(at);
      expect([project.fileCount, project.totalSizeBytes, project.historySizeBytes]).toEqual([2, 8, 0]);
      const read = await store.files.download({ ...at, filename: 'b.md' });
      expect(await readText(read.content)).toBe('# A\n');
      const revisions = await store.files.listRevisions({ ...at, filename: 'b.md' });
      expect(revisions.revisions.map((r) => [r.revision, r.change])).toEqual([[1, 'copy']]);
      expect(await store.files.read({ ...at, filename: 'a.md', open: false })).toMatchObject({
        file: source,
      });
    });

    it('copies into another project of the account, and to the same project named by its id', async () => {
      const { store, at, alice } = await scene();
      const other = await store.projects.create({ principal: alice.principal, body: { name: 'other' } });
      await store.files.copy({ ...at, filename: 'a.md', body: { to: 'a.md', project_id: other.id } });
      const there = await store.projects.get({ principal: alice.principal, projectId: other.id });
      expect([there.fileCount, there.totalSizeBytes]).toEqual([1, 4]);
      expect((await store.projects.get(at)).fileCount).toBe(1);
      await store.files.copy({ ...at, filename: 'a.md', body: { to: 'c.md', project_id: at.projectId } });
      expect((await store.projects.get(at)).fileCount).toBe(2);
    });

    it('refuses a stale If-Match before reading the body, and a taken name; nothing is copied', async () => {
      const { store, at } = await scene();
      let bodyRead = false;
      const body = deferredBody({
        check: () => undefined,
        read: async () => {
          bodyRead = true;
          return { to: 'b.md' };
        },
      });
      expect(
        await codeOf(() =>
          store.files.copy({ ...at, filename: 'a.md', body, conditions: { ifMatch: '"stale"' } }),
        ),
      ).toBe('PRECONDITION_FAILED');
      expect(bodyRead).toBe(false);
      await store.files.upload({ ...at, filename: 'b.md', content: textStream('b') });
      expect(await codeOf(() => store.files.copy({ ...at, filename: 'a.md', body: { to: 'b.md' } }))).toBe(
        'FILENAME_TAKEN',
      );
      expect((await store.projects.get(at)).fileCount).toBe(2);
    });

    it('answers FILENAME_TAKEN when the name is taken after its first check (the store refuses it)', async () => {
      let hide = false;
      const { store, at } = await scene({
        wrapRecords: (inner) =>
          overriding(inner, {
            findFile: async (q) => (hide && q.filename === 'b.md' ? null : inner.findFile(q)),
          }),
      });
      await store.files.upload({ ...at, filename: 'b.md', content: textStream('b') });
      hide = true;
      expect(await codeOf(() => store.files.copy({ ...at, filename: 'a.md', body: { to: 'b.md' } }))).toBe(
        'FILENAME_TAKEN',
      );
      hide = false;
      expect((await store.projects.get(at)).fileCount).toBe(2);
    });

    it('retries when the source version vanishes, and gives up with 404 after three attempts', async () => {
      const faults = { left: 0 };
      const gone = async () => {
        faults.left--;
        return null;
      };
      const { store, at } = await scene({
        wrapBlobs: (inner) => ({
          ...inner,
          get: async (o) => {
            if (faults.left > 0) {
              faults.left--;
              throw new BlobNotFoundError(o.bucket, o.key);
            }
            return inner.get(o);
          },
        }),
        wrapRecords: (inner) =>
          overriding(inner, {
            readInlineContent: async (q) => (faults.left > 0 ? gone() : inner.readInlineContent(q)),
          }),
      });
      faults.left = 2;
      const copy = await store.files.copy({ ...at, filename: 'a.md', body: { to: 'b.md' } });
      expect(copy.filename).toBe('b.md');
      expect(faults.left).toBe(0);
      faults.left = 3;
      expect(await codeOf(() => store.files.copy({ ...at, filename: 'a.md', body: { to: 'c.md' } }))).toBe(
        'FILE_NOT_FOUND',
      );
      expect(faults.left).toBe(0);
      expect((await store.projects.get(at)).fileCount).toBe(2);
    });
  });
}
