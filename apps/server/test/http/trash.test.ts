import { createMdStore, DAY_MS, type RecordsReader } from '@mdstore/core';
import { expectedAccounting } from '@mdstore/core/testing';
import { describe, expect } from 'vitest';
import { projectJson } from '../support/conditional.js';
import { type HttpHarness, serverTest } from '../support/http-harness.js';

/**
 * The trash (extensions §5): with `settings.trash_retention_days` above 0 a deleted file goes to the
 * project's trash (name freed, counters moved to `trash_size_bytes`, history kept with it), listed newest
 * deletion first, restored (201, a new revision `restore`, 409 on a taken name) or removed for good
 * (204), purged by the reconciler once expired (on every instance, each item once), emptied with its
 * project. With 0 a delete is what it always was. The core's clock is advanced instead of waiting.
 */
const test = serverTest();

interface TrashItem {
  trash_id: string;
  filename: string;
  size_bytes: number;
  revision: number;
  deleted_date: string;
  expires_date: string;
}
interface TrashPage {
  trash: TrashItem[];
  total_count: number;
  next_cursor: string | null;
}

async function projectWithTrash(h: HttpHarness, days: number) {
  const { apiKey } = await h.account();
  const response = await h.json('/api/projects', 'POST', apiKey, {
    name: 'Trash',
    settings: { trash_retention_days: days },
  });
  expect(response.status).toBe(201);
  const { id } = (await response.json()) as { id: string };
  return { apiKey, projectId: id };
}

const fileUrl = (projectId: string, filename: string) =>
  `/api/projects/${projectId}/files/${encodeURIComponent(filename)}`;

async function deleteFile(h: HttpHarness, key: string, projectId: string, filename: string) {
  const response = await h.fetch(fileUrl(projectId, filename), { method: 'DELETE', key });
  expect(response.status).toBe(204);
}

async function listTrash(h: HttpHarness, key: string, projectId: string, query = '') {
  const response = await h.fetch(`/api/projects/${projectId}/trash${query}`, { key });
  return { status: response.status, body: (await response.json()) as TrashPage };
}

async function restore(h: HttpHarness, key: string, projectId: string, trashId: string, body?: unknown) {
  const path = `/api/projects/${projectId}/trash/${encodeURIComponent(trashId)}/restore`;
  const response =
    body === undefined ? await h.fetch(path, { method: 'POST', key }) : await h.json(path, 'POST', key, body);
  const json = (await response.json()) as Record<string, unknown> & { detail?: Array<{ loc: unknown }> };
  return { status: response.status, etag: response.headers.get('etag'), body: json };
}

async function purge(h: HttpHarness, key: string, projectId: string, trashId: string) {
  const path = `/api/projects/${projectId}/trash/${encodeURIComponent(trashId)}`;
  const response = await h.fetch(path, { method: 'DELETE', key });
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : JSON.parse(text) };
}

async function counters(h: HttpHarness, key: string, projectId: string) {
  const { body } = await projectJson(h, key, projectId);
  return {
    file_count: body.file_count,
    total_size_bytes: body.total_size_bytes,
    history_size_bytes: body.history_size_bytes,
    trash_size_bytes: body.trash_size_bytes,
  };
}

async function download(h: HttpHarness, key: string, projectId: string, filename: string) {
  const response = await h.fetch(fileUrl(projectId, filename), { key });
  return { status: response.status, text: await response.text() };
}

async function updateContent(h: HttpHarness, key: string, projectId: string, filename: string, text: string) {
  const response = await h.fetch(`${fileUrl(projectId, filename)}/content`, {
    method: 'PUT',
    key,
    headers: { 'Content-Type': 'text/markdown' },
    body: text,
  });
  expect(response.status).toBe(200);
}

/** Every content version a file's kept revisions point to, wherever it lives. */
async function contentsOf(records: RecordsReader, projectId: string, filename: string) {
  const file = (await records.findFile({ projectId, filename }))!;
  return { fileId: file.id, versions: await records.listRevisionContents({ fileId: file.id }) };
}

