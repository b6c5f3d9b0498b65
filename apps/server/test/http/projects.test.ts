import { PROJECT_DELETION_LIMITS } from '@mdstore/core';
import { aFile, aRevision } from '@mdstore/core/testing';
import { describe, expect } from 'vitest';
import { serverTest } from '../support/http-harness.js';

const test = serverTest();
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const MISSING_UUID = '3f1c5b9e-8d2a-4c7b-9e1f-2a3b4c5d6e7f';

describe('create project', () => {
  test('201 with the exact Project fields', async (h) => {
    const { apiKey } = await h.account();
    const response = await h.json('/api/projects', 'POST', apiKey, { name: 'Docs', description: 'All docs' });
    expect(response.status).toBe(201);
    const project = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(project).sort()).toEqual(
      [
        'id',
        'name',
        'description',
        'bucket_name',
        'is_default',
        'is_active',
        'file_count',
        'total_size_bytes',
        'created_date',
        'updated_date',
        // extensions §2 and §5
        'etag',
        'settings',
        'history_size_bytes',
        'trash_size_bytes',
        // extensions §12
        'attachment_count',
        'attachment_bytes',
      ].sort(),
    );
    expect(project).toMatchObject({
      name: 'Docs',
      description: 'All docs',
      is_default: false,
      is_active: true,
      file_count: 0,
      total_size_bytes: 0,
    });
    expect(project.id).toMatch(UUID_V4);
    expect(project.bucket_name).toBe(`mdstore-${project.id}`);
    expect(project.bucket_name).toMatch(/^[a-z0-9-]{3,63}$/);
    expect(project.created_date).toMatch(ISO_MS);
    expect(project.updated_date).toBe(project.created_date);
  });

  test('an omitted description is null; unknown fields are ignored; names are kept as given', async (h) => {
    const { apiKey } = await h.account();
    const response = await h.json('/api/projects', 'POST', apiKey, { name: '  Ünïcödé 📝 ', extra: 1 });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ name: '  Ünïcödé 📝 ', description: null });
  });

  test('a missing name is 400 with loc body.name and type missing', async (h) => {
    const { apiKey } = await h.account();
    const response = await h.json('/api/projects', 'POST', apiKey, { description: 'x' });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { detail: Array<Record<string, unknown>> };
    expect(body.detail).toHaveLength(1);
    expect(body.detail[0]).toMatchObject({ loc: ['body', 'name'], type: 'missing' });
    expect(typeof body.detail[0]!.msg).toBe('string');
  });

  test('null, wrong type, empty, too long, whitespace-only and control characters are 422', async (h) => {
    const { apiKey } = await h.account();
    const bad = [null, 42, '', 'x'.repeat(256), ' \t\u00a0\u3000', 'a\u0007b', 'line\nbreak', 'del\u007f'];
    for (const name of bad) {
      const response = await h.json('/api/projects', 'POST', apiKey, { name });
      expect(response.status, JSON.stringify(name)).toBe(422);
      const body = (await response.json()) as { detail: Array<{ loc: unknown[] }> };
      expect(body.detail[0]!.loc).toEqual(['body', 'name']);
    }
    const longest = await h.json('/api/projects', 'POST', apiKey, { name: '😀'.repeat(255) });
    expect(longest.status).toBe(201);
  });

  test('a JSON body that is not an object is 422 at loc body', async (h) => {
    const { apiKey } = await h.account();
    for (const body of [[], 'name', 1, null]) {
      const response = await h.json('/api/projects', 'POST', apiKey, body);
      expect(response.status).toBe(422);
      expect(((await response.json()) as { detail: Array<{ loc: unknown[] }> }).detail[0]!.loc).toEqual([
        'body',
      ]);
    }
  });

  test('malformed JSON is 400 json_invalid', async (h) => {
    const { apiKey } = await h.account();
    for (const body of ['{"name":', '', 'nope', '\u0000']) {
      const response = await h.fetch('/api/projects', {
        method: 'POST',
        key: apiKey,
        headers: { 'Content-Type': 'application/json' },
        body,
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }],
      });
    }
  });

  test('a Content-Type other than application/json is 415; parameters are accepted', async (h) => {
    const { apiKey } = await h.account();
    const body = JSON.stringify({ name: 'typed' });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', undefined]) {
      const headers: Record<string, string> = type ? { 'Content-Type': type } : {};
      const response = await h.fetch('/api/projects', { method: 'POST', key: apiKey, headers, body });
      expect(response.status).toBe(415);
      expect(typeof ((await response.json()) as { detail: unknown }).detail).toBe('string');
    }
    const withCharset = await h.fetch('/api/projects', {
      method: 'POST',
      key: apiKey,
      headers: { 'Content-Type': 'Application/JSON; charset=utf-8' },
      body,
    });
    expect(withCharset.status).toBe(201);
  });

  test('a JSON body above 1 MiB is 413; exactly 1 MiB is read', async (h) => {
    const { apiKey } = await h.account();
    const padded = (size: number) => {
      const start = '{"name":"big","pad":"';
      return start + 'x'.repeat(size - start.length - 2) + '"}';
    };
    const headers = { 'Content-Type': 'application/json' };
    const exact = await h.fetch('/api/projects', {
      method: 'POST',
      key: apiKey,
      headers,
      body: padded(1024 * 1024),
    });
    expect(exact.status).toBe(201);
    const over = await h.fetch('/api/projects', {
      method: 'POST',
      key: apiKey,
      headers,
      body: padded(1024 * 1024 + 1),
    });
    expect(over.status).toBe(413);
    expect(typeof ((await over.json()) as { detail: unknown }).detail).toBe('string');
  });

  test('an oversize body is refused while streaming, without a Content-Length', async (h) => {
    const { apiKey } = await h.account();
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(new TextEncoder().encode('{"name":"'));
        if (sent > 2 * 1024 * 1024) controller.close();
        else controller.enqueue(chunk);
        sent += chunk.byteLength;
      },
    });
    const response = await h.fetch('/api/projects', {
      method: 'POST',
      key: apiKey,
      headers: { 'Content-Type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
  });

  test('a taken name is 409 naming the project; names are case-sensitive', async (h) => {
    const { apiKey } = await h.account();
    await h.createProject(apiKey, 'Notes');
    const again = await h.json('/api/projects', 'POST', apiKey, { name: 'Notes' });
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({ detail: "Project with name 'Notes' already exists" });
    expect((await h.json('/api/projects', 'POST', apiKey, { name: 'notes' })).status).toBe(201);
    const other = await h.account();
    expect((await h.json('/api/projects', 'POST', other.apiKey, { name: 'Notes' })).status).toBe(201);
  });
});

