import type { ArchiveEntry, ImportArchive, MdStore, Principal, ProjectExport } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import {
  anAccount,
  blobKeys,
  codeOf,
  createFixture,
  failingMethod,
  textStream,
  withTransactionWrapper,
} from './support/fixture.js';

/**
 * Whole vaults (extensions §10, §12; issue 37 item 3): an export carries the project's attachments
 * after its files, and an import makes attachments of an archive's other entries, in the changeset's
 * transaction (whole or nothing).
 */

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

async function* bytesOf(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

async function* archiveOf(entries: Record<string, string | Uint8Array>): ImportArchive {
  for (const [name, data] of Object.entries(entries)) {
    const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
    const entry: ArchiveEntry = { name, kind: 'file', size: bytes.length, read: async () => bytes };
    yield entry;
  }
}

async function drained(content: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of content) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function exported(exp: ProjectExport) {
  const files: string[] = [];
  for await (const { file, content } of exp.files) {
    await drained(content);
    files.push(file.filename);
  }
  const attachments: Array<{ path: string; contentType: string; bytes: Buffer; sha256: string }> = [];
  for await (const { attachment, content } of exp.attachments) {
    attachments.push({
      path: attachment.path,
      contentType: attachment.contentType,
      sha256: attachment.sha256,
      bytes: await drained(content),
    });
  }
  return { files, attachments };
}

async function scene(settings = {}) {
  const f = createFixture({ settings });
  const alice = await anAccount(f.store, 'alice');
  const at = { principal: alice.principal, projectId: alice.defaultProjectId };
  const attach = (
    path: string,
    bytes: Uint8Array,
    contentType: string,
    principal: Principal = alice.principal,
  ) => f.store.attachments.write({ ...at, principal, path, contentType, content: bytesOf(bytes) });
  return { ...f, alice, at, attach };
}

const attachmentsOf = async (store: MdStore, at: { principal: Principal; projectId: string }) =>
  (await store.attachments.list({ ...at, params: { limit: '1000' } })).attachments.map((a) => [
    a.path,
    a.contentType,
    a.sizeBytes,
  ]);

describe('exporting attachments', () => {
  it('gives every attachment after the files, in path order, with its bytes; prefix and a key’s folders narrow them', async () => {
    const { store, at, attach } = await scene();
    await store.files.upload({ ...at, filename: 'notes/a.md', content: textStream('# A\n![[p.png]]\n') });
    await attach('notes/p.png', PNG, 'image/png');
    await attach('docs/q3.pdf', PDF, 'application/pdf');
    await attach('notes/deep/x.txt', Buffer.from('text'), 'text/plain');
    const all = await exported(await store.projects.export(at));
    expect(all.files).toEqual(['notes/a.md']);
    expect(all.attachments.map((a) => [a.path, a.contentType])).toEqual([
      ['docs/q3.pdf', 'application/pdf'],
      ['notes/deep/x.txt', 'text/plain'],
      ['notes/p.png', 'image/png'],
    ]);
    expect(all.attachments[2]!.bytes.equals(PNG)).toBe(true);
    expect(all.attachments[0]!.bytes.equals(PDF)).toBe(true);
    const notes = await exported(await store.projects.export({ ...at, prefix: 'notes/d' }));
    expect(notes.attachments.map((a) => a.path)).toEqual(['notes/deep/x.txt']);
    const key = await store.keys.create({
      principal: at.principal,
      body: { name: 'k', role: 'read', path_prefixes: ['docs'] },
    });
    const confined = await store.authenticate({ apiKey: key.apiKey });
    const reached = await exported(await store.projects.export({ ...at, principal: confined }));
    expect([reached.files, reached.attachments.map((a) => a.path)]).toEqual([[], ['docs/q3.pdf']]);
  });
});

describe('importing attachments', () => {
  it('merge: creates them with the type the manifest or the extension gives, judged by the bytes; same bytes unchanged', async () => {
    const { store, at, blobs } = await scene();
    const manifest = JSON.stringify({
      files: [],
      attachments: [{ path: 'odd.bin', content_type: 'application/x-odd' }],
    });
    const first = await store.projects.import({
      ...at,
      archive: archiveOf({
        'n/a.md': '# A\n![[p.png]] [[q.pdf]]\n',
        'n/p.png': PNG,
        'q.pdf': PDF,
        'odd.bin': 'odd',
        'fake.png': 'not a png',
        'mdstore.json': manifest,
      }),
    });
    expect(first.created).toEqual(['n/a.md', 'n/p.png', 'odd.bin', 'q.pdf']);
    expect(first.skipped).toEqual([
      { name: 'fake.png', reason: 'its bytes are not what its content type says (image/png)' },
    ]);
    expect(first.changesetId).not.toBeNull();
    expect(await attachmentsOf(store, at)).toEqual([
      ['n/p.png', 'image/png', PNG.length],
      ['odd.bin', 'application/x-odd', 3],
      ['q.pdf', 'application/pdf', PDF.length],
    ]);
    const project = await store.projects.get(at);
    expect([project.attachmentCount, project.attachmentBytes]).toEqual([3, PNG.length + PDF.length + 3]);
    const read = await store.attachments.read({ ...at, path: 'n/p.png' });
    expect(read.kind === 'content' && (await drained(read.content!)).equals(PNG)).toBe(true);

    // Again, one PNG replaced by the PDF's bytes as a PDF: that one updated (its old blob freed), the rest unchanged.
    const keysBefore = await blobKeys(blobs, await bucketOf(store, at));
    expect(keysBefore).toHaveLength(3);
    const second = await store.projects.import({
      ...at,
      archive: archiveOf({
        'n/a.md': '# A\n![[p.png]] [[q.pdf]]\n',
        'n/p.png': PNG,
        'q.pdf': PDF,
        'odd.bin': 'odd',
        'mdstore.json': manifest,
      }),
    });
    expect([second.created, second.updated, second.unchanged, second.changesetId]).toEqual([
      [],
      [],
      ['n/a.md', 'n/p.png', 'odd.bin', 'q.pdf'],
      null,
    ]);
    expect(await blobKeys(blobs, await bucketOf(store, at))).toEqual(keysBefore);
    const third = await store.projects.import({ ...at, archive: archiveOf({ 'odd.bin': 'changed' }) });
    expect([third.updated, third.unchanged]).toEqual([['odd.bin'], []]);
    expect(await attachmentsOf(store, at)).toContainEqual(['odd.bin', 'application/octet-stream', 7]);
    // The replaced blob is gone: as many blobs as before.
    expect((await blobKeys(blobs, await bucketOf(store, at))).length).toBe(keysBefore.length);
  });

  it('replace: deletes the attachments the archive lacks', async () => {
    const { store, at, attach } = await scene();
    await attach('old.png', PNG, 'image/png');
    await attach('kept.pdf', PDF, 'application/pdf');
    const result = await store.projects.import({
      ...at,
      mode: 'replace',
      archive: archiveOf({ 'kept.pdf': PDF, 'a.md': '# a' }),
    });
    expect([result.created, result.unchanged, result.deleted]).toEqual([['a.md'], ['kept.pdf'], ['old.png']]);
    expect(await attachmentsOf(store, at)).toEqual([['kept.pdf', 'application/pdf', PDF.length]]);
    expect((await store.projects.get(at)).attachmentCount).toBe(1);
  });

  it('a dry run writes nothing', async () => {
    const { store, at, blobs } = await scene();
    const result = await store.projects.import({ ...at, dryRun: true, archive: archiveOf({ 'p.png': PNG }) });
    expect(result.created).toEqual(['p.png']);
    expect(await attachmentsOf(store, at)).toEqual([]);
    expect(await blobKeys(blobs, await bucketOf(store, at))).toEqual([]);
  });

  it('whole or nothing: past the storage bound, or a failing commit, leaves no file, attachment or blob', async () => {
    const bounded = await scene({ maxProjectBytes: PNG.length + 10 });
    const archive = () => archiveOf({ 'a.md': '# a', 'p.png': PNG, 'q.pdf': PDF });
    expect(await codeOf(() => bounded.store.projects.import({ ...bounded.at, archive: archive() }))).toBe(
      'STORAGE_LIMIT_REACHED',
    );
    expect(await attachmentsOf(bounded.store, bounded.at)).toEqual([]);
    expect((await bounded.store.files.list(bounded.at)).files).toEqual([]);
    expect(await blobKeys(bounded.blobs, await bucketOf(bounded.store, bounded.at))).toEqual([]);

    let fail = false;
    const f = createFixture({
      wrapRecords: (inner) =>
        withTransactionWrapper(inner, (tx) =>
          failingMethod(
            tx,
            'insertAttachment',
            () => new Error('boom'),
            () => fail,
          ),
        ),
    });
    const alice = await anAccount(f.store, 'alice');
    const at = { principal: alice.principal, projectId: alice.defaultProjectId };
    fail = true;
    // The attachments' records are written last in the transaction, after the files'.
    await expect(f.store.projects.import({ ...at, archive: archive() })).rejects.toThrow('boom');
    fail = false;
    expect(await attachmentsOf(f.store, at)).toEqual([]);
    expect((await f.store.files.list(at)).files).toEqual([]);
    expect(await blobKeys(f.blobs, await bucketOf(f.store, at))).toEqual([]);
  });
});

async function bucketOf(store: MdStore, at: { principal: Principal; projectId: string }): Promise<string> {
  return (await store.projects.get(at)).bucketName;
}