/** Whether a content version is still stored (inline row or blob). */
async function stored(
  h: HttpHarness,
  projectId: string,
  version: { contentKey: string; inline: boolean },
): Promise<boolean> {
  const { records, blobs } = h.adapters;
  if (version.inline)
    return (await records.readInlineContent({ projectId, contentKey: version.contentKey })) !== null;
  const project = (await records.findProjectById({ projectId }))!;
  return (await blobs.stat({ bucket: project.bucketName, key: version.contentKey })) !== null;
}

/** The project's counters equal what its records add up to, and no blob note is left. */
async function expectExactAccounting(h: HttpHarness, projectId: string) {
  const { records } = h.adapters;
  const project = (await records.findProjectById({ projectId }))!;
  const expected = await expectedAccounting(records, project);
  expect({
    fileCount: project.fileCount,
    totalSizeBytes: project.totalSizeBytes,
    historySizeBytes: project.historySizeBytes,
    trashSizeBytes: project.trashSizeBytes,
  }).toEqual({
    fileCount: expected.fileCount,
    totalSizeBytes: expected.totalSizeBytes,
    historySizeBytes: expected.historySizeBytes,
    trashSizeBytes: expected.trashSizeBytes,
  });
  expect(await records.listBlobIntents({ limit: 10 })).toEqual([]);
}

describe('delete with the trash off or on', () => {
  test('with trash_retention_days 0 a delete removes the file, its history and its content for good', async (h) => {
    const { apiKey, projectId } = await projectWithTrash(h, 0);
    await h.uploadFile(apiKey, projectId, 'a.md', '# one\n');
    await updateContent(h, apiKey, projectId, 'a.md', '# two\n');
    const { fileId, versions } = await contentsOf(h.adapters.records, projectId, 'a.md');
    await deleteFile(h, apiKey, projectId, 'a.md');

    expect((await listTrash(h, apiKey, projectId)).body).toEqual({
      trash: [],
      total_count: 0,
      next_cursor: null,
    });
    expect(await counters(h, apiKey, projectId)).toEqual({
      file_count: 0,
      total_size_bytes: 0,
      history_size_bytes: 0,
      trash_size_bytes: 0,
    });
    expect(await h.adapters.records.listRevisionContents({ fileId })).toEqual([]);
    for (const version of versions) expect(await stored(h, projectId, version)).toBe(false);
    await expectExactAccounting(h, projectId);
  });

  test('above 0 the file goes to the trash: name free, counters moved to trash_size_bytes, content and history kept', async (h) => {
    const { apiKey, projectId } = await projectWithTrash(h, 7);
    await h.uploadFile(apiKey, projectId, 'a.md', '# first version\n');
    await updateContent(h, apiKey, projectId, 'a.md', '# second\n');
    await h.uploadFile(apiKey, projectId, 'b.md', '# other\n');
    const before = await counters(h, apiKey, projectId);
    expect(before).toEqual({
      file_count: 2,
      total_size_bytes: 17,
      history_size_bytes: 16,
      trash_size_bytes: 0,
    });
    const { fileId, versions } = await contentsOf(h.adapters.records, projectId, 'a.md');
    const deletedAt = h.clock.now();
    await deleteFile(h, apiKey, projectId, 'a.md');

    expect(await counters(h, apiKey, projectId)).toEqual({
      file_count: 1,
      total_size_bytes: 8,
      history_size_bytes: 0,
      trash_size_bytes: 9 + 16,
    });
    expect((await download(h, apiKey, projectId, 'a.md')).status).toBe(404);
    const files = (await (await h.fetch(`/api/projects/${projectId}/files`, { key: apiKey })).json()) as {
      files: Array<{ filename: string }>;
    };
    expect(files.files.map((file) => file.filename)).toEqual(['b.md']);
    const { body } = await listTrash(h, apiKey, projectId);
    expect(body.total_count).toBe(1);
    const [item] = body.trash;
    expect(item).toMatchObject({ filename: 'a.md', size_bytes: 9, revision: 2 });
    expect(Date.parse(item!.deleted_date)).toBeGreaterThanOrEqual(deletedAt);
    expect(Date.parse(item!.expires_date) - Date.parse(item!.deleted_date)).toBe(7 * DAY_MS);
    // Revisions and every content version stay with the trashed file.
    expect(await h.adapters.records.listRevisionContents({ fileId })).toEqual(versions);
    for (const version of versions) expect(await stored(h, projectId, version)).toBe(true);
    // The name is free: a new file takes it (a new file, not the trashed one).
    const again = await h.uploadFile(apiKey, projectId, 'a.md', '# new\n');
    expect(again.revision).toBe(1);
    await expectExactAccounting(h, projectId);
  });
});