describe('list and get projects', () => {
  test('lists every project of the account, default first, in creation order', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    const a = await h.createProject(apiKey, 'A');
    const b = await h.createProject(apiKey, 'B');
    await (await h.account()).apiKey;
    const response = await h.fetch('/api/projects', { key: apiKey });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { projects: Array<Record<string, unknown>>; total_count: number };
    expect(Object.keys(body).sort()).toEqual(['projects', 'total_count']);
    expect(body.total_count).toBe(3);
    expect(body.projects.map((project) => project.id)).toEqual([defaultProjectId, a.id, b.id]);
    expect(body.projects[0]).toMatchObject({ name: 'Default', is_default: true, is_active: true });
  });

  test('get: 200, 404 for an unknown id, 422 for a malformed id, 403 for another account', async (h) => {
    const owner = await h.account();
    const other = await h.account();
    const project = await h.createProject(owner.apiKey, 'Mine');
    const ok = await h.fetch(`/api/projects/${project.id}`, { key: owner.apiKey });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ id: project.id, name: 'Mine' });
    const upper = await h.fetch(`/api/projects/${project.id.toUpperCase()}`, { key: owner.apiKey });
    expect(upper.status).toBe(200);

    const missing = await h.fetch(`/api/projects/${MISSING_UUID}`, { key: owner.apiKey });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: 'Project not found' });

    const malformed = await h.fetch('/api/projects/not-a-uuid', { key: owner.apiKey });
    expect(malformed.status).toBe(422);
    const detail = ((await malformed.json()) as { detail: Array<Record<string, unknown>> }).detail;
    expect(detail[0]).toMatchObject({ loc: ['path', 'project_id'] });
    expect(typeof detail[0]!.msg).toBe('string');
    expect(typeof detail[0]!.type).toBe('string');

    const foreign = await h.fetch(`/api/projects/${project.id}`, { key: other.apiKey });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toEqual({ detail: 'You do not have permission to access this resource' });
  });
});

