import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createClient, MdStoreApiError, type MdStoreClient } from '@mdstore/client';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RealServer, startRealServer } from '../../client/test/support/server.js';
import { syncFolder } from '../src/index.js';
import { removeFolder, tempFolder } from './support/cli.js';

const NAMES = ['a.md', '\u00e9t\u00e9 b.md'] as const;
const CONTENTS = ['# one\n', '# two\n', '# three\n'] as const;

type Step =
  | { kind: 'local-write' | 'remote-write'; name: string; content: string }
  | { kind: 'local-delete' | 'remote-delete'; name: string }
  | { kind: 'sync' }
  | { kind: 'resolve'; index: number };

const name = fc.constantFrom(...NAMES);
const content = fc.constantFrom(...CONTENTS);
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constantFrom('local-write', 'remote-write'), name, content }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constantFrom('local-delete', 'remote-delete'), name }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'sync' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('resolve' as const), index: fc.nat(5) }) },
);

let server: RealServer;
beforeAll(async () => {
  server = await startRealServer();
});
afterAll(async () => {
  await server?.stop();
});

type Tree = Map<string, string>;

async function localTree(dir: string): Promise<{ files: Tree; copies: Tree }> {
  const files: Tree = new Map();
  const copies: Tree = new Map();
  for (const entry of await readdir(dir)) {
    if (entry.startsWith('.')) continue;
    const text = await readFile(path.join(dir, entry), 'utf8');
    (entry.includes('.conflict-') ? copies : files).set(entry, text);
  }
  return { files, copies };
}

async function remoteTree(client: MdStoreClient, projectId: string): Promise<Tree> {
  const tree: Tree = new Map();
  for (const file of (await client.files.list(projectId)).files) {
    tree.set(file.filename, await client.files.readText(projectId, file.filename));
  }
  return tree;
}

/**
 * Random edits on both sides with syncs in between, checked against what a sync promises: a side's change
 * is never overwritten or deleted, both sides agree afterwards except where a conflict waits for the user,
 * a conflict keeps the server's version in a copy, and a sync right after a sync moves nothing.
 */
describe('sync against random edits on both sides (model-based)', () => {
  it('keeps every change and converges', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 16 }), async (steps) => {
        const account = await server.account();
        const client = createClient({ baseUrl: server.url, apiKey: account.apiKey });
        const projectId = account.defaultProjectId;
        const dir = await tempFolder();
        /** Content both sides had after the last sync that settled the name (the base). */
        const base = new Map<string, string>();
        /** Names whose conflict waits for the user, with the copy holding the server's version. */
        const pending = new Map<string, string>();
        try {
          for (const s of [...steps, { kind: 'sync' } as Step]) {
            if (s.kind === 'local-write') await writeFile(path.join(dir, s.name), s.content);
            if (s.kind === 'local-delete') await rm(path.join(dir, s.name), { force: true });
            if (s.kind === 'remote-write') {
              await client.files
                .upload(projectId, s.name, s.content)
                .catch(() => client.files.updateContent(projectId, s.name, s.content));
            }
            if (s.kind === 'remote-delete') {
              await client.files.delete(projectId, s.name).catch((e: unknown) => {
                if (!(e instanceof MdStoreApiError && e.status === 404)) throw e;
              });
            }
            if (s.kind === 'resolve' && pending.size > 0) {
              const [resolved, copy] = [...pending][s.index % pending.size]!;
              // Deleting the copy resolves the conflict: the local file as it is answers the server's version
              // the copy held, which is the name's base from then on (set when the conflict arose).
              await rm(path.join(dir, copy));
              pending.delete(resolved);
            }
            if (s.kind !== 'sync') continue;

            const before = {
              local: (await localTree(dir)).files,
              remote: await remoteTree(client, projectId),
            };
            const report = await syncFolder({
              client,
              server: server.url,
              root: dir,
              projectId,
              concurrency: 2,
            });
            expect(report.errors).toEqual([]);
            const after = await localTree(dir);
            const remote = await remoteTree(client, projectId);
            for (const n of NAMES) {
              const waiting = pending.get(n);
              if (waiting !== undefined) {
                // Unresolved: the sync touches neither side.
                expect(after.files.get(n)).toBe(before.local.get(n));
                expect(remote.get(n)).toBe(before.remote.get(n));
                continue;
              }
              const localChanged = before.local.get(n) !== base.get(n) && before.local.has(n);
              const remoteChanged = before.remote.get(n) !== base.get(n) && before.remote.has(n);
              if (localChanged)
                expect(after.files.get(n), `${n} local change kept`).toBe(before.local.get(n));
              if (remoteChanged) expect(remote.get(n), `${n} remote change kept`).toBe(before.remote.get(n));
              const conflict = report.conflicts.find((c) => c.name === n);
              if (conflict) {
                expect(localChanged && remoteChanged).toBe(true);
                expect(after.copies.get(conflict.copy)).toBe(before.remote.get(n));
                pending.set(n, conflict.copy);
                base.set(n, before.remote.get(n)!);
              } else {
                expect(after.files.get(n), `${n} converged`).toBe(remote.get(n));
                if (remote.has(n)) base.set(n, remote.get(n)!);
                else base.delete(n);
              }
            }
            const again = await syncFolder({ client, server: server.url, root: dir, projectId });
            expect(again.items.filter((item) => item.action !== 'unresolved')).toEqual([]);
          }
        } finally {
          await removeFolder(dir);
        }
      }),
      { numRuns: 60 },
    );
  }, 240_000);
});
