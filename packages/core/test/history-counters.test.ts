import type { RecordsRepository, RecordsTransaction } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import {
  anAccount,
  codeOf,
  createFixture,
  overriding,
  textStream,
  withTransactionWrapper,
} from './support/fixture.js';

/**
 * What history leaves behind in the stores, through the store's use cases on the memory adapters: a
 * delete without trash frees the history counter, a pruned inline version loses its row, and a move
 * whose name is taken inside the transaction (the store's unique rule) answers FILENAME_TAKEN. (The
 * mutation run found these reached only by the HTTP and crash suites; see docs/testing.md.)
 */

async function scene(o: { keep: number; wrapRecords?: (inner: RecordsRepository) => RecordsRepository }) {
  const fixture = createFixture({ ...(o.wrapRecords && { wrapRecords: o.wrapRecords }) });
  const alice = await anAccount(fixture.store, 'alice');
  const project = await fixture.store.projects.create({
    principal: alice.principal,
    body: { name: 'h', settings: { keep_revisions: o.keep } },
  });
  const at = { principal: alice.principal, projectId: project.id };
  const counters = async () => {
    const p = await fixture.store.projects.get(at);
    return [p.fileCount, p.totalSizeBytes, p.historySizeBytes];
  };
  return { ...fixture, at, project, counters };
}

describe('history in the stores', () => {
  it('a delete without trash takes the history bytes with the file', async () => {
    const { store, at, counters } = await scene({ keep: 5 });
    await store.files.upload({ ...at, filename: 'a.md', content: textStream('a') });
    await store.files.updateContent({ ...at, filename: 'a.md', content: textStream('bbb') });
    expect(await counters()).toEqual([1, 3, 1]);
    await store.files.delete({ ...at, filename: 'a.md' });
    expect(await counters()).toEqual([0, 0, 0]);
  });

  it('a pruned inline version loses its row; the kept one stays readable', async () => {
    const { store, at, records, project } = await scene({ keep: 1 });
    await store.files.upload({ ...at, filename: 'a.md', content: textStream('first') });
    const [first] = await records.listFiles({ projectId: project.id });
    await store.files.updateContent({ ...at, filename: 'a.md', content: textStream('second') });
    const [second] = await records.listFiles({ projectId: project.id });
    expect(first!.inline && second!.inline).toBe(true);
    expect(
      await records.readInlineContent({ projectId: project.id, contentKey: first!.contentKey }),
    ).toBeNull();
    const kept = await records.readInlineContent({ projectId: project.id, contentKey: second!.contentKey });
    expect(new TextDecoder().decode(kept!)).toBe('second');
  });

  it('a move whose name is taken when it commits answers FILENAME_TAKEN and changes nothing', async () => {
    let hide = false;
    const hiding = (tx: RecordsTransaction): RecordsTransaction =>
      overriding(tx, { findFile: async (q) => (hide && q.filename === 'b.md' ? null : tx.findFile(q)) });
    const { store, at, counters } = await scene({
      keep: 5,
      wrapRecords: (inner) => withTransactionWrapper(inner, hiding),
    });
    await store.files.upload({ ...at, filename: 'a.md', content: textStream('a') });
    await store.files.upload({ ...at, filename: 'b.md', content: textStream('b') });
    hide = true;
    expect(await codeOf(() => store.files.move({ ...at, filename: 'a.md', body: { to: 'b.md' } }))).toBe(
      'FILENAME_TAKEN',
    );
    hide = false;
    expect(await counters()).toEqual([2, 2, 0]);
    const a = await store.files.read({ ...at, filename: 'a.md', open: false });
    expect(a.file.revision).toBe(1);
  });
});
