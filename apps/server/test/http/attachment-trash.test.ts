import { createHash } from 'node:crypto';
import { DAY_MS } from '@mdstore/core';
import { expectedAccounting } from '@mdstore/core/testing';
import { describe, expect } from 'vitest';
import { type HttpHarness, serverTest } from '../support/http-harness.js';

/**
 * A deleted attachment in the trash (extensions §12, §5) over HTTP, on whichever adapter set runs the
 * suite (memory here; SQLite + filesystem and Postgres + S3 through test/matrix): with
 * `trash_retention_days` above 0, `DELETE …/attachments/{path}` moves it to the trash, listed with
 * `kind: "attachment"` and its `path` (file items gain `kind: "file"` only); a restore answers 201 with
 * the Attachment, readable again with the same bytes; twin bytes stay while a twin is in the trash; a
 * delete from the trash and expiry free the blob once nothing references it; a taken path is 409; with
 * 0 the delete is final, as before. A changeset's `detach` goes to the trash the same way.
 */
const test = serverTest();

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

interface TrashItemJson {
  trash_id: string;
  filename: string;
  size_bytes: number;
  revision: number;
  kind: 'file' | 'attachment';
  path?: string;
  content_type?: string;
}

async function scene(h: HttpHarness, days: number) {
  const { apiKey } = await h.account();
  const created = await h.json('/api/projects', 'POST', apiKey, {
    name: 'Trash',
    settings: { trash_retention_days: days },
  });
  expect(created.status).toBe(201);
  const { id: projectId } = (await created.json()) as { id: string };
  const base = `/api/projects/${projectId}`;
  const url = (path: string) => `${base}/attachments/${encodeURIComponent(path)}`;
  const put = async (path: string, body: Buffer = PNG, type = 'image/png') => {
    const response = await h.fetch(url(path), {
      method: 'PUT',
      key: apiKey,
      headers: { 'Content-Type': type },
      body,
    });
    expect(response.status).toBe(201);
  };
  const remove = async (path: string) => {
    const response = await h.fetch(url(path), { method: 'DELETE', key: apiKey });
    expect(response.status).toBe(204);
  };
  const get = (path: string) => h.fetch(url(path), { key: apiKey });
  const trash = async () => {
    const response = await h.fetch(`${base}/trash`, { key: apiKey });
    expect(response.status).toBe(200);
    return ((await response.json()) as { trash: TrashItemJson[] }).trash;
  };
  const restore = (trashId: string, body?: unknown) => {
    const path = `${base}/trash/${encodeURIComponent(trashId)}/restore`;
    return body === undefined
      ? h.fetch(path, { method: 'POST', key: apiKey })
      : h.json(path, 'POST', apiKey, body);
  };
  const purge = async (trashId: string) => {
    const response = await h.fetch(`${base}/trash/${encodeURIComponent(trashId)}`, {
      method: 'DELETE',
      key: apiKey,
    });
    expect(response.status).toBe(204);
  };
  const project = async () => (await h.adapters.records.findProjectById({ projectId }))!;
  /** The blob keys of the project's bucket. */
  const keys = async () => {
    const found: string[] = [];
    for await (const { key } of h.adapters.blobs.list!({ bucket: (await project()).bucketName }))
      found.push(key);
    return found;
  };
  /** Counters equal what the records add up to, and no blob note is left. */
  const exact = async () => {
    const p = await project();
    const expected = await expectedAccounting(h.adapters.records, p);
    expect([p.attachmentCount, p.attachmentBytes, p.trashSizeBytes]).toEqual([
      expected.attachmentCount,
      expected.attachmentBytes,
      expected.trashSizeBytes,
    ]);
    expect(await h.adapters.records.listBlobIntents({ limit: 10 })).toEqual([]);
    return [p.attachmentCount, p.attachmentBytes, p.trashSizeBytes];
  };
  const changes = async () => {
    const response = await h.fetch('/api/changes?since=0&limit=1000', { key: apiKey });
    return ((await response.json()) as { changes: { type: string; filename: string }[] }).changes;
  };
  return { apiKey, projectId, put, remove, get, trash, restore, purge, keys, exact, changes };
}

