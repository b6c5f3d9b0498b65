import { createHash } from 'node:crypto';
import { describe, expect } from 'vitest';
import { type HttpHarness, serverTest } from '../support/http-harness.js';

/**
 * Attachments (extensions §12) over HTTP, on whichever adapter set runs the suite (memory here; SQLite +
 * filesystem and Postgres + S3 through test/matrix): write (201/200, the type checked against the
 * bytes, path rules, preconditions, the size and storage bounds), read (headers that keep a browser from
 * running anything, ranges, conditions, HEAD), list (prefix, delimiter, cursor), delete, identical
 * bytes stored once, the project's counters, change events, audit, roles and scopes.
 */
const test = serverTest({ settings: { maxAttachmentBytes: 64 * 1024 } });

/** A 1×1 PNG, a JPEG head, a PDF, an SVG with a script, an HTML page. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const JPEG = Buffer.concat([
  Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]),
  Buffer.from('JFIF\0rest of a jpeg'),
]);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
const HTML = Buffer.from('<!doctype html><html><body><script>alert(1)</script></body></html>');

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

interface AttachmentJson {
  path: string;
  project_id: string;
  size_bytes: number;
  content_type: string;
  sha256: string;
  etag: string;
  created_date: string;
  updated_date: string;
}

async function scene(h: HttpHarness) {
  const { apiKey, defaultProjectId: projectId, accountId } = await h.account();
  const url = (path: string) => `/api/projects/${projectId}/attachments/${encodeURIComponent(path)}`;
  const put = (
    path: string,
    body: Buffer,
    type: string,
    headers: Record<string, string> = {},
    key = apiKey,
  ) => h.fetch(url(path), { method: 'PUT', key, headers: { 'Content-Type': type, ...headers }, body });
  const get = (path: string, headers: Record<string, string> = {}, key = apiKey) =>
    h.fetch(url(path), { key, headers });
  const del = (path: string, headers: Record<string, string> = {}, key = apiKey) =>
    h.fetch(url(path), { method: 'DELETE', key, headers });
  const project = async () =>
    (await (await h.fetch(`/api/projects/${projectId}`, { key: apiKey })).json()) as Record<string, number>;
  const list = async (query = '') => {
    const response = await h.fetch(`/api/projects/${projectId}/attachments${query}`, { key: apiKey });
    expect(response.status).toBe(200);
    return (await response.json()) as {
      attachments: AttachmentJson[];
      folders?: string[];
      next_cursor: string | null;
    };
  };
  return { apiKey, projectId, accountId, url, put, get, del, project, list };
}

/** Keys of the project's bucket under `attachments/` (the stores in the suite can list). */
async function attachmentBlobs(h: HttpHarness, projectId: string): Promise<string[]> {
  const project = await h.adapters.records.findProjectById({ projectId });
  const keys: string[] = [];
  for await (const { key } of h.adapters.blobs.list!({ bucket: project!.bucketName }))
    if (key.startsWith('attachments/')) keys.push(key);
  return keys;
}

