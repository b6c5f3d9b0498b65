import { describe, expect, it } from 'vitest';
import { anAccount, codeOf, createFixture, readText, STORAGE_FORMS, textStream } from './support/fixture.js';

/**
 * Reading a file through the store's use case (`store.files.read`), on both storage forms: the
 * preconditions of a read (304 and 412), `HEAD` (nothing opened), `Range` and `If-Range` (extensions §2).
 * (The mutation run found these reached only by the HTTP suites; see docs/testing.md.)
 */

const TEXT = '0123456789';

for (const [form, inlineMaxBytes] of STORAGE_FORMS) {
  describe(`reading a file (${form} content)`, () => {
    async function scene() {
      const fixture = createFixture({ settings: { inlineMaxBytes } });
      const alice = await anAccount(fixture.store, 'alice');
      const at = { principal: alice.principal, projectId: alice.defaultProjectId, filename: 'a.md' };
      const file = await fixture.store.files.upload({ ...at, content: textStream(TEXT) });
      const read = (more: Omit<Parameters<typeof fixture.store.files.read>[0], keyof typeof at> = {}) =>
        fixture.store.files.read({ ...at, ...more });
      return { ...fixture, at, file, read };
    }

    const textOf = async (read: Awaited<ReturnType<Awaited<ReturnType<typeof scene>>['read']>>) => {
      if (read.kind !== 'content' || read.content === null) throw new Error(`no content: ${read.kind}`);
      return readText(read.content);
    };

    it('answers not-modified for a matching If-None-Match, the content otherwise', async () => {
      const { read, file } = await scene();
      const same = await read({ conditions: { ifNoneMatch: file.etag } });
      expect(same.kind).toBe('not-modified');
      expect(same.file.etag).toBe(file.etag);
      const other = await read({ conditions: { ifNoneMatch: '"other"' } });
      expect(await textOf(other)).toBe(TEXT);
    });

    it('refuses a failed If-Match with 412', async () => {
      const { read } = await scene();
      expect(await codeOf(() => read({ conditions: { ifMatch: '"other"' } }))).toBe('PRECONDITION_FAILED');
    });

    it('opens nothing for HEAD (open: false), with the same view', async () => {
      const { read, file } = await scene();
      const head = await read({ open: false });
      expect(head).toEqual({ kind: 'content', file, range: null, content: null });
    });

    it('sends the range asked for, inclusive', async () => {
      const { read } = await scene();
      const part = await read({ range: 'bytes=2-4' });
      expect(part.kind === 'content' && part.range).toEqual({ start: 2, end: 4 });
      expect(await textOf(part)).toBe('234');
      const suffix = await read({ range: 'bytes=-3' });
      expect(await textOf(suffix)).toBe('789');
    });

    it('sends the whole file for a malformed range, or an If-Range that no longer holds', async () => {
      const { read, file } = await scene();
      const malformed = await read({ range: 'bytes=5-2' });
      expect(malformed.kind === 'content' && malformed.range).toBeNull();
      expect(await textOf(malformed)).toBe(TEXT);
      const stale = await read({ range: 'bytes=0-1', ifRange: '"other"' });
      expect(stale.kind === 'content' && stale.range).toBeNull();
      expect(await textOf(stale)).toBe(TEXT);
      const holding = await read({ range: 'bytes=0-1', ifRange: file.etag });
      expect(await textOf(holding)).toBe('01');
    });

    it('refuses a range past the end with 416', async () => {
      const { read } = await scene();
      expect(await codeOf(() => read({ range: 'bytes=10-' }))).toBe('RANGE_NOT_SATISFIABLE');
    });
  });
}