describe('listing the trash', () => {
  test('newest deletion first, total_count of the whole trash, keyset pages with next_cursor', async (h) => {
    const { apiKey, projectId } = await projectWithTrash(h, 30);
    const names = ['a.md', 'b.md', 'c.md', 'd.md', 'e.md'];
    for (const name of names) {
      await h.uploadFile(apiKey, projectId, name, `# ${name}\n`);
      await deleteFile(h, apiKey, projectId, name);
      h.clock.advance(1000);
    }
    const all = await listTrash(h, apiKey, projectId);
    expect(all.status).toBe(200);
    expect(all.body.trash.map((item) => item.filename)).toEqual([...names].reverse());
    expect(all.body).toMatchObject({ total_count: 5, next_cursor: null });

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await listTrash(h, apiKey, projectId, query);
      expect(page.status).toBe(200);
      expect(page.body.total_count).toBe(5);
      seen.push(...page.body.trash.map((item) => item.filename));
      cursor = page.body.next_cursor;
      pages++;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toEqual([...names].reverse());
  });

  test('a page walk is not shifted by items deleted meanwhile', async (h) => {
    const { apiKey, projectId } = await projectWithTrash(h, 30);
    for (const name of ['a.md', 'b.md', 'c.md']) {
      await h.uploadFile(apiKey, projectId, name, '# x\n');
      await deleteFile(h, apiKey, projectId, name);
      h.clock.advance(1000);
    }
    const first = await listTrash(h, apiKey, projectId, '?limit=2');
    expect(first.body.trash.map((item) => item.filename)).toEqual(['c.md', 'b.md']);
    await h.uploadFile(apiKey, projectId, 'z.md', '# z\n');
    await deleteFile(h, apiKey, projectId, 'z.md');
    const second = await listTrash(
      h,
      apiKey,
      projectId,
      `?limit=2&cursor=${encodeURIComponent(first.body.next_cursor!)}`,
    );
    expect(second.body.trash.map((item) => item.filename)).toEqual(['a.md']);
  });

  test('limit and cursor are checked: 422 at ["query", NAME]', async (h) => {
    const { apiKey, projectId } = await projectWithTrash(h, 30);
    const other = await h.createProject(apiKey, 'Other');
    await h.uploadFile(apiKey, other.id, 'a.md', '# a\n');
    await h.json(`/api/projects/${other.id}`, 'PUT', apiKey, { settings: { trash_retention_days: 1 } });
    for (const name of ['a.md', 'b.md']) {
      await h.uploadFile(apiKey, projectId, name, '# a\n');
      await deleteFile(h, apiKey, projectId, name);
    }
    const page = await listTrash(h, apiKey, projectId, '?limit=1');
    const foreign = page.body.next_cursor!;
    for (const query of ['?limit=0', '?limit=1001', '?limit=x', '?limit=1&limit=2']) {
      const { status, body } = await listTrash(h, apiKey, projectId, query);
      expect(status, query).toBe(422);
      expect((body as unknown as { detail: Array<{ loc: unknown }> }).detail[0]!.loc).toEqual([
        'query',
        'limit',
      ]);
    }
    for (const query of ['?cursor=%%%', '?cursor=abc', `?cursor=${foreign}x`]) {
      const { status, body } = await listTrash(h, apiKey, projectId, query);
      expect(status, query).toBe(422);
      expect((body as unknown as { detail: Array<{ loc: unknown }> }).detail[0]!.loc).toEqual([
        'query',
        'cursor',
      ]);
    }
    // A cursor of another project's trash is refused.
    const elsewhere = await listTrash(h, apiKey, other.id, `?cursor=${encodeURIComponent(foreign)}`);
    expect(elsewhere.status).toBe(422);
  });

  test('other methods are 405 with Allow; HEAD of the list answers like GET without a body', async (h) => {
    const { apiKey, projectId } = await projectWithTrash(h, 3);
    const base = `/api/projects/${projectId}/trash`;
    const post = await h.fetch(base, { method: 'POST', key: apiKey });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    const get = await h.fetch(`${base}/x/restore`, { key: apiKey });
    expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST']);
    const put = await h.fetch(`${base}/x`, { method: 'PUT', key: apiKey });
    expect([put.status, put.headers.get('allow')]).toEqual([405, 'DELETE']);
    const head = await h.fetch(base, { method: 'HEAD', key: apiKey });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  test('another account gets 403, a missing project 404', async (h) => {
    const { projectId } = await projectWithTrash(h, 3);
    const stranger = await h.account();
    expect((await listTrash(h, stranger.apiKey, projectId)).status).toBe(403);
    expect((await restore(h, stranger.apiKey, projectId, 'x')).status).toBe(403);
    expect((await purge(h, stranger.apiKey, projectId, 'x')).status).toBe(403);
    const missing = '00000000-0000-4000-8000-000000000000';
    expect((await listTrash(h, stranger.apiKey, missing)).status).toBe(404);
  });
});

describe('restoring from the trash', () => {
  test('201 with the File object and ETag: same content, metadata and history, a new revision "restore"', async (h) => {
    const { apiKey, projectId } = await projectWithTrash(h, 7);
    await h.uploadFile(apiKey, projectId, 'a.md', '# one\n', { tag: 'kept' });
    await updateContent(h, apiKey, projectId, 'a.md', '# two, longer\n');
    const before = await counters(h, apiKey, projectId);
    const { fileId } = await contentsOf(h.adapters.records, projectId, 'a.md');
    await deleteFile(h, apiKey, projectId, 'a.md');
    const [item] = (await listTrash(h, apiKey, projectId)).body.trash;

    const restored = await restore(h, apiKey, projectId, item!.trash_id);
    expect(restored.status).toBe(201);
    expect(restored.body).toMatchObject({
      filename: 'a.md',
      revision: 3,
      metadata: { tag: 'kept' },
      size_bytes: 14,
    });
    expect(restored.etag).toBe(restored.body.etag);
    expect(await download(h, apiKey, projectId, 'a.md')).toEqual({ status: 200, text: '# two, longer\n' });
    expect(await counters(h, apiKey, projectId)).toEqual(before);
    expect((await listTrash(h, apiKey, projectId)).body.total_count).toBe(0);
    const revisions = await h.adapters.records.listRevisions({ fileId, limit: 10 });
    expect(revisions.map((revision) => [revision.revision, revision.change])).toEqual([
      [3, 'restore'],
      [2, 'content'],
      [1, 'created'],
    ]);
    // Restored once only.
    expect((await restore(h, apiKey, projectId, item!.trash_id)).status).toBe(404);
    await expectExactAccounting(h, projectId);
  });

  test('a file in the trash is not found by search; restored, it is again, under its new name', async (h) => {
    const { apiKey, projectId } = await projectWithTrash(h, 7);
    await h.uploadFile(apiKey, projectId, 'a.md', '---\ntitle: Zebra\n---\n# quokka notes\n');
    const search = async () => {
      const response = await h.json(`/api/projects/${projectId}/search`, 'POST', apiKey, { query: 'quokka' });
      expect(response.status).toBe(200);
      const answer = (await response.json()) as { results: Array<{ file: { filename: string } }> };
      return answer.results.map((result) => result.file.filename);
    };
    expect(await search()).toEqual(['a.md']);
    await deleteFile(h, apiKey, projectId, 'a.md');
    expect(await search()).toEqual([]);
    const [item] = (await listTrash(h, apiKey, projectId)).body.trash;
    const restored = await restore(h, apiKey, projectId, item!.trash_id, { to: 'b.md' });
    expect(restored.body).toMatchObject({ filename: 'b.md', frontmatter: { title: 'Zebra' } });
    expect(await search()).toEqual(['b.md']);
  });

  test('409 when the name is taken, and nothing changes; "to" restores under another name', async (h) => {
    const { apiKey, projectId } = await projectWithTrash(h, 7);
    await h.uploadFile(apiKey, projectId, 'a.md', '# old\n');
    await deleteFile(h, apiKey, projectId, 'a.md');
    await h.uploadFile(apiKey, projectId, 'a.md', '# new\n');
    const [item] = (await listTrash(h, apiKey, projectId)).body.trash;
    const before = await counters(h, apiKey, projectId);

    const taken = await restore(h, apiKey, projectId, item!.trash_id, {});
    expect(taken).toMatchObject({ status: 409, body: { detail: "File with name 'a.md' already exists" } });
    expect(await counters(h, apiKey, projectId)).toEqual(before);
    expect((await listTrash(h, apiKey, projectId)).body.total_count).toBe(1);

    const renamed = await restore(h, apiKey, projectId, item!.trash_id, { to: 'a-old.md' });
    expect(renamed.status).toBe(201);
    expect(renamed.body.filename).toBe('a-old.md');
    expect(await download(h, apiKey, projectId, 'a-old.md')).toEqual({ status: 200, text: '# old\n' });
    expect(await download(h, apiKey, projectId, 'a.md')).toEqual({ status: 200, text: '# new\n' });
    await expectExactAccounting(h, projectId);
  });

  test('of two concurrent restores, or a restore and a removal, of one item exactly one wins', async (h) => {
    const { apiKey, projectId } = await projectWithTrash(h, 7);
    for (const name of ['a.md', 'b.md']) {
      await h.uploadFile(apiKey, projectId, name, `# ${name}\n`);
      await deleteFile(h, apiKey, projectId, name);
    }
    const [b, a] = (await listTrash(h, apiKey, projectId)).body.trash;
    const twice = await Promise.all([
      restore(h, apiKey, projectId, a!.trash_id, { to: 'one.md' }),
      restore(h, apiKey, projectId, a!.trash_id, { to: 'two.md' }),
    ]);
    expect(twice.map((answer) => answer.status).sort()).toEqual([201, 404]);
    const mixed = await Promise.all([
      restore(h, apiKey, projectId, b!.trash_id),
      purge(h, apiKey, projectId, b!.trash_id),
    ]);
    expect(mixed.map((answer) => answer.status).sort()).toEqual(
      mixed[0].status === 201 ? [201, 404] : [204, 404],
    );
    const files = (await (await h.fetch(`/api/projects/${projectId}/files`, { key: apiKey })).json()) as {
      files: unknown[];
    };
    expect(files.files).toHaveLength(mixed[0].status === 201 ? 2 : 1);
    expect((await listTrash(h, apiKey, projectId)).body.total_count).toBe(0);
    await expectExactAccounting(h, projectId);
  });

  test('"to" follows the filename rules: 400, 415, 422 for a non-string; unknown items are 404', async (h) => {
    const { apiKey, projectId } = await projectWithTrash(h, 7);
    await h.uploadFile(apiKey, projectId, 'a.md', '# a\n');
    await deleteFile(h, apiKey, projectId, 'a.md');
    const [item] = (await listTrash(h, apiKey, projectId)).body.trash;
    const id = item!.trash_id;
    expect((await restore(h, apiKey, projectId, id, { to: 'bad\\name.md' })).status).toBe(400);
    expect((await restore(h, apiKey, projectId, id, { to: '.md' })).status).toBe(400);
    expect((await restore(h, apiKey, projectId, id, { to: 'notes.txt' })).status).toBe(415);
    const wrongType = await restore(h, apiKey, projectId, id, { to: 5 });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.detail?.[0]?.loc).toEqual(['body', 'to']);
    expect((await restore(h, apiKey, projectId, id, [1])).status).toBe(422);
    expect((await restore(h, apiKey, projectId, 'no-such-item', {})).body).toEqual({
      detail: 'Trash item not found',
    });
    expect((await restore(h, apiKey, projectId, 'no-such-item')).status).toBe(404);
    // The item is still there after every refusal.
    expect((await restore(h, apiKey, projectId, id, { to: null })).status).toBe(201);
  });
});

describe('removing an item for good', () => {
  test('204, the item and its revisions gone, trash_size_bytes down, every content version removed', async (h) => {
    const { apiKey, projectId } = await projectWithTrash(h, 7);
    await h.uploadFile(apiKey, projectId, 'a.md', '# one\n');
    await updateContent(h, apiKey, projectId, 'a.md', '# two\n');
    await h.uploadFile(apiKey, projectId, 'b.md', '# b\n');
    const { fileId, versions } = await contentsOf(h.adapters.records, projectId, 'a.md');
    await deleteFile(h, apiKey, projectId, 'a.md');
    await deleteFile(h, apiKey, projectId, 'b.md');
    const items = (await listTrash(h, apiKey, projectId)).body.trash;
    const a = items.find((item) => item.filename === 'a.md')!;

    expect(await purge(h, apiKey, projectId, a.trash_id)).toEqual({ status: 204, body: null });
    expect((await listTrash(h, apiKey, projectId)).body.trash.map((item) => item.filename)).toEqual(['b.md']);
    expect((await counters(h, apiKey, projectId)).trash_size_bytes).toBe(4);
    expect(await h.adapters.records.listRevisionContents({ fileId })).toEqual([]);
    for (const version of versions) expect(await stored(h, projectId, version)).toBe(false);
    expect(await purge(h, apiKey, projectId, a.trash_id)).toEqual({
      status: 404,
      body: { detail: 'Trash item not found' },
    });
    expect((await restore(h, apiKey, projectId, a.trash_id)).status).toBe(404);
    await expectExactAccounting(h, projectId);
  });

  test('project deletion empties the trash', async (h) => {
    const { apiKey, projectId } = await projectWithTrash(h, 7);
    await h.uploadFile(apiKey, projectId, 'a.md', '# a\n');
    await deleteFile(h, apiKey, projectId, 'a.md');
    const [item] = (await listTrash(h, apiKey, projectId)).body.trash;
    const response = await h.fetch(`/api/projects/${projectId}`, { method: 'DELETE', key: apiKey });
    expect(response.status).toBe(200);
    const { records } = h.adapters;
    expect(await records.findTrashItem({ projectId, trashId: item!.trash_id })).toBeNull();
    expect(await records.listTrash({ projectId, now: 0, limit: 10 })).toEqual([]);
    expect((await listTrash(h, apiKey, projectId)).status).toBe(404);
  });
});

describe('retention and expiry', () => {
  test('changing the setting leaves existing expires_date values as they are', async (h) => {
    const { apiKey, projectId } = await projectWithTrash(h, 7);
    await h.uploadFile(apiKey, projectId, 'a.md', '# a\n');
    await deleteFile(h, apiKey, projectId, 'a.md');
    const [before] = (await listTrash(h, apiKey, projectId)).body.trash;
    const lowered = await h.json(`/api/projects/${projectId}`, 'PUT', apiKey, {
      settings: { trash_retention_days: 1 },
    });
    expect(lowered.status).toBe(200);
    h.clock.advance(2 * DAY_MS);
    await h.store.maintenance.reconcile();
    const [after] = (await listTrash(h, apiKey, projectId)).body.trash;
    expect(after).toEqual(before);
    // Turning the trash off does not empty it either; later deletes are final.
    await h.json(`/api/projects/${projectId}`, 'PUT', apiKey, { settings: { trash_retention_days: 0 } });
    await h.uploadFile(apiKey, projectId, 'b.md', '# b\n');
    await deleteFile(h, apiKey, projectId, 'b.md');
    expect((await listTrash(h, apiKey, projectId)).body.trash).toEqual([before]);
    expect((await restore(h, apiKey, projectId, before!.trash_id)).status).toBe(201);
  });

  test('an expired item is never listed, restored or removed, even before the reconciler purges it', async (h) => {
    const { apiKey, projectId } = await projectWithTrash(h, 1);
    await h.uploadFile(apiKey, projectId, 'a.md', '# a\n');
    await h.uploadFile(apiKey, projectId, 'b.md', '# bb\n');
    const { versions } = await contentsOf(h.adapters.records, projectId, 'a.md');
    await deleteFile(h, apiKey, projectId, 'a.md');
    h.clock.advance(DAY_MS / 2);
    await deleteFile(h, apiKey, projectId, 'b.md');
    const [b, a] = (await listTrash(h, apiKey, projectId)).body.trash;
    expect([a!.filename, b!.filename]).toEqual(['a.md', 'b.md']);

    h.clock.advance(DAY_MS / 2);
    const listed = await listTrash(h, apiKey, projectId);
    expect(listed.body.trash.map((item) => item.filename)).toEqual(['b.md']);
    expect(listed.body.total_count).toBe(1);
    expect((await restore(h, apiKey, projectId, a!.trash_id)).status).toBe(404);
    expect((await purge(h, apiKey, projectId, a!.trash_id)).status).toBe(404);
    // Until purged it still holds its bytes; the reconciler purges it and its content.
    expect((await counters(h, apiKey, projectId)).trash_size_bytes).toBe(4 + 5);
    const report = await h.store.maintenance.reconcile();
    expect(report.trashItemsExpired).toBe(1);
    expect((await counters(h, apiKey, projectId)).trash_size_bytes).toBe(5);
    for (const version of versions) expect(await stored(h, projectId, version)).toBe(false);
    expect((await restore(h, apiKey, projectId, b!.trash_id)).status).toBe(201);
    await expectExactAccounting(h, projectId);
  });

  test('two reconcilers racing purge every expired item exactly once', async (h) => {
    const { apiKey, projectId } = await projectWithTrash(h, 1);
    const second = await projectWithTrash(h, 2);
    const versions = [];
    for (let i = 0; i < 6; i++) {
      const name = `f${i}.md`;
      await h.uploadFile(apiKey, projectId, name, `# ${i}\n`);
      await updateContent(h, apiKey, projectId, name, `# ${i} again\n`);
      versions.push(...(await contentsOf(h.adapters.records, projectId, name)).versions);
      await deleteFile(h, apiKey, projectId, name);
    }
    await h.uploadFile(second.apiKey, second.projectId, 'kept.md', '# kept\n');
    await deleteFile(h, second.apiKey, second.projectId, 'kept.md');
    h.clock.advance(DAY_MS + 1);

    const instance = () =>
      createMdStore({
        records: h.adapters.records,
        blobs: h.adapters.blobs,
        rateLimiter: h.adapters.rateLimiter,
        clock: h.clock,
        settings: h.settings,
      });
    const reports = await Promise.all([
      instance().maintenance.expireTrash(),
      instance().maintenance.expireTrash(),
    ]);
    expect(reports.map((report) => report.failures)).toEqual([0, 0]);
    expect(reports[0]!.purged + reports[1]!.purged).toBe(6);
    expect(await counters(h, apiKey, projectId)).toMatchObject({ trash_size_bytes: 0 });
    for (const version of versions) expect(await stored(h, projectId, version)).toBe(false);
    await expectExactAccounting(h, projectId);
    // Another project's unexpired item is untouched.
    expect((await listTrash(h, second.apiKey, second.projectId)).body.total_count).toBe(1);
    expect((await h.store.maintenance.reconcile()).trashItemsExpired).toBe(0);
  });
});

describe('the storage bound counts the trash', () => {
  const capped = serverTest({ settings: { maxProjectBytes: 40 } });

  capped('trash bytes count against MDSTORE_MAX_PROJECT_BYTES; removing an item frees room', async (h) => {
    const { apiKey, projectId } = await projectWithTrash(h, 7);
    await h.uploadFile(apiKey, projectId, 'a.md', 'x'.repeat(30));
    await deleteFile(h, apiKey, projectId, 'a.md');
    const refused = await h.upload(apiKey, projectId, [
      { name: 'file', filename: 'b.md', data: 'y'.repeat(20) },
    ]);
    expect(refused.status).toBe(413);
    expect(await refused.json()).toEqual({ detail: 'Project storage limit reached' });
    const [item] = (await listTrash(h, apiKey, projectId)).body.trash;
    // Restoring moves the bytes back without adding any: allowed at the cap.
    expect((await restore(h, apiKey, projectId, item!.trash_id)).status).toBe(201);
    await deleteFile(h, apiKey, projectId, 'a.md');
    const [again] = (await listTrash(h, apiKey, projectId)).body.trash;
    expect((await purge(h, apiKey, projectId, again!.trash_id)).status).toBe(204);
    await h.uploadFile(apiKey, projectId, 'b.md', 'y'.repeat(20));
    await expectExactAccounting(h, projectId);
  });
});