describe('attachments (extensions §12)', () => {
  test('write: 201 then 200, the body as stored; read: the bytes with the headers of the type', async (h) => {
    const s = await scene(h);
    const created = await s.put('img/pixel.png', PNG, 'image/png');
    expect(created.status).toBe(201);
    const body = (await created.json()) as AttachmentJson;
    expect(body).toEqual({
      path: 'img/pixel.png',
      project_id: s.projectId,
      size_bytes: PNG.length,
      content_type: 'image/png',
      sha256: sha(PNG),
      etag: expect.stringMatching(/^".+"$/),
      created_date: expect.any(String),
      updated_date: expect.any(String),
    });
    expect(created.headers.get('etag')).toBe(body.etag);

    const read = await s.get('img/pixel.png');
    expect(read.status).toBe(200);
    expect(Buffer.from(await read.arrayBuffer())).toEqual(PNG);
    expect(read.headers.get('content-type')).toBe('image/png');
    expect(read.headers.get('content-length')).toBe(String(PNG.length));
    expect(read.headers.get('x-content-type-options')).toBe('nosniff');
    expect(read.headers.get('content-disposition')).toMatch(/^inline; filename="pixel.png"/);
    expect(read.headers.get('content-security-policy')).toBeNull();
    expect(read.headers.get('etag')).toBe(body.etag);

    const head = await h.fetch(s.url('img/pixel.png'), { method: 'HEAD', key: s.apiKey });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(PNG.length));

    const replaced = await s.put('img/pixel.png', JPEG, 'image/jpeg');
    expect(replaced.status).toBe(200);
    const after = (await replaced.json()) as AttachmentJson;
    expect(after.etag).not.toBe(body.etag);
    expect(after.created_date).toBe(body.created_date);
    expect(Buffer.from(await (await s.get('img/pixel.png')).arrayBuffer())).toEqual(JPEG);
  });

  test('the type is checked against the bytes for rendered types (415), kept as sent otherwise', async (h) => {
    const s = await scene(h);
    expect((await s.put('a.jpg', PNG, 'image/jpeg')).status).toBe(415);
    expect((await s.put('a.png', HTML, 'image/png')).status).toBe(415);
    expect((await s.put('a.pdf', PNG, 'application/pdf')).status).toBe(415);
    expect((await s.put('a.svg', PNG, 'image/svg+xml')).status).toBe(415);
    expect((await s.put('a.html', PNG, 'text/html')).status).toBe(415);
    expect((await s.put('empty.png', Buffer.alloc(0), 'image/png')).status).toBe(415);
    // Nothing of a refused write is kept.
    expect((await s.list()).attachments).toEqual([]);
    expect((await s.project()).attachment_count).toBe(0);
    if (h.adapters.blobs.supports.list) expect(await attachmentBlobs(h, s.projectId)).toEqual([]);

    for (const [path, bytes, type] of [
      ['doc.pdf', PDF, 'application/pdf'],
      ['a.gif', Buffer.from('GIF89a\x01\x00\x01\x00'), 'image/gif'],
      ['data.bin', PNG, 'application/octet-stream'],
      ['notes.txt', Buffer.from('plain'), 'text/plain; charset=utf-8'],
      ['data.json', Buffer.from('{"a": [1, 2]}'), 'application/json'],
      ['form.txt', Buffer.from('a=1&b=2'), 'application/x-www-form-urlencoded'],
    ] as const) {
      const response = await s.put(path, bytes, type);
      expect(response.status, path).toBe(201);
      expect(((await response.json()) as AttachmentJson).content_type).toBe(type);
      // The bytes come back as sent, whatever the type (no body parser of the server touches them).
      const read = await s.get(path);
      expect(read.headers.get('content-type'), path).toBe(type);
      expect(Buffer.from(await read.arrayBuffer()), path).toEqual(bytes);
    }
  });

  test('SVG, HTML and XML are sandboxed; images, audio, video and PDF inline, anything else attachment', async (h) => {
    const s = await scene(h);
    const sandbox = "sandbox; default-src 'none'; style-src 'unsafe-inline'";
    const cases = [
      ['icon.svg', SVG, 'image/svg+xml', 'inline', sandbox],
      ['page.html', HTML, 'text/html', 'attachment', sandbox],
      ['doc.pdf', PDF, 'application/pdf', 'inline', null],
      ['clip.mp3', Buffer.from('ID3'), 'audio/mpeg', 'inline', null],
      ['data.bin', PNG, 'application/octet-stream', 'attachment', null],
    ] as const;
    for (const [path, bytes, type, disposition, csp] of cases) {
      expect((await s.put(path, bytes, type)).status, path).toBe(201);
      const read = await s.get(path);
      expect(read.headers.get('content-type'), path).toBe(type);
      expect(read.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(read.headers.get('content-disposition')?.split(';')[0], path).toBe(disposition);
      expect(read.headers.get('content-security-policy'), path).toBe(csp);
    }
  });

  test('path rules: §1 filenames with any extension but .md/.mdx (409); a media type is required', async (h) => {
    const s = await scene(h);
    expect((await s.put('notes/a.md', PNG, 'image/png')).status).toBe(409);
    expect((await s.put('notes/a.MDX', PNG, 'image/png')).status).toBe(409);
    expect((await s.put('a/../b.png', PNG, 'image/png')).status).toBe(400);
    expect((await s.put('a//b.png', PNG, 'image/png')).status).toBe(400);
    expect((await s.put('.png', PNG, 'image/png')).status).toBe(400);
    expect((await s.put('x.png', PNG, 'not a type')).status).toBe(400);
    expect((await s.put('Makefile', Buffer.from('all:'), 'text/plain')).status).toBe(201);
    expect((await s.put('ünïcode/ā b.png', PNG, 'image/png')).status).toBe(201);
    expect((await s.get('ünïcode/ā b.png')).status).toBe(200);
    expect((await s.get('missing.png')).status).toBe(404);
  });

  test('ranges (206/416) and conditional reads (304/412)', async (h) => {
    const s = await scene(h);
    const { etag } = (await (await s.put('doc.pdf', PDF, 'application/pdf')).json()) as AttachmentJson;
    const part = await s.get('doc.pdf', { Range: 'bytes=1-4' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 1-4/${PDF.length}`);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(PDF.subarray(1, 5));
    const suffix = await s.get('doc.pdf', { Range: 'bytes=-3' });
    expect(Buffer.from(await suffix.arrayBuffer())).toEqual(PDF.subarray(-3));
    expect((await s.get('doc.pdf', { Range: `bytes=${PDF.length + 5}-` })).status).toBe(416);
    // A stale If-Range gets the whole content.
    expect((await s.get('doc.pdf', { Range: 'bytes=1-4', 'If-Range': '"stale"' })).status).toBe(200);
    expect((await s.get('doc.pdf', { 'If-None-Match': etag })).status).toBe(304);
    expect((await s.get('doc.pdf', { 'If-Match': '"stale"' })).status).toBe(412);
    expect((await s.get('doc.pdf', { 'If-Match': etag })).status).toBe(200);
  });

  test('conditional writes as for files: If-Match, If-None-Match: *, the project’s require_if_match', async (h) => {
    const s = await scene(h);
    expect((await s.put('a.png', PNG, 'image/png', { 'If-Match': '"x"' })).status).toBe(412);
    const first = await s.put('a.png', PNG, 'image/png', { 'If-None-Match': '*' });
    expect(first.status).toBe(201);
    const { etag } = (await first.json()) as AttachmentJson;
    expect((await s.put('a.png', PNG, 'image/png', { 'If-None-Match': '*' })).status).toBe(412);
    expect((await s.put('a.png', JPEG, 'image/jpeg', { 'If-Match': '"stale"' })).status).toBe(412);
    expect((await s.del('a.png', { 'If-Match': '"stale"' })).status).toBe(412);
    expect((await s.put('a.png', JPEG, 'image/jpeg', { 'If-Match': etag })).status).toBe(200);
    expect((await s.get('a.png')).headers.get('content-type')).toBe('image/jpeg');

    const settings = await h.json(`/api/projects/${s.projectId}`, 'PUT', s.apiKey, {
      settings: { require_if_match: true },
    });
    expect(settings.status).toBe(200);
    expect((await s.put('a.png', PNG, 'image/png')).status).toBe(428);
    expect((await s.del('a.png')).status).toBe(428);
    // A new path needs no If-Match.
    expect((await s.put('b.png', PNG, 'image/png')).status).toBe(201);
  });

  test('identical bytes are stored once: two paths, one blob; deleting one leaves the other whole', async (h) => {
    const s = await scene(h);
    expect((await s.put('a/one.pdf', PDF, 'application/pdf')).status).toBe(201);
    expect((await s.put('b/two.pdf', PDF, 'application/pdf')).status).toBe(201);
    if (h.adapters.blobs.supports.list) expect(await attachmentBlobs(h, s.projectId)).toHaveLength(1);
    expect((await s.del('a/one.pdf')).status).toBe(204);
    expect((await s.get('a/one.pdf')).status).toBe(404);
    const other = await s.get('b/two.pdf');
    expect(other.status).toBe(200);
    expect(Buffer.from(await other.arrayBuffer())).toEqual(PDF);
    if (h.adapters.blobs.supports.list) expect(await attachmentBlobs(h, s.projectId)).toHaveLength(1);
    // Replacing the last holder's bytes frees the old blob; deleting it frees the new one.
    expect((await s.put('b/two.pdf', PNG, 'image/png')).status).toBe(200);
    if (h.adapters.blobs.supports.list) expect(await attachmentBlobs(h, s.projectId)).toHaveLength(1);
    expect((await s.del('b/two.pdf')).status).toBe(204);
    if (h.adapters.blobs.supports.list) expect(await attachmentBlobs(h, s.projectId)).toEqual([]);
    // The same bytes in another project are that project's own.
    const other2 = await h.createProject(s.apiKey, 'Other');
    const put = await h.fetch(`/api/projects/${other2.id}/attachments/x.pdf`, {
      method: 'PUT',
      key: s.apiKey,
      headers: { 'Content-Type': 'application/pdf' },
      body: PDF,
    });
    expect(put.status).toBe(201);
  });

  test('the project’s attachment_count and attachment_bytes are exact; file counters stay the files’', async (h) => {
    const s = await scene(h);
    const expectCounters = async (count: number, bytes: number) => {
      const project = await s.project();
      expect([project.attachment_count, project.attachment_bytes]).toEqual([count, bytes]);
      expect([project.file_count, project.total_size_bytes]).toEqual([0, 0]);
    };
    await expectCounters(0, 0);
    await s.put('a.png', PNG, 'image/png');
    await s.put('b.png', PNG, 'image/png');
    await expectCounters(2, 2 * PNG.length);
    await s.put('a.png', PDF, 'application/pdf');
    await expectCounters(2, PNG.length + PDF.length);
    await s.put('a.png', Buffer.from('x'), 'text/plain');
    await expectCounters(2, PNG.length + 1);
    await s.del('b.png');
    await expectCounters(1, 1);
    await s.del('a.png');
    await expectCounters(0, 0);
  });

  test('size bound: 413 past maxAttachmentBytes (declared or streamed), nothing stored', async (h) => {
    const s = await scene(h);
    const max = 64 * 1024;
    const exact = Buffer.alloc(max, 1);
    expect((await s.put('exact.bin', exact, 'application/octet-stream')).status).toBe(201);
    const over = Buffer.alloc(max + 1, 2);
    expect((await s.put('over.bin', over, 'application/octet-stream')).status).toBe(413);
    // A declared length past the limit is judged from the headers, before the preconditions.
    expect(
      (await s.put('exact.bin', over, 'application/octet-stream', { 'If-Match': '"stale"' })).status,
    ).toBe(413);
    // Without a declared length (chunked): refused as it streams.
    const chunked = await h.fetch(s.url('chunked.bin'), {
      method: 'PUT',
      key: s.apiKey,
      headers: { 'Content-Type': 'application/octet-stream' },
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 4; i++) controller.enqueue(new Uint8Array(max / 2));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect((await s.list()).attachments.map((a) => a.path)).toEqual(['exact.bin']);
    if (h.adapters.blobs.supports.list) expect(await attachmentBlobs(h, s.projectId)).toHaveLength(1);
  });

  test('list: path order, prefix, delimiter with folders, cursor pages', async (h) => {
    const s = await scene(h);
    const paths = ['b.png', 'a/x.png', 'a/y/z.png', 'a0.png', 'c/d.png'];
    for (const [i, path] of paths.entries()) await s.put(path, Buffer.from(`bytes ${i}`), 'text/plain');
    expect((await s.list()).attachments.map((a) => a.path)).toEqual([
      'a/x.png',
      'a/y/z.png',
      'a0.png',
      'b.png',
      'c/d.png',
    ]);
    const folded = await s.list('?delimiter=/');
    expect(folded.attachments.map((a) => a.path)).toEqual(['a0.png', 'b.png']);
    expect(folded.folders).toEqual(['a/', 'c/']);
    expect(folded.next_cursor).toBeNull();
    const inA = await s.list('?prefix=a/&delimiter=/');
    expect([inA.attachments.map((a) => a.path), inA.folders]).toEqual([['a/x.png'], ['a/y/']]);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await s.list(`?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.attachments.length).toBeLessThanOrEqual(2);
      seen.push(...page.attachments.map((a) => a.path));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(['a/x.png', 'a/y/z.png', 'a0.png', 'b.png', 'c/d.png']);
    const bad = await h.fetch(`/api/projects/${s.projectId}/attachments?limit=0`, { key: s.apiKey });
    expect(bad.status).toBe(422);
  });

  test('change events attachment.created|updated|deleted, and audit entries', async (h) => {
    const s = await scene(h);
    await s.put('a.png', PNG, 'image/png');
    await s.put('a.png', JPEG, 'image/jpeg');
    await s.del('a.png');
    const feed = await h.fetch('/api/changes?since=0&limit=100', { key: s.apiKey });
    const { changes } = (await feed.json()) as {
      changes: { type: string; filename: string | null; sha256: string | null }[];
    };
    expect(changes.filter((c) => c.type.startsWith('attachment.'))).toEqual([
      expect.objectContaining({ type: 'attachment.created', filename: 'a.png', sha256: sha(PNG) }),
      expect.objectContaining({ type: 'attachment.updated', filename: 'a.png', sha256: sha(JPEG) }),
      expect.objectContaining({ type: 'attachment.deleted', filename: 'a.png', sha256: null }),
    ]);
    await h.audit.flush();
    const audit = await h.fetch('/api/audit?limit=100', { key: s.apiKey });
    const entries = (
      (await audit.json()) as { entries: { action: string; filename: string | null; status: number }[] }
    ).entries;
    const ours = entries.filter((e) => e.action.includes('/attachments/'));
    expect(ours.map((e) => [e.filename, e.status])).toEqual([
      ['a.png', 204],
      ['a.png', 200],
      ['a.png', 201],
    ]);
  });

  test('roles and scopes as for files: read keys read, another account is 403, out of scope is 404', async (h) => {
    const s = await scene(h);
    expect((await s.put('a.png', PNG, 'image/png')).status).toBe(201);
    const made = await h.json('/api/keys', 'POST', s.apiKey, { name: 'reader', role: 'read' });
    const reader = ((await made.json()) as { api_key: string }).api_key;
    expect((await s.get('a.png', {}, reader)).status).toBe(200);
    expect((await s.put('b.png', PNG, 'image/png', {}, reader)).status).toBe(403);
    expect((await s.del('a.png', {}, reader)).status).toBe(403);

    const other = await h.createProject(s.apiKey, 'Elsewhere');
    const scopedMade = await h.json('/api/keys', 'POST', s.apiKey, {
      name: 'scoped',
      role: 'write',
      project_ids: [other.id],
    });
    const scoped = ((await scopedMade.json()) as { api_key: string }).api_key;
    expect((await s.get('a.png', {}, scoped)).status).toBe(404);
    expect((await s.put('b.png', PNG, 'image/png', {}, scoped)).status).toBe(404);

    const stranger = await h.account();
    expect((await s.get('a.png', {}, stranger.apiKey)).status).toBe(403);
    expect((await s.put('b.png', PNG, 'image/png', {}, stranger.apiKey)).status).toBe(403);
    expect((await s.del('a.png', {}, stranger.apiKey)).status).toBe(403);
    expect((await h.fetch(`/api/projects/${s.projectId}/attachments`, { key: stranger.apiKey })).status).toBe(
      403,
    );
  });
});

describe('attachments and the storage bound (extensions §12, §5)', () => {
  const bounded = serverTest({ settings: { maxAttachmentBytes: 64 * 1024, maxProjectBytes: 3000 } });
  bounded(
    'attachments count towards the project’s storage bound (413), and deleting one frees room',
    async (h) => {
      const s = await scene(h);
      expect((await s.put('a.bin', Buffer.alloc(2000, 1), 'application/octet-stream')).status).toBe(201);
      const refused = await s.put('b.bin', Buffer.alloc(2000, 2), 'application/octet-stream');
      expect(refused.status).toBe(413);
      expect(((await refused.json()) as { detail: string }).detail).toMatch(/storage limit/i);
      const upload = await h.upload(s.apiKey, s.projectId, [
        { name: 'file', filename: 'n.md', data: 'x'.repeat(1500) },
      ]);
      expect(upload.status).toBe(413);
      expect((await s.del('a.bin')).status).toBe(204);
      expect((await s.put('b.bin', Buffer.alloc(2000, 2), 'application/octet-stream')).status).toBe(201);
      if (h.adapters.blobs.supports.list) expect(await attachmentBlobs(h, s.projectId)).toHaveLength(1);
    },
  );
});
