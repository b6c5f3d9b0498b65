import { deferredBody } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { anAccount, codeOf, createFixture, STORAGE_FORMS, textStream } from './support/fixture.js';

/**
 * Metadata updates through the store's use case: a new revision with the same content, the history
 * counter when that revision prunes an older content version, and preconditions before the body. (The
 * mutation run found these reached only by the HTTP suites; see docs/testing.md.)
 */

for (const [form, inlineMaxBytes] of STORAGE_FORMS) {
  describe(`updating metadata (${form} content)`, () => {
    async function scene() {
      const fixture = createFixture({ settings: { inlineMaxBytes } });
      const alice = await anAccount(fixture.store, 'alice');
      const project = await fixture.store.projects.create({
        principal: alice.principal,
        body: { name: 'two', settings: { keep_revisions: 2 } },
      });
      const at = { principal: alice.principal, projectId: project.id };
      const file = { ...at, filename: 'a.md' };
      return { ...fixture, at, file };
    }

    it('frees the history of a content version its revision prunes, without touching updated_date', async () => {
      const { store, at, file, clock } = await scene();
      await store.files.upload({ ...file, content: textStream('a') });
      clock.advance(10);
      await store.files.updateContent({ ...file, content: textStream('bb') });
      const before = await store.projects.get(at);
      expect([before.totalSizeBytes, before.historySizeBytes]).toEqual([2, 1]);
      clock.advance(10);
      const updated = await store.files.updateMetadata({ ...file, body: { metadata: { tag: 'x' } } });
      expect(updated.revision).toBe(3);
      expect(updated.metadata).toEqual({ tag: 'x' });
      const after = await store.projects.get(at);
      expect([after.totalSizeBytes, after.historySizeBytes]).toEqual([2, 0]);
      expect(after.updatedAt).toBe(before.updatedAt);
      const revisions = await store.files.listRevisions(file);
      expect(revisions.revisions.map((r) => [r.revision, r.change])).toEqual([
        [3, 'metadata'],
        [2, 'content'],
      ]);
    });

    it('keeps the history counter when the pruned revision shares the current content', async () => {
      const { store, at, file } = await scene();
      await store.files.upload({ ...file, content: textStream('a') });
      await store.files.updateMetadata({ ...file, body: { metadata: { n: 1 } } });
      await store.files.updateMetadata({ ...file, body: { metadata: { n: 2 } } });
      const project = await store.projects.get(at);
      expect([project.totalSizeBytes, project.historySizeBytes]).toEqual([1, 0]);
    });

    it('refuses a stale If-Match before reading the body; nothing changes', async () => {
      const { store, file } = await scene();
      const uploaded = await store.files.upload({ ...file, content: textStream('a') });
      let read = false;
      const body = deferredBody({
        check: () => undefined,
        read: async () => {
          read = true;
          return { metadata: { tag: 'x' } };
        },
      });
      expect(
        await codeOf(() => store.files.updateMetadata({ ...file, body, conditions: { ifMatch: '"stale"' } })),
      ).toBe('PRECONDITION_FAILED');
      expect(read).toBe(false);
      const now = await store.files.read({ ...file, open: false });
      expect(now.file).toEqual(uploaded);
    });
  });
}
