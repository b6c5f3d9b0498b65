import type { MdStoreSettings } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { codeOf, textStream } from './support/fixture.js';
import { BLOB, failure, fileKeepingTwo, INLINE, scene, UNKNOWN_PROJECT } from './support/store-scene.js';

/**
 * The diff between two revisions through the store on the memory adapters: the revisions compared,
 * the errors and where they point, and the retries when a content version vanishes while being read.
 * (The mutation run found no core test reaching these; see docs/testing.md.)
 */

describe('diff between revisions', () => {
  const V1 = '# Guide\n\nalpha\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\n';
  const V2 = '# Guide\n\nalpha\nbeta\ngamma\nDELTA\nepsilon\nzeta\neta\n';
  const V3 = '# Guide\n\nalpha\nbeta\ngamma\nDELTA\nepsilon\nzeta\neta\ntheta\n';

  async function history(settings: Partial<MdStoreSettings> = BLOB) {
    const s = await scene(settings);
    const file = { ...s.at, filename: 'guide.md' };
    await s.store.files.upload({ ...file, content: textStream(V1) });
    await s.store.files.updateContent({ ...file, content: textStream(V2) });
    await s.store.files.updateMetadata({ ...file, body: { metadata: { k: 1 } } });
    await s.store.files.updateContent({ ...file, content: textStream(V3) });
    return { ...s, file };
  }

  it('is a unified diff from `from` to `to`, headed with the filename, to the current revision by default', async () => {
    const { store, file } = await history();
    const oneToTwo = [
      '--- a/guide.md',
      '+++ b/guide.md',
      '@@ -3,7 +3,7 @@',
      ' alpha',
      ' beta',
      ' gamma',
      '-delta',
      '+DELTA',
      ' epsilon',
      ' zeta',
      ' eta',
      '',
    ].join('\n');
    expect(await store.files.diff({ ...file, from: '1', to: '2' })).toBe(oneToTwo);
    const threeToFour = [
      '--- a/guide.md',
      '+++ b/guide.md',
      '@@ -7,3 +7,4 @@',
      ' epsilon',
      ' zeta',
      ' eta',
      '+theta',
      '',
    ].join('\n');
    expect(await store.files.diff({ ...file, from: '3' })).toBe(threeToFour);
    expect(await store.files.diff({ ...file, from: '3', to: '4' })).toBe(threeToFour);
    // Same content (a metadata change): nothing.
    expect(await store.files.diff({ ...file, from: '2', to: '3' })).toBe('');
    expect(await store.files.diff({ ...file, from: '4' })).toBe('');
    // Backwards works too.
    const back = await store.files.diff({ ...file, from: '2', to: '1' });
    expect(back).toContain('-DELTA\n+delta\n');
  });

  it('refuses bad parameters at their query name, and unknown files and revisions', async () => {
    const { store, file } = await history();
    const cases = [
      [{}, ['query', 'from']],
      [{ from: '' }, ['query', 'from']],
      [{ from: '0' }, ['query', 'from']],
      [{ from: '1', to: 'x' }, ['query', 'to']],
      [{ from: '1', to: '0' }, ['query', 'to']],
    ] as const;
    for (const [query, loc] of cases) {
      const refused = await failure(() => store.files.diff({ ...file, ...query }));
      expect(refused.code).toBe('INVALID_INPUT');
      expect(refused.issues!.map((i) => i.loc)).toEqual([loc]);
    }
    expect(await codeOf(() => store.files.diff({ ...file, from: '1', to: '5' }))).toBe('REVISION_NOT_FOUND');
    expect(await codeOf(() => store.files.diff({ ...file, from: '5' }))).toBe('REVISION_NOT_FOUND');
    expect(await codeOf(() => store.files.diff({ ...file, filename: 'x.md', from: '1' }))).toBe(
      'FILE_NOT_FOUND',
    );
    expect(await codeOf(() => store.files.diff({ ...file, filename: 'x.md', from: '1', to: '1' }))).toBe(
      'FILE_NOT_FOUND',
    );
    expect(await codeOf(() => store.files.diff({ ...file, projectId: UNKNOWN_PROJECT, from: 'x' }))).toBe(
      'PROJECT_NOT_FOUND',
    );
  });

  it('refuses pruned revisions', async () => {
    const { store, at } = await scene(INLINE);
    const file = await fileKeepingTwo(store, at.principal, ['one\n', 'two\n', 'three\n']);
    expect(await codeOf(() => store.files.diff({ ...file, from: '1' }))).toBe('REVISION_NOT_FOUND');
    expect(await store.files.diff({ ...file, from: '2' })).toBe(
      '--- a/a.md\n+++ b/a.md\n@@ -1,1 +1,1 @@\n-two\n+three\n',
    );
  });

  it('answers DIFF_TOO_LARGE beyond 10^7 line comparisons', async () => {
    const { store, at } = await scene(INLINE);
    const file = { ...at, filename: 'big.md' };
    const lines = (p: string) => Array.from({ length: 1600 }, (_, i) => `${p}${i}\n`).join('');
    await store.files.upload({ ...file, content: textStream(lines('a')) });
    await store.files.updateContent({ ...file, content: textStream(lines('b')) });
    expect(await codeOf(() => store.files.diff({ ...file, from: '1' }))).toBe('DIFF_TOO_LARGE');
  });

  it('reads a revision again when its content vanishes mid-read, three attempts at most', async () => {
    for (const mode of ['open', 'stream'] as const) {
      const { store, file, faults } = await history();
      faults.mode = mode;
      faults.left = 2;
      faults.gets = 0;
      expect(await store.files.diff({ ...file, from: '3' })).toContain('+theta\n');
      expect(faults.gets).toBe(4);
      faults.left = 3;
      faults.gets = 0;
      expect(await codeOf(() => store.files.diff({ ...file, from: '3' }))).toBe('REVISION_NOT_FOUND');
      expect(faults.gets).toBe(3);
    }
  });
});
