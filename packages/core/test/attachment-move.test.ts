import { createMdStore, type MdStore, type Principal, type RecordsRepository } from '@mdstore/core';
import { createMemoryBlobStore, createMemoryRateLimiter, createMemoryRecords } from '@mdstore/memory';
import { describe, expect, it } from 'vitest';
import { type FaultCall, pausing, withRecordsFaults } from '../src/testing/faults/index.js';
import { readAll } from './faults/support.js';

/**
 * Move of an attachment (extensions §12), as a file's (§5, §9): the same record and blob at the new path,
 * the path rules and preconditions of attachment writes, a key's folders for both paths, the
 * `attachment.moved` event; with `rewrite_links` every link and embed to it rewritten in ONE changeset,
 * `dry_run` writing nothing.
 */

const PNG = Uint8Array.from(
  Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
    'base64',
  ),
);
const PDF = new TextEncoder().encode('%PDF-1.4\n1 0 obj <<>> endobj\n%%EOF\n');

async function* bytes(value: Uint8Array): AsyncIterable<Uint8Array> {
  yield value;
}

async function scene(wrap: (records: RecordsRepository) => RecordsRepository = (records) => records) {
  const records = createMemoryRecords();
  const store: MdStore = createMdStore({
    records: wrap(records),
    blobs: createMemoryBlobStore(),
    rateLimiter: createMemoryRateLimiter(),
  });
  const created = await store.accounts.create({ name: 'alice' });
  const principal: Principal = await store.authenticate({ apiKey: created.apiKey.apiKey });
  const projectId = created.defaultProject.id;
  const at = { principal, projectId };
  const write = (path: string, content: Uint8Array, contentType: string) =>
    store.attachments.write({ ...at, path, contentType, content: bytes(content) });
  const put = (filename: string, text: string) =>
    store.files.upload({ ...at, filename, content: bytes(new TextEncoder().encode(text)) });
  const move = (path: string, body: Record<string, unknown>, o: Partial<typeof at> & object = {}) =>
    store.attachments.move({ ...at, ...o, path, body: body as never });
  const text = async (filename: string) => {
    const download = await store.files.download({ ...at, filename });
    return new TextDecoder().decode(await readAll(download.content!));
  };
  const paths = async () => (await store.attachments.list(at)).attachments.map((a) => a.path);
  const events = async () => (await store.changes.list({ principal })).changes;
  return { store, records, principal, projectId, at, write, put, move, text, paths, events };
}

const codeOf = (run: () => Promise<unknown>): Promise<string> =>
  run().then(
    () => 'OK',
    (error: { code?: string }) => error.code ?? String(error),
  );

