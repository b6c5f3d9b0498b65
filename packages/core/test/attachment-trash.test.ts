import type { ProjectView } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { DAY_MS } from '../src/defaults/trash.js';
import { readAll } from './faults/support.js';
import { anAccount, blobKeys, codeOf, createFixture, textStream } from './support/fixture.js';

/**
 * A deleted attachment goes to the trash when the project keeps one (extensions §12, §5): listed with
 * `kind: attachment` and its path, restored with the same bytes, its blob held while any item or twin
 * references it and freed by purge, delete from the trash and expiry; a taken path is 409; a project
 * without a trash deletes for good, as before; a changeset's `detach` goes to the trash too; a project
 * restored as of a time leaves attachments alone.
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

async function scene(retentionDays = 7, settings: { maxProjectBytes?: number } = {}) {
  const fixture = createFixture({ settings });
  const { store, clock } = fixture;
  const alice = await anAccount(store, 'alice');
  const project = await store.projects.create({
    principal: alice.principal,
    body: { name: 'bin', settings: { trash_retention_days: retentionDays } },
  });
  const at = { principal: alice.principal, projectId: project.id };
  const write = async (path: string, content = PNG, contentType = 'image/png') => {
    clock.advance(1000);
    return (await store.attachments.write({ ...at, path, contentType, content: bytes(content) })).attachment;
  };
  const remove = async (path: string) => {
    clock.advance(1000);
    await store.attachments.delete({ ...at, path });
  };
  const read = async (path: string) => {
    const download = await store.attachments.read({ ...at, path });
    if (download.kind !== 'content' || !download.content) throw new Error('no content');
    return readAll(download.content);
  };
  const trash = async () => (await store.trash.list(at)).trash;
  const projectNow = async (): Promise<ProjectView> => store.projects.get(at);
  const counters = async () => {
    const p = await projectNow();
    return { attachments: p.attachmentCount, attachmentBytes: p.attachmentBytes, trash: p.trashSizeBytes };
  };
  const keys = () => blobKeys(fixture.blobs, project.bucketName);
  const events = async () => (await store.changes.list({ principal: alice.principal })).changes;
  return { ...fixture, at, project, write, remove, read, trash, counters, keys, events };
}

describe('attachments in the trash (extensions §12)', () => {
  it('a delete moves the attachment to the trash; a restore brings back the same bytes at its path', async () => {
    const s = await scene();
    const written = await s.write('img/ü a.png');
    await s.remove('img/ü a.png');
    expect(await codeOf(() => s.read('img/ü a.png'))).toBe('ATTACHMENT_NOT_FOUND');
    const [item] = await s.trash();
    expect(item).toMatchObject({
      kind: 'attachment',
      path: 'img/ü a.png',
      filename: 'img/ü a.png',
      contentType: 'image/png',
      sizeBytes: PNG.length,
      revision: 1,
    });
    expect(item!.expiresAt - item!.deletedAt).toBe(7 * DAY_MS);
    expect(await s.counters()).toEqual({ attachments: 0, attachmentBytes: 0, trash: PNG.length });
    expect(await s.keys()).toHaveLength(1);
    expect((await s.events()).at(-1)).toMatchObject({ type: 'attachment.deleted', filename: 'img/ü a.png' });

    s.clock.advance(1000);
    const restored = await s.store.trash.restore({ ...s.at, trashId: item!.trashId });
    expect('attachment' in restored && restored.attachment).toMatchObject({
      path: 'img/ü a.png',
      contentType: 'image/png',
      sha256: written.sha256,
      createdAt: written.createdAt,
      updatedAt: s.clock.now(),
    });
    expect('attachment' in restored && restored.attachment.etag).not.toBe(written.etag);
    expect(Buffer.from(await s.read('img/ü a.png'))).toEqual(Buffer.from(PNG));
    expect(await s.trash()).toEqual([]);
    expect(await s.counters()).toEqual({ attachments: 1, attachmentBytes: PNG.length, trash: 0 });
    expect((await s.events()).at(-1)).toMatchObject({ type: 'attachment.created', filename: 'img/ü a.png' });
    expect(await codeOf(() => s.store.trash.restore({ ...s.at, trashId: item!.trashId }))).toBe(
      'TRASH_ITEM_NOT_FOUND',
    );
  });

  it('file items keep their shape, kind file and no path', async () => {
    const s = await scene();
    await s.store.files.upload({ ...s.at, filename: 'a.md', content: textStream('# a\n') });
    await s.store.files.delete({ ...s.at, filename: 'a.md' });
    const [item] = await s.trash();
    expect(item).toMatchObject({ kind: 'file', filename: 'a.md' });
    expect(item).not.toHaveProperty('path');
    expect(item).not.toHaveProperty('contentType');
  });

  it('restores under `to` (an attachment path); a taken path is 409 and changes nothing', async () => {
    const s = await scene();
    await s.write('a.png');
    await s.remove('a.png');
    await s.write('a.png', PDF, 'application/pdf');
    const [item] = await s.trash();
    const before = await s.counters();
    expect(await codeOf(() => s.store.trash.restore({ ...s.at, trashId: item!.trashId }))).toBe(
      'ATTACHMENT_PATH_TAKEN',
    );
    expect(await s.counters()).toEqual(before);
    expect(await s.trash()).toHaveLength(1);
    expect(
      await codeOf(() => s.store.trash.restore({ ...s.at, trashId: item!.trashId, body: { to: 'a.md' } })),
    ).toBe('ATTACHMENT_PATH_IS_FILE');
    const moved = await s.store.trash.restore({ ...s.at, trashId: item!.trashId, body: { to: 'old/a.png' } });
    expect('attachment' in moved && moved.attachment.path).toBe('old/a.png');
    expect(Buffer.from(await s.read('old/a.png'))).toEqual(Buffer.from(PNG));
    expect(Buffer.from(await s.read('a.png'))).toEqual(Buffer.from(PDF));
  });

  it('twin bytes stay while one twin is in the trash; delete from the trash frees them when none is left', async () => {
    const s = await scene();
    await s.write('a.png');
    await s.write('b.png');
    expect(await s.keys()).toHaveLength(1);
    await s.remove('a.png');
    await s.remove('b.png');
    // Both in the trash, one blob held by both.
    expect(await s.keys()).toHaveLength(1);
    const [b, a] = await s.trash();
    await s.store.trash.delete({ ...s.at, trashId: a!.trashId });
    expect(await s.keys()).toHaveLength(1);
    expect(await s.counters()).toEqual({ attachments: 0, attachmentBytes: 0, trash: PNG.length });
    const restored = await s.store.trash.restore({ ...s.at, trashId: b!.trashId });
    expect('attachment' in restored).toBe(true);
    expect(Buffer.from(await s.read('b.png'))).toEqual(Buffer.from(PNG));
    await s.remove('b.png');
    const [again] = await s.trash();
    await s.store.trash.delete({ ...s.at, trashId: again!.trashId });
    expect(await s.keys()).toEqual([]);
    expect(await s.counters()).toEqual({ attachments: 0, attachmentBytes: 0, trash: 0 });
  });

  it('a live twin keeps the bytes when the trashed one is purged; expiry frees them', async () => {
    const s = await scene(1);
    await s.write('a.png');
    await s.write('b.png');
    await s.remove('a.png');
    const [item] = await s.trash();
    await s.store.trash.delete({ ...s.at, trashId: item!.trashId });
    expect(Buffer.from(await s.read('b.png'))).toEqual(Buffer.from(PNG));
    await s.remove('b.png');
    expect(await s.keys()).toHaveLength(1);
    s.clock.advance(DAY_MS);
    expect(await s.store.maintenance.expireTrash()).toEqual({ purged: 1, failures: 0 });
    expect(await s.keys()).toEqual([]);
    expect(await s.counters()).toEqual({ attachments: 0, attachmentBytes: 0, trash: 0 });
  });

  it("a changeset's detach goes to the trash too, as its file deletes do", async () => {
    const s = await scene();
    await s.write('a.png');
    await s.store.changesets.apply({ ...s.at, operations: [{ op: 'detach', path: 'a.png' }] });
    expect(await codeOf(() => s.read('a.png'))).toBe('ATTACHMENT_NOT_FOUND');
    const [item] = await s.trash();
    expect(item).toMatchObject({ kind: 'attachment', path: 'a.png', sizeBytes: PNG.length });
    expect(await s.counters()).toEqual({ attachments: 0, attachmentBytes: 0, trash: PNG.length });
    expect(await s.keys()).toHaveLength(1);
    await s.store.trash.restore({ ...s.at, trashId: item!.trashId });
    expect(Buffer.from(await s.read('a.png'))).toEqual(Buffer.from(PNG));
  });

  it('without a trash the delete is final, as before', async () => {
    const s = await scene(0);
    await s.write('a.png');
    await s.remove('a.png');
    expect(await s.trash()).toEqual([]);
    expect(await s.keys()).toEqual([]);
    expect(await s.counters()).toEqual({ attachments: 0, attachmentBytes: 0, trash: 0 });
  });

  it('the trash bytes count towards the storage bound as files do', async () => {
    const s = await scene(7, { maxProjectBytes: PNG.length + PDF.length - 1 });
    await s.write('a.png');
    await s.remove('a.png');
    expect(await codeOf(() => s.write('b.pdf', PDF, 'application/pdf'))).toBe('STORAGE_LIMIT_REACHED');
    const [item] = await s.trash();
    await s.store.trash.delete({ ...s.at, trashId: item!.trashId });
    expect((await s.write('b.pdf', PDF, 'application/pdf')).path).toBe('b.pdf');
  });

  it('a project restored as of a time leaves attachments in the trash alone', async () => {
    const s = await scene();
    await s.store.files.upload({ ...s.at, filename: 'a.md', content: textStream('# a\n') });
    await s.write('a.png');
    s.clock.advance(1000);
    const asOf = s.clock.now();
    await s.remove('a.png');
    await s.store.files.delete({ ...s.at, filename: 'a.md' });
    s.clock.advance(1000);
    const result = await s.store.restore.asOf({ ...s.at, body: { as_of: new Date(asOf).toISOString() } });
    expect(result.created.map((c) => c.filename)).toEqual(['a.md']);
    expect(result.unrecoverable).toEqual([]);
    const left = await s.trash();
    expect(left.filter((item) => item.kind === 'attachment').map((item) => item.filename)).toEqual(['a.png']);
  });
});
