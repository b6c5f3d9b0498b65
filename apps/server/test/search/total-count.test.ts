import { createMdStore } from '@mdstore/core';
import { aFile } from '@mdstore/core/testing';
import { describe, expect, it } from 'vitest';
import { sqliteFsAdapters } from '../support/adapters.js';

/**
 * `total_count` counts matches up to 10 000 (extensions §3): 10 001 matching files report 10 000, with
 * and without a query, and the pages still reach every file. On SQLite (the memory store inserts one
 * file in time linear in the files it holds, too slow to seed 10 001).
 */
describe('search total_count', () => {
  it('stops counting at 10 000', async () => {
    const adapters = await sqliteFsAdapters();
    try {
      const store = createMdStore({ ...adapters });
      const created = await store.accounts.create({ name: 'many-files' });
      const principal = await store.authenticate({ apiKey: created.apiKey.apiKey });
      const projectId = created.defaultProject.id;
      await adapters.records.withTransaction(async (tx) => {
        for (let index = 0; index < 10_001; index += 1) {
          const file = aFile({ projectId, filename: `n${String(index).padStart(5, '0')}.md` });
          await tx.insertFile({ file });
          await tx.indexFile({ file, contentText: 'common word' });
        }
      });
      const search = (body: Record<string, unknown>) => store.files.search({ principal, projectId, body });
      const all = await search({ limit: 100 });
      expect(all.totalCount).toBe(10_000);
      expect(all.results).toHaveLength(100);
      const last = await search({ limit: 1, sort: 'filename', order: 'desc' });
      expect(last.results[0]!.file.filename).toBe('n10000.md');
      const words = await search({ query: 'common', limit: 5 });
      expect(words.totalCount).toBe(10_000);
      expect(words.results).toHaveLength(5);
      expect(words.nextCursor).not.toBeNull();
      const few = await search({
        query: 'common',
        filter: { field: 'filename', op: 'prefix', value: 'n0000' },
      });
      expect(few.totalCount).toBe(10);
      expect(few.results.map((result) => result.file.filename)).toHaveLength(10);
    } finally {
      await adapters.close();
    }
  }, 120_000);
});