describe('attachment move (extensions §12)', () => {
  it('the same record and blob at the new path, a new ETag, the counters kept, the event with from', async () => {
    const s = await scene();
    const written = (await s.write('img/a.png', PNG, 'image/png')).attachment;
    const stored = await s.records.findAttachment({ projectId: s.projectId, path: 'img/a.png' });
    const projectBefore = await s.store.projects.get({ ...s.at });
    const moved = await s.move('img/a.png', { to: 'pics/ü b.png' });
    expect(moved).toMatchObject({
      path: 'pics/ü b.png',
      sha256: written.sha256,
      sizeBytes: written.sizeBytes,
      contentType: 'image/png',
      createdAt: written.createdAt,
    });
    expect(moved.rewritten).toBeUndefined();
    expect(moved.etag).not.toBe(written.etag);
    const after = await s.records.findAttachment({ projectId: s.projectId, path: 'pics/ü b.png' });
    // Nothing copied: the same record (id) on the same blob; the old path is gone.
    expect(after).toMatchObject({ id: stored!.id, blobKey: stored!.blobKey, revision: stored!.revision + 1 });
    expect(await s.paths()).toEqual(['pics/ü b.png']);
    expect(await codeOf(() => s.store.attachments.read({ ...s.at, path: 'img/a.png' }))).toBe(
      'ATTACHMENT_NOT_FOUND',
    );
    const read = await s.store.attachments.read({ ...s.at, path: 'pics/ü b.png' });
    expect(read.kind === 'content' && Buffer.from(await readAll(read.content!))).toEqual(Buffer.from(PNG));
    const project = await s.store.projects.get({ ...s.at });
    expect(project.attachmentCount).toBe(projectBefore.attachmentCount);
    expect(project.attachmentBytes).toBe(projectBefore.attachmentBytes);
    expect(project.updatedAt).toBeGreaterThanOrEqual(projectBefore.updatedAt);
    const event = (await s.events()).at(-1)!;
    expect(event).toMatchObject({
      type: 'attachment.moved',
      filename: 'pics/ü b.png',
      from: 'img/a.png',
      etag: moved.etag,
      revision: after!.revision,
      changesetId: null,
    });
  });

  it('refuses: a missing source 404, a Markdown or taken target 409, a bad path 400, preconditions 412/428', async () => {
    const s = await scene();
    const a = (await s.write('a.png', PNG, 'image/png')).attachment;
    await s.write('b.pdf', PDF, 'application/pdf');
    expect(await codeOf(() => s.move('none.png', { to: 'x.png' }))).toBe('ATTACHMENT_NOT_FOUND');
    expect(await codeOf(() => s.move('a.png', { to: 'notes/a.md' }))).toBe('ATTACHMENT_PATH_IS_FILE');
    expect(await codeOf(() => s.move('a.png', { to: 'b.pdf' }))).toBe('ATTACHMENT_PATH_TAKEN');
    expect(await codeOf(() => s.move('a.png', { to: 'a.png' }))).toBe('ATTACHMENT_PATH_TAKEN');
    expect(await codeOf(() => s.move('a.png', { to: 'b.pdf', rewrite_links: true }))).toBe(
      'ATTACHMENT_PATH_TAKEN',
    );
    expect(await codeOf(() => s.move('a.png', { to: '../x.png' }))).toBe('MALFORMED_INPUT');
    expect(await codeOf(() => s.move('a.png', {}))).toBe('INVALID_INPUT');
    expect(await codeOf(() => s.move('a.png', { to: 'c.png', rewrite_links: 'yes' }))).toBe('INVALID_INPUT');
    expect(
      await codeOf(() => s.move('a.png', { to: 'c.png' }, { conditions: { ifMatch: '"nope-1"' } } as never)),
    ).toBe('PRECONDITION_FAILED');
    await s.store.projects.update({ ...s.at, body: { settings: { require_if_match: true } } } as never);
    expect(await codeOf(() => s.move('a.png', { to: 'c.png' }))).toBe('PRECONDITION_REQUIRED');
    expect(await s.paths()).toEqual(['a.png', 'b.pdf']);
    const moved = await s.move('a.png', { to: 'c.png' }, { conditions: { ifMatch: a.etag } } as never);
    expect(moved.path).toBe('c.png');
    expect((await s.events()).filter((e) => e.type === 'attachment.moved')).toHaveLength(1);
  });

  it('a key confined to folders must reach both paths (404 outside, as for every path outside)', async () => {
    const s = await scene();
    await s.write('memories/a.png', PNG, 'image/png');
    await s.write('top.png', PNG, 'image/png');
    const key = await s.store.keys.create({
      principal: s.principal,
      body: { name: 'agent', role: 'write', path_prefixes: ['memories/'] },
    } as never);
    const agent = await s.store.authenticate({ apiKey: (key as { apiKey: string }).apiKey });
    const asAgent = { principal: agent };
    expect(await codeOf(() => s.move('memories/a.png', { to: 'elsewhere/a.png' }, asAgent))).toBe(
      'ATTACHMENT_NOT_FOUND',
    );
    expect(await codeOf(() => s.move('top.png', { to: 'memories/top.png' }, asAgent))).toBe(
      'ATTACHMENT_NOT_FOUND',
    );
    expect(await s.paths()).toEqual(['memories/a.png', 'top.png']);
    expect((await s.move('memories/a.png', { to: 'memories/deep/a.png' }, asAgent)).path).toBe(
      'memories/deep/a.png',
    );
  });

  it('rewrite_links: every link and embed to it, in the form written, ONE changeset with the move', async () => {
    const s = await scene();
    await s.write('img/a.png', PNG, 'image/png');
    await s.write('docs/q3.pdf', PDF, 'application/pdf');
    await s.write('a.png', PNG, 'image/png');
    await s.put('index.md', '# Index\n\n![alt](img/a.png) and ![[img/a.png|200]]\n\n[report](docs/q3.pdf)\n');
    await s.put('notes/n.md', 'See ![](../img/a.png "title") and ![[a.png]].\n');
    await s.put('other.md', '[x](img/a.pngx) `![](img/a.png)`\n');

    // A dry run answers the plan and writes nothing.
    const eventsBefore = (await s.events()).length;
    const dry = await s.move('img/a.png', { to: 'pics/b.png', rewrite_links: true, dry_run: true });
    expect(dry.path).toBe('pics/b.png');
    expect(dry.rewritten).toEqual([
      { filename: 'index.md', links: 2 },
      { filename: 'notes/n.md', links: 1 },
    ]);
    expect(await s.paths()).toEqual(['a.png', 'docs/q3.pdf', 'img/a.png']);
    expect(await s.text('index.md')).toContain('![alt](img/a.png)');
    expect((await s.events()).length).toBe(eventsBefore);

    const moved = await s.move('img/a.png', { to: 'pics/b.png', rewrite_links: true });
    expect(moved.rewritten).toEqual(dry.rewritten);
    expect(await s.text('index.md')).toBe(
      '# Index\n\n![alt](pics/b.png) and ![[pics/b.png|200]]\n\n[report](docs/q3.pdf)\n',
    );
    expect(await s.text('notes/n.md')).toBe('See ![](../pics/b.png "title") and ![[a.png]].\n');
    expect(await s.text('other.md')).toBe('[x](img/a.pngx) `![](img/a.png)`\n');
    // One changeset: the move's event and the rewritten files' revisions carry its id.
    const events = (await s.events()).slice(eventsBefore);
    const movedEvent = events.find((e) => e.type === 'attachment.moved')!;
    expect(movedEvent).toMatchObject({ filename: 'pics/b.png', from: 'img/a.png' });
    expect(movedEvent.changesetId).toEqual(expect.any(String));
    expect(events.filter((e) => e.type === 'file.updated').map((e) => [e.filename, e.changesetId])).toEqual(
      expect.arrayContaining([
        ['index.md', movedEvent.changesetId],
        ['notes/n.md', movedEvent.changesetId],
      ]),
    );
    expect(events).toHaveLength(3);

    // A wiki embed by its exact path (written bare, it stays bare: `a2.png` is that attachment's name
    // alone), and a Markdown link to a PDF.
    await s.move('a.png', { to: 'img/a2.png', rewrite_links: true });
    expect(await s.text('notes/n.md')).toBe('See ![](../pics/b.png "title") and ![[a2.png]].\n');
    const pdf = await s.move('docs/q3.pdf', { to: 'reports/2026 q3.pdf', rewrite_links: true });
    expect(pdf.rewritten).toEqual([{ filename: 'index.md', links: 1 }]);
    expect(await s.text('index.md')).toContain('[report](reports/2026%20q3.pdf)');
    // The link index follows: the links resolve to the attachments at their new paths.
    const broken = await s.store.links.broken({ ...s.at });
    expect(broken.links.filter((l) => l.source !== 'other.md')).toEqual([]);
  });

  it('rewrite_links: an embed by the name alone keeps naming it while the name is its own', async () => {
    const s = await scene();
    await s.write('img/solo.png', PNG, 'image/png');
    await s.write('other/twin.png', PNG, 'image/png');
    await s.put('n.md', '![[solo.png|100]] [[solo.png]]\n');
    // Same name in another folder: the bare name still names it; nothing to rewrite.
    expect((await s.move('img/solo.png', { to: 'pics/solo.png', rewrite_links: true })).rewritten).toEqual(
      [],
    );
    expect(await s.text('n.md')).toBe('![[solo.png|100]] [[solo.png]]\n');
    // A new name: the bare new name, as it was written.
    const renamed = await s.move('pics/solo.png', { to: 'pics/renamed.png', rewrite_links: true });
    expect(renamed.rewritten).toEqual([{ filename: 'n.md', links: 2 }]);
    expect(await s.text('n.md')).toBe('![[renamed.png|100]] [[renamed.png]]\n');
    // A name another attachment has: the full path, since the bare name would be ambiguous.
    await s.move('pics/renamed.png', { to: 'pics/twin.png', rewrite_links: true });
    expect(await s.text('n.md')).toBe('![[pics/twin.png|100]] [[pics/twin.png]]\n');
  });

  it('the revisions a rewrite writes name it as such, for an attachment move and a file move', async () => {
    const s = await scene();
    await s.write('img/a.png', PNG, 'image/png');
    await s.put('n.md', '![](img/a.png) [x](other.md)\n');
    await s.put('other.md', '# Other\n');
    await s.move('img/a.png', { to: 'pics/a.png', rewrite_links: true });
    const messages = async (filename: string) =>
      (await s.store.files.listRevisions({ ...s.at, filename })).revisions.map((r) => [
        r.revision,
        r.message,
      ]);
    expect(await messages('n.md')).toEqual([
      [2, 'Links rewritten: img/a.png moved to pics/a.png'],
      [1, null],
    ]);
    await s.store.files.move({
      ...s.at,
      filename: 'other.md',
      body: { to: 'docs/other.md', rewrite_links: true },
    });
    expect((await messages('n.md'))[0]).toEqual([3, 'Links rewritten: other.md moved to docs/other.md']);
    expect((await messages('docs/other.md'))[0]).toEqual([
      2,
      'Links rewritten: other.md moved to docs/other.md',
    ]);
  });

  it('dry_run without rewrite_links writes nothing, for an attachment and a file; the same refusals', async () => {
    const s = await scene();
    await s.write('a.png', PNG, 'image/png');
    await s.write('taken.png', PNG, 'image/png');
    await s.put('n.md', '# N\n');
    const before = (await s.events()).length;
    expect((await s.move('a.png', { to: 'b.png', dry_run: true })).path).toBe('b.png');
    expect(await codeOf(() => s.move('a.png', { to: 'taken.png', dry_run: true }))).toBe(
      'ATTACHMENT_PATH_TAKEN',
    );
    const file = await s.store.files.move({ ...s.at, filename: 'n.md', body: { to: 'm.md', dry_run: true } });
    expect(file.filename).toBe('m.md');
    expect(await s.paths()).toEqual(['a.png', 'taken.png']);
    expect(await s.text('n.md')).toBe('# N\n');
    expect((await s.events()).length).toBe(before);
  });

  it('rewrite_links with no link to rewrite still moves, in a changeset of its own', async () => {
    const s = await scene();
    await s.write('a.png', PNG, 'image/png');
    const moved = await s.move('a.png', { to: 'b.png', rewrite_links: true });
    expect(moved).toMatchObject({ path: 'b.png', rewritten: [] });
    expect(await s.paths()).toEqual(['b.png']);
  });

  it('a file move rewrites its own relative links to attachments when its folder changes', async () => {
    const s = await scene();
    await s.write('notes/img/a.png', PNG, 'image/png');
    await s.put('notes/n.md', '![](img/a.png)\n');
    const moved = await s.store.files.move({
      ...s.at,
      filename: 'notes/n.md',
      body: { to: 'archive/2026/n.md', rewrite_links: true },
    });
    expect(moved.rewritten).toEqual([{ filename: 'archive/2026/n.md', links: 1 }]);
    expect(await s.text('archive/2026/n.md')).toBe('![](../../notes/img/a.png)\n');
  });

  it('a concurrent change plans again: of a linking file, or of the attachment itself; one that keeps changing is 409', async () => {
    for (const [what, times] of [
      ['note', 1],
      ['attachment', 1],
      ['note', 100],
    ] as const) {
      let armed = false;
      let changes = 0;
      let s: Awaited<ReturnType<typeof scene>> | undefined;
      // At the plan's read of the linking file's content, another writer changes the note or the attachment.
      const plan = {
        decide: (call: FaultCall) => {
          if (!armed || call.method !== 'readInlineContent' || changes >= times) return undefined;
          changes++;
          return pausing(async () => {
            armed = false;
            if (what === 'note')
              await s!.store.files.edit({
                ...s!.at,
                filename: 'n.md',
                body: { edits: [{ op: 'append', text: `Edit ${changes}.\n` }] },
              });
            else await s!.write('a.png', PDF, 'application/pdf');
            armed = true;
          });
        },
      };
      s = await scene((records) => withRecordsFaults(records, plan));
      await s.write('a.png', PNG, 'image/png');
      await s.put('n.md', '![](a.png)\n');
      armed = true;
      const outcome = await s.move('a.png', { to: 'b.png', rewrite_links: true }).catch((e: unknown) => e);
      armed = false;
      if (times === 100) {
        expect(outcome).toMatchObject({ code: 'EDIT_CONFLICT' });
        expect(changes).toBe(3);
        expect(await s.paths()).toEqual(['a.png']);
        expect(await s.text('n.md')).toBe('![](a.png)\nEdit 1.\nEdit 2.\nEdit 3.\n');
        continue;
      }
      expect(outcome).toMatchObject({ path: 'b.png', rewritten: [{ filename: 'n.md', links: 1 }] });
      expect(await s.paths()).toEqual(['b.png']);
      if (what === 'note') expect(await s.text('n.md')).toBe('![](b.png)\nEdit 1.\n');
      else {
        expect(await s.text('n.md')).toBe('![](b.png)\n');
        // The replaced attachment moved, with the bytes written meanwhile.
        expect(outcome).toMatchObject({ contentType: 'application/pdf' });
      }
    }
  });
});