describe('update project', () => {
  test('changes only the supplied fields; null clears the description; updated_date moves', async (h) => {
    const { apiKey } = await h.account();
    const created = (await (
      await h.json('/api/projects', 'POST', apiKey, { name: 'P', description: 'd' })
    ).json()) as Record<string, string>;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const renamed = await h.json(`/api/projects/${created.id}`, 'PUT', apiKey, { name: 'Q' });
    expect(renamed.status).toBe(200);
    const body = (await renamed.json()) as Record<string, string>;
    expect(body).toMatchObject({
      id: created.id,
      name: 'Q',
      description: 'd',
      created_date: created.created_date,
    });
    expect(body.updated_date! > created.updated_date!).toBe(true);

    const cleared = await h.json(`/api/projects/${created.id}`, 'PUT', apiKey, { description: null });
    expect(await cleared.json()).toMatchObject({ name: 'Q', description: null });
    const same = await h.json(`/api/projects/${created.id}`, 'PUT', apiKey, { name: 'Q' });
    expect(same.status).toBe(200);
  });

  test('no field is 400; name null is 422; a taken name is 409; malformed JSON 400; wrong type 415', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    const project = await h.createProject(apiKey, 'One');
    await h.createProject(apiKey, 'Two');
    const path = `/api/projects/${project.id}`;
    const empty = await h.json(path, 'PUT', apiKey, {});
    expect(empty.status).toBe(400);
    expect(Array.isArray(((await empty.json()) as { detail: unknown }).detail)).toBe(true);
    expect((await h.json(path, 'PUT', apiKey, { other: 1 })).status).toBe(400);
    expect((await h.json(path, 'PUT', apiKey, { name: null })).status).toBe(422);
    expect((await h.json(path, 'PUT', apiKey, { name: '' })).status).toBe(422);
    expect((await h.json(path, 'PUT', apiKey, [])).status).toBe(422);
    const taken = await h.json(path, 'PUT', apiKey, { name: 'Two' });
    expect(taken.status).toBe(409);
    expect(await taken.json()).toEqual({ detail: "Project with name 'Two' already exists" });
    const broken = await h.fetch(path, {
      method: 'PUT',
      key: apiKey,
      headers: { 'Content-Type': 'application/json' },
      body: '{',
    });
    expect(broken.status).toBe(400);
    const plain = await h.fetch(path, { method: 'PUT', key: apiKey, body: '{"name":"x"}' });
    expect(plain.status).toBe(415);
    const renameDefault = await h.json(`/api/projects/${defaultProjectId}`, 'PUT', apiKey, { name: 'Main' });
    expect(renameDefault.status).toBe(200);
  });

  test('404 for an unknown project, 403 for another account, 422 for a malformed id', async (h) => {
    const owner = await h.account();
    const other = await h.account();
    const project = await h.createProject(owner.apiKey, 'Mine');
    expect((await h.json(`/api/projects/${MISSING_UUID}`, 'PUT', owner.apiKey, { name: 'x' })).status).toBe(
      404,
    );
    const foreign = await h.json(`/api/projects/${project.id}`, 'PUT', other.apiKey, { name: 'x' });
    expect(foreign.status).toBe(403);
    expect((await h.json('/api/projects/123', 'PUT', owner.apiKey, { name: 'x' })).status).toBe(422);
  });
});

