import { createMdStore, type MdStore, type Principal } from '@mdstore/core';
import { createMemoryBlobStore, createMemoryRateLimiter, createMemoryRecords } from '@mdstore/memory';
import { describe, expect, it } from 'vitest';
import { type FaultCall, pausing, withRecordsFaults } from '../../src/testing/faults/index.js';
import { readAll } from './support.js';

/**
 * Move with `rewrite_links` (extensions §9) is one changeset planned before its transaction: a linking
 * file written between the plan and the commit is never overwritten. The commit sees the file changed
 * and the move plans again on the newer content (its rewrite keeps the other write); when the file
 * keeps changing, the move gives up after a few attempts with 409 and changes nothing.
 */

const FILES: Record<string, string> = {
  'docs/setup.md': '# Setup\n\nBack to [index](../index.md).\n',
  'index.md': 'See [setup](docs/setup.md).\n',
  'a/b.md': '[x](../docs/setup.md)\n',
};

async function* text(value: string): AsyncIterable<Uint8Array> {
  yield new TextEncoder().encode(value);
}

/**
 * A store whose `times` first move plans are each interrupted, once every linking file's record has been
 * read (at the plan's last content read), by an edit of `index.md` from another writer.
 */
async function setup(times: number) {
  let store: MdStore | undefined;
  let principal: Principal | undefined;
  let projectId = '';
  let armed = false;
  let reads = 0;
  let edits = 0;
  const plan = {
    decide: (call: FaultCall) => {
      if (!armed || call.method !== 'readInlineContent') return undefined;
      // The three sources' contents are read after their records: at the third, every record is read.
      if (++reads % Object.keys(FILES).length !== 0 || edits >= times) return undefined;
      edits++;
      return pausing(async () => {
        armed = false;
        await store!.files.edit({
          principal: principal!,
          projectId,
          filename: 'index.md',
          body: { edits: [{ op: 'append', text: `Edit ${edits}.\n` }] },
        });
        armed = true;
      });
    },
  };
  store = createMdStore({
    records: withRecordsFaults(createMemoryRecords(), plan),
    blobs: createMemoryBlobStore(),
    rateLimiter: createMemoryRateLimiter(),
  });
  const created = await store.accounts.create({ name: 'alice' });
  principal = await store.authenticate({ apiKey: created.apiKey.apiKey });
  projectId = created.defaultProject.id;
  for (const [filename, content] of Object.entries(FILES))
    await store.files.upload({ principal, projectId, filename, content: text(content) });
  const at = { principal, projectId };
  return {
    move: () => {
      armed = true;
      reads = 0;
      return store!.files.move({
        ...at,
        filename: 'docs/setup.md',
        body: { to: 'guides/install.md', rewrite_links: true },
      });
    },
    content: async (filename: string) => {
      const download = await store!.files.download({ ...at, filename });
      return new TextDecoder().decode(await readAll(download.content!));
    },
    revisions: async (filename: string) =>
      (await store!.files.listRevisions({ ...at, filename })).revisions.map((r) => [
        r.revision,
        r.change,
        r.changesetId,
      ]),
    names: async () => (await store!.files.list(at)).files.map((f) => f.filename).sort(),
    edits: () => edits,
  };
}

describe('move with rewrite_links while a linking file changes', () => {
  it('plans again: the other write is kept, and the rewrite is applied on top of it', async () => {
    const world = await setup(1);
    const moved = await world.move();
    expect(world.edits()).toBe(1);
    expect(moved.rewritten).toEqual([
      { filename: 'a/b.md', links: 1 },
      { filename: 'index.md', links: 1 },
    ]);
    expect(await world.content('index.md')).toBe('See [setup](guides/install.md).\nEdit 1.\n');
    const revisions = await world.revisions('index.md');
    const id = revisions[0]![2];
    expect(id).toEqual(expect.any(String));
    expect(revisions).toEqual([
      [3, 'edit', id],
      [2, 'edit', null],
      [1, 'created', null],
    ]);
    // At the same depth its own link is kept: its one revision is the move's.
    expect(await world.revisions('guides/install.md')).toEqual([
      [2, 'move', id],
      [1, 'created', null],
    ]);
  });

  it('gives up with 409 when the file keeps changing, and changes nothing', async () => {
    const world = await setup(100);
    const refused = await world.move().catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'EDIT_CONFLICT' });
    expect(world.edits()).toBe(3);
    expect(await world.names()).toEqual(['a/b.md', 'docs/setup.md', 'index.md']);
    expect(await world.content('index.md')).toBe('See [setup](docs/setup.md).\nEdit 1.\nEdit 2.\nEdit 3.\n');
    expect(await world.content('a/b.md')).toBe(FILES['a/b.md']);
    expect(await world.revisions('docs/setup.md')).toEqual([[1, 'created', null]]);
  });
});
