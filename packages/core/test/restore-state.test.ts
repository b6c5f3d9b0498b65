import { createMemoryRecords } from '@mdstore/memory';
import { describe, expect, it } from 'vitest';
import { aFile, aRevision } from '../src/testing/builders.js';
import type { MdStoreContext } from '../src/use-cases/context.js';
import { RevisionBudget, stateAsOf } from '../src/use-cases/restore/state.js';

/**
 * What a file was at a time (extensions §16), from its kept revisions: the name a revision records, or
 * for revisions written before names were recorded (migration 15) the name of the nearest later one that
 * has it; absent before its creation; unrecoverable when no kept revision is that old.
 */
describe('stateAsOf', () => {
  it('walks the history back, names from the nearest later recorded name, unrecoverable past the oldest kept', async () => {
    const records = createMemoryRecords();
    const file = aFile({ filename: 'now.md', revision: 120, createdAt: 1, updatedAt: 1200 });
    // Revision r written at r × 10; r ≤ 60 written before names were recorded; 61–100 under 'then.md';
    // 101–120 under 'now.md'; revisions 1–4 pruned.
    await records.withTransaction(async (tx) => {
      await tx.insertFile({ file });
      for (let r = 5; r <= 120; r++) {
        const filename = r <= 60 ? null : r <= 100 ? 'then.md' : 'now.md';
        await tx.insertRevision({ revision: aRevision(file, { revision: r, createdAt: r * 10, filename }) });
      }
    });
    const ctx = { records } as unknown as MdStoreContext;
    const at = (asOf: number) => stateAsOf(ctx, file, asOf, new RevisionBudget());
    expect(await at(1200)).toMatchObject({
      kind: 'present',
      filename: 'now.md',
      revision: { revision: 120 },
    });
    expect(await at(1010)).toMatchObject({
      kind: 'present',
      filename: 'now.md',
      revision: { revision: 101 },
    });
    // Not under 'now.md' though the walk passed those revisions: the revision's own name.
    expect(await at(1009)).toMatchObject({
      kind: 'present',
      filename: 'then.md',
      revision: { revision: 100 },
    });
    // Written before names were recorded: the name of the nearest later revision that has one.
    expect(await at(605)).toMatchObject({ kind: 'present', filename: 'then.md', revision: { revision: 60 } });
    expect(await at(50)).toMatchObject({ kind: 'present', filename: 'then.md', revision: { revision: 5 } });
    expect(await at(49)).toEqual({ kind: 'unrecoverable' });
    expect(await at(0)).toEqual({ kind: 'absent' });
  });
});