describe('attachments in the trash (extensions §12)', () => {
  test('delete → listed with kind and path → restore → readable with the same bytes', async (h) => {
    const s = await scene(h, 7);
    await s.put('img/ü a.png');
    await h.uploadFile(s.apiKey, s.projectId, 'a.md', '# a\n');
    await s.remove('img/ü a.png');
    await h.fetch(`/api/projects/${s.projectId}/files/a.md`, { method: 'DELETE', key: s.apiKey });
    expect((await s.get('img/ü a.png')).status).toBe(404);
    const [file, item] = await s.trash();
    expect(file).toMatchObject({ kind: 'file', filename: 'a.md' });
    expect(file).not.toHaveProperty('path');
    expect(item).toMatchObject({
      kind: 'attachment',
      filename: 'img/ü a.png',
      path: 'img/ü a.png',
      content_type: 'image/png',
      size_bytes: PNG.length,
      revision: 1,
    });
    expect(await s.exact()).toEqual([0, 0, PNG.length + 4]);
    expect(await s.keys()).toHaveLength(1);

    const restored = await s.restore(item!.trash_id);
    expect(restored.status).toBe(201);
    const body = (await restored.json()) as { path: string; sha256: string; etag: string };
    expect(body).toMatchObject({ path: 'img/ü a.png', sha256: sha(PNG), content_type: 'image/png' });
    expect(restored.headers.get('etag')).toBe(body.etag);
    const read = await s.get('img/ü a.png');
    expect(read.status).toBe(200);
    expect(read.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await read.arrayBuffer())).toEqual(PNG);
    expect(await s.exact()).toEqual([1, PNG.length, 4]);
    const types = (await s.changes()).filter((c) => c.filename === 'img/ü a.png').map((c) => c.type);
    expect(types).toEqual(['attachment.created', 'attachment.deleted', 'attachment.created']);
    expect((await s.restore(item!.trash_id)).status).toBe(404);
  });

  test('twin bytes are kept while one twin is in the trash; a delete from the trash frees them', async (h) => {
    const s = await scene(h, 7);
    await s.put('a.png');
    await s.put('b.png');
    await s.remove('a.png');
    await s.remove('b.png');
    expect(await s.keys()).toHaveLength(1);
    const [b, a] = await s.trash();
    await s.purge(a!.trash_id);
    expect(await s.keys()).toHaveLength(1);
    expect((await s.restore(b!.trash_id, {})).status).toBe(201);
    expect(Buffer.from(await (await s.get('b.png')).arrayBuffer())).toEqual(PNG);
    await s.remove('b.png');
    const [again] = await s.trash();
    await s.purge(again!.trash_id);
    expect(await s.keys()).toEqual([]);
    expect(await s.exact()).toEqual([0, 0, 0]);
  });

  test('expiry frees the blob once nothing references it', async (h) => {
    const s = await scene(h, 1);
    await s.put('a.png');
    await s.remove('a.png');
    expect(await s.keys()).toHaveLength(1);
    h.clock.advance(2 * DAY_MS);
    await h.store.maintenance.reconcile();
    expect(await s.trash()).toEqual([]);
    expect(await s.keys()).toEqual([]);
    expect(await s.exact()).toEqual([0, 0, 0]);
  });

  test('a restore to a taken path is 409 and changes nothing; `to` restores elsewhere', async (h) => {
    const s = await scene(h, 7);
    await s.put('a.png');
    await s.remove('a.png');
    await s.put('a.png', PDF, 'application/pdf');
    const [item] = await s.trash();
    const taken = await s.restore(item!.trash_id);
    expect(taken.status).toBe(409);
    expect(await s.trash()).toHaveLength(1);
    expect((await s.restore(item!.trash_id, { to: 'note.md' })).status).toBe(409);
    const moved = await s.restore(item!.trash_id, { to: 'old/a.png' });
    expect(moved.status).toBe(201);
    expect(Buffer.from(await (await s.get('old/a.png')).arrayBuffer())).toEqual(PNG);
    expect(Buffer.from(await (await s.get('a.png')).arrayBuffer())).toEqual(PDF);
    expect(await s.exact()).toEqual([2, PNG.length + PDF.length, 0]);
  });

  test("a changeset's detach goes to the trash too", async (h) => {
    const s = await scene(h, 7);
    await s.put('a.png');
    const body = { operations: [{ op: 'detach', path: 'a.png' }] };
    const applied = await h.json(`/api/projects/${s.projectId}/changesets`, 'POST', s.apiKey, body);
    expect(applied.status).toBe(200);
    expect((await s.get('a.png')).status).toBe(404);
    const [item] = await s.trash();
    expect(item).toMatchObject({ kind: 'attachment', path: 'a.png', size_bytes: PNG.length });
    expect(await s.keys()).toHaveLength(1);
    expect(await s.exact()).toEqual([0, 0, PNG.length]);
    expect((await s.restore(item!.trash_id)).status).toBe(201);
    expect(Buffer.from(await (await s.get('a.png')).arrayBuffer())).toEqual(PNG);
  });

  test('a project without a trash deletes for good, as before', async (h) => {
    const s = await scene(h, 0);
    await s.put('a.png');
    await s.remove('a.png');
    expect(await s.trash()).toEqual([]);
    expect(await s.keys()).toEqual([]);
    expect(await s.exact()).toEqual([0, 0, 0]);
  });
});
