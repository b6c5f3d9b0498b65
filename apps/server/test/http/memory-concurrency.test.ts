import { createMdStore, type MemoryCommandInput } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { sqliteFsAdapters } from '../support/adapters.js';
import { expectNothingLost, FUZZ_PATH, initialText, runMemoryFuzz } from '../support/memory-fuzz.js';

/**
 * No lost memory on SQLite + filesystem (extensions §14): two stores (two cores, each with its own
 * per-file queue, as two server processes would be) on one database and one blob folder; the 20
 * writers alternate between them, so their commands meet only through If-Match and its retries.
 * (Postgres + S3 with two server processes: test/multi-instance/memory-fuzz.test.ts.)
 */
describe('memory commands on one file from two stores on one SQLite + filesystem store', () => {
  it('lose nothing: 20 writers × 50 str_replace/insert, every token present at the end', async () => {
    const adapters = await sqliteFsAdapters();
    try {
      const settings = { maxFileBytes: 256 * 1024 };
      const stores = [0, 1].map(() => createMdStore({ ...adapters, settings }));
      const created = await stores[0]!.accounts.create({ name: 'fuzz' });
      const principal = await stores[0]!.authenticate({ apiKey: created.apiKey.apiKey });
      const projectId = created.defaultProject.id;
      const run = (writer: number, body: Record<string, unknown>) =>
        stores[writer % 2]!.memory.run({ principal, projectId, body: body as MemoryCommandInput }).then(
          (r) => ({
            result: r.result,
            is_error: r.isError,
          }),
        );
      expect((await run(0, { command: 'create', path: FUZZ_PATH, file_text: initialText() })).is_error).toBe(
        false,
      );
      const tokens = await runMemoryFuzz(run);
      const seen = await run(0, { command: 'view', path: FUZZ_PATH });
      expectNothingLost(seen.result, tokens);
      const revisions = await stores[0]!.files.listRevisions({
        principal,
        projectId,
        filename: 'memories/fuzz.txt.md',
      });
      // One revision per command (plus the create): none merged, none lost.
      expect(revisions.revisions[0]?.revision).toBe(1 + tokens.length);
    } finally {
      await adapters.close();
    }
  }, 60_000);
});