describe('delete project', () => {
  test('200 with message and project_id; afterwards 404 everywhere, listed as inactive', async (h) => {
    const { apiKey } = await h.account();
    const project = await h.createProject(apiKey, 'Doomed');
    await h.uploadFile(apiKey, project.id, 'a.md', '# a');
    const deleted = await h.fetch(`/api/projects/${project.id}`, { method: 'DELETE', key: apiKey });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ message: 'Project deleted successfully', project_id: project.id });

    for (const [method, path] of [
      ['DELETE', ''],
      ['GET', ''],
      ['GET', '/files'],
      ['GET', '/files/a.md'],
    ] as const) {
      const response = await h.fetch(`/api/projects/${project.id}${path}`, { method, key: apiKey });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(await response.json()).toEqual({ detail: 'Project not found' });
    }
    const list = (await (await h.fetch('/api/projects', { key: apiKey })).json()) as {
      projects: Array<Record<string, unknown>>;
    };
    expect(list.projects.find((entry) => entry.id === project.id)).toMatchObject({
      is_active: false,
      file_count: 0,
      total_size_bytes: 0,
    });
    expect((await h.json('/api/projects', 'POST', apiKey, { name: 'Doomed' })).status).toBe(201);
  });

  test('the default project is protected (403); another account gets 403 first', async (h) => {
    const owner = await h.account();
    const other = await h.account();
    const own = await h.fetch(`/api/projects/${owner.defaultProjectId}`, {
      method: 'DELETE',
      key: owner.apiKey,
    });
    expect(own.status).toBe(403);
    expect(await own.json()).toEqual({ detail: 'Cannot delete default project' });
    const foreign = await h.fetch(`/api/projects/${owner.defaultProjectId}`, {
      method: 'DELETE',
      key: other.apiKey,
    });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toEqual({ detail: 'You do not have permission to access this resource' });
    expect(
      (await h.fetch(`/api/projects/${MISSING_UUID}`, { method: 'DELETE', key: owner.apiKey })).status,
    ).toBe(404);
    expect((await h.fetch('/api/projects/x', { method: 'DELETE', key: owner.apiKey })).status).toBe(422);
  });

  test('a project larger than one request purges answers the same; the maintenance loop finishes it (issue 34)', async (h) => {
    const { apiKey } = await h.account();
    const project = await h.createProject(apiKey, 'Large');
    await h.uploadFile(apiKey, project.id, 'a.md', '# a');
    const { batchRows, requestBatches } = PROJECT_DELETION_LIMITS;
    // Two rows each (the record and its revision): more rows than one request removes.
    const seeded = Math.ceil((batchRows * requestBatches) / 2) + batchRows;
    await h.adapters.records.withTransaction(async (tx) => {
      for (let i = 0; i < seeded; i++) {
        const file = aFile({ projectId: project.id, filename: `f${i}.md` });
        await tx.insertFile({ file });
        await tx.insertRevision({ revision: aRevision(file) });
      }
    });
    const deleted = await h.fetch(`/api/projects/${project.id}`, { method: 'DELETE', key: apiKey });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ message: 'Project deleted successfully', project_id: project.id });
    for (const path of ['', '/files', '/files/a.md']) {
      const response = await h.fetch(`/api/projects/${project.id}${path}`, { key: apiKey });
      expect(response.status, path).toBe(404);
    }
    // The request stopped at its bound: rows are left for the maintenance loop, the bucket with them.
    const left = await h.adapters.records.countFiles({ projectId: project.id, prefix: '', delimiter: false });
    expect(left.files).toBeGreaterThan(0);
    expect(left.files).toBeLessThan(seeded);
    expect(await h.adapters.blobs.bucketExists({ bucket: `mdstore-${project.id}` })).toBe(true);
    await h.store.maintenance.reconcile();
    expect(
      (await h.adapters.records.countFiles({ projectId: project.id, prefix: '', delimiter: false })).files,
    ).toBe(0);
    expect(await h.adapters.blobs.bucketExists({ bucket: `mdstore-${project.id}` })).toBe(false);
    expect((await h.adapters.records.findProjectById({ projectId: project.id }))?.status).toBe('deleted');
    const again = await h.fetch(`/api/projects/${project.id}`, { method: 'DELETE', key: apiKey });
    expect(again.status).toBe(404);
  });
});
