import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackup } from '../../src/backup/create.js';
import type { Manifest } from '../../src/backup/format.js';
import { restoreBackup } from '../../src/backup/restore.js';
import { openPair, text } from './pairs.js';

/**
 * Extensions §16, the restore property: for generated stores (written through the core: uploads of
 * both storage forms, content updates past the kept history, deletions to the trash or for good, project
 * settings), backup → restore into an empty store → backup gives the same manifest but for its date.
 */

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mdstore-backup-property-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

type Operation =
  | { readonly kind: 'put'; readonly file: number; readonly size: number; readonly seed: number }
  | { readonly kind: 'delete'; readonly file: number };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  // Sizes either side of the pairs' 48-byte inline threshold.
  fc.record({
    kind: fc.constant('put' as const),
    file: fc.integer({ min: 0, max: 4 }),
    size: fc.integer({ min: 1, max: 200 }),
    seed: fc.integer({ min: 0, max: 3 }),
  }),
  fc.record({ kind: fc.constant('delete' as const), file: fc.integer({ min: 0, max: 4 }) }),
);

const scenario = fc.record({
  keepRevisions: fc.integer({ min: 1, max: 3 }),
  trashDays: fc.constantFrom(0, 7),
  accounts: fc.integer({ min: 1, max: 2 }),
  operations: fc.array(operation, { minLength: 1, maxLength: 12 }),
});

const content = (manifest: Manifest) => {
  const { created_at: _, ...rest } = manifest;
  return rest;
};

let run = 0;

describe('the restore property', () => {
  it('backup → restore → backup gives the same manifest, for generated SQLite + fs stores', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        run += 1;
        const source = await openPair('sqlite-fs');
        const target = await openPair('sqlite-fs');
        try {
          for (let a = 0; a < s.accounts; a += 1) {
            const created = await source.store.accounts.create({ name: `account-${a}` });
            const principal = await source.store.authenticate({ apiKey: created.apiKey.apiKey });
            const project = await source.store.projects.create({
              principal,
              body: {
                name: 'generated',
                settings: { keep_revisions: s.keepRevisions, trash_retention_days: s.trashDays },
              },
            });
            const at = { principal, projectId: project.id };
            for (const op of s.operations) {
              const filename = `f${op.file}.md`;
              const exists = (await source.store.files.list(at)).files.some((f) => f.filename === filename);
              if (op.kind === 'delete') {
                if (exists) await source.store.files.delete({ ...at, filename });
                continue;
              }
              const body = `# ${op.seed}\n${'abcdefgh'.repeat(op.size).slice(0, op.size)}\n`;
              if (exists) await source.store.files.updateContent({ ...at, filename, content: text(body) });
              else await source.store.files.upload({ ...at, filename, content: text(body) });
            }
          }
          const first = await createBackup(source, { to: join(dir, `${run}-first`) });
          await restoreBackup(target, { from: first.path });
          const second = await createBackup(target, { to: join(dir, `${run}-second`) });
          expect(content(second.manifest)).toEqual(content(first.manifest));
        } finally {
          await Promise.all([source.close(), target.close()]);
        }
      }),
      { numRuns: 12 },
    );
  }, 300_000);
});
