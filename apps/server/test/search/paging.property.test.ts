import { createMdStore, type MdStore, type Principal } from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryAdapters } from '../support/adapters.js';

/**
 * Search pages are keyset-based (extensions §3): a client paging while others write sees every file
 * that exists unchanged for the whole walk exactly once, whatever is uploaded, rewritten or deleted
 * between its pages, for every field sort in both orders (relevance scores depend on the other
 * matches, so it promises no such thing).
 */

const bytes = (text: string) =>
  (async function* () {
    yield new TextEncoder().encode(text);
  })();

type Write =
  | { kind: 'upload'; name: number; size: number }
  | { kind: 'rewrite'; name: number; size: number }
  | { kind: 'delete'; name: number };

const write: fc.Arbitrary<Write> = fc.oneof(
  fc.record({
    kind: fc.constant('upload' as const),
    name: fc.nat(40),
    size: fc.integer({ min: 1, max: 30 }),
  }),
  fc.record({
    kind: fc.constant('rewrite' as const),
    name: fc.nat(40),
    size: fc.integer({ min: 1, max: 30 }),
  }),
  fc.record({ kind: fc.constant('delete' as const), name: fc.nat(40) }),
);

async function apply(store: MdStore, principal: Principal, projectId: string, w: Write): Promise<void> {
  const filename = `m-${String(w.name).padStart(2, '0')}.md`;
  try {
    if (w.kind === 'upload')
      await store.files.upload({ principal, projectId, filename, content: bytes('w'.repeat(w.size)) });
    else if (w.kind === 'rewrite')
      await store.files.updateContent({ principal, projectId, filename, content: bytes('r'.repeat(w.size)) });
    else await store.files.delete({ principal, projectId, filename });
  } catch {
    // Already there, or not there: the write simply did not happen.
  }
}

describe('search paging while others write', () => {
  it('sees every unchanged file exactly once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('filename', 'size_bytes', 'created_date', 'updated_date'),
        fc.constantFrom('asc', 'desc'),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 1, maxLength: 12 }),
        fc.array(fc.array(write, { maxLength: 4 }), { maxLength: 12 }),
        async (sort, order, limit, stableSizes, writesBetweenPages) => {
          const adapters = await memoryAdapters();
          try {
            const store = createMdStore({ ...adapters });
            const created = await store.accounts.create({ name: 'pager' });
            const principal = await store.authenticate({ apiKey: created.apiKey.apiKey });
            const projectId = created.defaultProject.id;
            const stable = stableSizes.map((_, index) => `s-${String(index).padStart(2, '0')}.md`);
            for (const [index, size] of stableSizes.entries())
              await store.files.upload({
                principal,
                projectId,
                filename: stable[index]!,
                content: bytes('s'.repeat(size)),
              });
            for (let name = 0; name < 10; name += 1)
              await apply(store, principal, projectId, { kind: 'upload', name, size: name + 1 });
            const seen: string[] = [];
            let cursor: string | undefined;
            let page = 0;
            do {
              const answer = await store.files.search({
                principal,
                projectId,
                body: { sort, order, limit, ...(cursor && { cursor }) },
              });
              seen.push(...answer.results.map((result) => result.file.filename));
              cursor = answer.nextCursor ?? undefined;
              for (const w of writesBetweenPages[page] ?? []) await apply(store, principal, projectId, w);
              page += 1;
            } while (cursor);
            for (const name of stable)
              expect(
                seen.filter((filename) => filename === name),
                name,
              ).toHaveLength(1);
          } finally {
            await adapters.close();
          }
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);
});
