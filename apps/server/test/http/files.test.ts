import { describe, expect } from 'vitest';
import { type FormPart, serverTest } from '../support/http-harness.js';

const test = serverTest();
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MISSING_UUID = '3f1c5b9e-8d2a-4c7b-9e1f-2a3b4c5d6e7f';
const MAX = 1024; // TEST_SETTINGS.maxFileBytes

type Detail = { detail: Array<{ loc: unknown[]; msg: string; type: string }> };

const filePart = (filename: string, data: string | Uint8Array = '# hello\n'): FormPart => ({
  name: 'file',
  filename,
  data,
});

async function projectFor(h: Parameters<Parameters<typeof test>[1]>[0]) {
  const { apiKey } = await h.account();
  const project = await h.createProject(apiKey, 'Files');
  return { apiKey, projectId: project.id };
}

describe('upload', () => {
  test('201 with the exact File fields; the project counters follow', async (h) => {
    const { apiKey, projectId } = await projectFor(h);
    const response = await h.upload(apiKey, projectId, [
      { name: 'metadata', data: '{"tags":["a"],"n":1}' },
      filePart('notes.md', '# Notes\n'),
    ]);
    expect(response.status).toBe(201);
    const file = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(file).sort()).toEqual(
      [
        'filename',
        'project_id',
        'size_bytes',
        'content_type',
        'metadata',
        'frontmatter',
        'storage_path',
        'created_date',
        'updated_date',
        // extensions §2
        'etag',
        'revision',
        'sha256',
      ].sort(),
    );
    expect(file).toMatchObject({
      filename: 'notes.md',
      project_id: projectId,
      size_bytes: 8,
      content_type: 'text/markdown',
      metadata: { tags: ['a'], n: 1 },
      frontmatter: null,
      storage_path: `${h.adapters.blobs.scheme}://mdstore-${projectId}/notes.md`,
    });
    expect(file.created_date).toMatch(ISO_MS);
    expect(file.updated_date).toBe(file.created_date);

    const project = (await (await h.fetch(`/api/projects/${projectId}`, { key: apiKey })).json()) as Record<
      string,
      unknown
    >;
    expect(project).toMatchObject({ file_count: 1, total_size_bytes: 8 });
  });

  test('metadata after the file part is stored too; omitted metadata is null; other fields ignored', async (h) => {
    const { apiKey, projectId } = await projectFor(h);
    const after = await h.upload(apiKey, projectId, [
      { name: 'comment', data: 'ignored' },
      filePart('after.md'),
      { name: 'metadata', data: '{"late":true}' },
    ]);
    expect(after.status).toBe(201);
    expect(await after.json()).toMatchObject({ metadata: { late: true } });
    const none = await h.upload(apiKey, projectId, [filePart('none.md')]);
    expect(await none.json()).toMatchObject({ metadata: null });
    const blobMetadata = await h.upload(apiKey, projectId, [
      { name: 'metadata', filename: 'blob', contentType: 'application/json', data: '{"blob":1}' },
      filePart('blob.mdx'),
    ]);
    expect(blobMetadata.status).toBe(201);
    expect(await blobMetadata.json()).toMatchObject({ metadata: { blob: 1 } });
  });

  test('malformed or non-object metadata is 400, before or after the file, and stores nothing', async (h) => {
    const { apiKey, projectId } = await projectFor(h);
    for (const data of ['{nope', '[1,2]', '"text"', 'null', '42']) {
      const before = await h.upload(apiKey, projectId, [{ name: 'metadata', data }, filePart('m.md')]);
      expect(before.status, data).toBe(400);
      expect(Array.isArray(((await before.json()) as Detail).detail)).toBe(true);
      const after = await h.upload(apiKey, projectId, [filePart('m.md'), { name: 'metadata', data }]);
      expect(after.status, data).toBe(400);
    }
    const deep = JSON.stringify(JSON.parse(`${'{"a":'.repeat(33)}1${'}'.repeat(33)}`));
    expect(
      (await h.upload(apiKey, projectId, [{ name: 'metadata', data: deep }, filePart('m.md')])).status,
    ).toBe(400);
    const list = (await (
      await h.fetch(`/api/projects/${projectId}/files`, { key: apiKey })
    ).json()) as Record<string, unknown>;
    expect(list).toMatchObject({ files: [], total_count: 0, total_size_bytes: 0 });
  });

  test('a missing file part, a second file part or a non-multipart body is 400', async (h) => {
    const { apiKey, projectId } = await projectFor(h);
    const missing = await h.upload(apiKey, projectId, [{ name: 'metadata', data: '{}' }]);
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as Detail).detail[0]!.loc).toEqual(['body', 'file']);
    const twice = await h.upload(apiKey, projectId, [filePart('one.md'), filePart('two.md')]);
    expect(twice.status).toBe(400);
    const nameless = await h.upload(apiKey, projectId, [{ name: 'file', data: '# no filename' }]);
    expect(nameless.status).toBe(400);
    const json = await h.json(`/api/projects/${projectId}/files`, 'POST', apiKey, { file: 'x' });
    expect(json.status).toBe(400);
    const broken = await h.fetch(`/api/projects/${projectId}/files`, {
      method: 'POST',
      key: apiKey,
      headers: { 'Content-Type': 'multipart/form-data; boundary=xyz' },
      body: '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.md"\r\n\r\n# cut short',
    });
    expect(broken.status).toBe(400);
    const files = (await (await h.fetch(`/api/projects/${projectId}/files`, { key: apiKey })).json()) as {
      total_count: number;
    };
    expect(files.total_count).toBe(0);
  });

  test('extensions: .md/.mdx in any case accepted; others and none are 415', async (h) => {
    const { apiKey, projectId } = await projectFor(h);
    for (const name of ['a.md', 'b.mdx', 'C.MD', 'd.Mdx', 'x.txt.md']) {
      expect((await h.upload(apiKey, projectId, [filePart(name)])).status, name).toBe(201);
    }
    for (const name of ['a.txt', 'README', 'md', 'a.md.txt', 'a.markdown']) {
      const response = await h.upload(apiKey, projectId, [filePart(name)]);
      expect(response.status, name).toBe(415);
      expect(typeof ((await response.json()) as { detail: unknown }).detail).toBe('string');
    }
  });

  test('the extension is judged before the content: a huge wrong-type file is still 415', async (h) => {
    const { apiKey, projectId } = await projectFor(h);
    const response = await h.upload(apiKey, projectId, [
      filePart('big.png', new Uint8Array(200_000).fill(0xff)),
    ]);
    expect(response.status).toBe(415);
  });

  test('bad filenames are 400: backslash, control characters, empty stem, too long', async (h) => {
    const { apiKey, projectId } = await projectFor(h);
    for (const name of ['..\\a.md', 'tab\there.md', '.md', `${'a'.repeat(253)}.md`]) {
      const response = await h.upload(apiKey, projectId, [filePart(name)]);
      expect(response.status, name).toBe(400);
    }
    expect((await h.upload(apiKey, projectId, [filePart(`${'a'.repeat(252)}.md`)])).status).toBe(201);
  });

  test('folders (extensions §1): each breach of the folder rules is 400, a bad last extension 415', async (h) => {
    const { apiKey, projectId } = await projectFor(h);
    const segment = 's'.repeat(255);
    for (const name of [
      '/a.md',
      'a/',
      'a.md/',
      'a//b.md',
      './a.md',
      'a/./b.md',
      'a/../b.md',
      '../a.md',
      'a.md/b.md',
      'a.MDX/b.md',
      'a/.md',
      `${'f'.repeat(256)}/a.md`,
      `${segment}/${segment}/${segment}/${'d'.repeat(252)}/e.md`,
    ]) {
      const response = await h.upload(apiKey, projectId, [filePart(name)]);
      expect(response.status, name).toBe(400);
      expect(((await response.json()) as Detail).detail[0]!.loc).toEqual(['body', 'file']);
    }
    for (const name of ['docs/b.txt', 'notes.d/readme']) {
      expect((await h.upload(apiKey, projectId, [filePart(name)])).status, name).toBe(415);
    }
    const longest = `${segment}/${segment}/${segment}/${'d'.repeat(251)}/e.md`;
    expect((await h.upload(apiKey, projectId, [filePart(longest)])).status).toBe(201);
    const project = (await (await h.fetch(`/api/projects/${projectId}`, { key: apiKey })).json()) as {
      file_count: number;
    };
    expect(project.file_count).toBe(1);
  });

  test('folders: a file in folders through every operation, addressed with %2F', async (h) => {
    const { apiKey, projectId } = await projectFor(h);
    const created = await h.uploadFile(apiKey, projectId, 'guides/intro/setup.md', '# Setup\n', { v: 1 });
    expect(created).toMatchObject({
      filename: 'guides/intro/setup.md',
      storage_path: `${h.adapters.blobs.scheme}://mdstore-${projectId}/guides/intro/setup.md`,
    });
    // A file named like the folder's first segment is another file.
    await h.uploadFile(apiKey, projectId, 'guides.md', '# Guides\n');
    const path = `/api/projects/${projectId}/files/guides%2Fintro%2Fsetup.md`;
    const download = await h.fetch(path, { key: apiKey });
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('# Setup\n');
    expect(download.headers.get('content-disposition')).toBe(
      `attachment; filename="setup.md"; filename*=UTF-8''setup.md`,
    );
    // Lower-case hex and a mix of %2F and %2f decode alike.
    expect(
      (await h.fetch(`/api/projects/${projectId}/files/guides%2fintro%2Fsetup.md`, { key: apiKey })).status,
    ).toBe(200);
    // A raw slash never separates folders: it is another route, or none.
    const raw = await h.fetch(`/api/projects/${projectId}/files/guides/intro/setup.md`, { key: apiKey });
    expect(raw.status).toBe(404);
    const rawContent = await h.fetch(`/api/projects/${projectId}/files/guides/content`, {
      method: 'PUT',
      key: apiKey,
      headers: { 'Content-Type': 'text/markdown' },
      body: '# x',
    });
    expect(rawContent.status).toBe(404);
    expect(await rawContent.json()).toEqual({ detail: 'File not found' });

    const metadata = await h.json(path, 'PUT', apiKey, { metadata: { v: 2 } });
    expect(metadata.status).toBe(200);
    expect(await metadata.json()).toMatchObject({ filename: 'guides/intro/setup.md', metadata: { v: 2 } });
    const content = await h.fetch(`${path}/content`, {
      method: 'PUT',
      key: apiKey,
      headers: { 'Content-Type': 'text/markdown' },
      body: '# Setup, again\n',
    });
    expect(content.status).toBe(200);
    expect(await (await h.fetch(path, { key: apiKey })).text()).toBe('# Setup, again\n');
    // The routes of extensions §4 take the same segment.
    const outline = await h.fetch(`${path}/outline`, { key: apiKey });
    expect(outline.status).toBe(200);
    expect(((await outline.json()) as { headings: Array<{ text: string }> }).headings[0]!.text).toBe(
      'Setup, again',
    );
    const edited = await h.json(path, 'PATCH', apiKey, { edits: [{ op: 'append', text: 'More.\n' }] });
    expect(edited.status).toBe(200);
    const lines = await h.fetch(`${path}?lines=2-2`, { key: apiKey });
    expect(lines.status).toBe(200);
    expect(lines.headers.get('content-disposition')).toContain('filename="setup.md"');
    const list = (await (await h.fetch(`/api/projects/${projectId}/files`, { key: apiKey })).json()) as {
      files: Array<{ filename: string }>;
    };
    expect(list.files.map((file) => file.filename)).toEqual(['guides.md', 'guides/intro/setup.md']);
    expect((await h.fetch(path, { method: 'DELETE', key: apiKey })).status).toBe(204);
    expect((await h.fetch(path, { key: apiKey })).status).toBe(404);
    expect((await h.fetch(`/api/projects/${projectId}/files/guides.md`, { key: apiKey })).status).toBe(200);
  });

  test('filename* (RFC 8187) wins over filename; UTF-8 names are kept exactly', async (h) => {
    const { apiKey, projectId } = await projectFor(h);
    const star = await h.upload(apiKey, projectId, [
      { name: 'file', filename: 'fallback.md', filenameStar: 'résumé 📝.md', data: '# r' },
    ]);
    expect(star.status).toBe(201);
    expect(await star.json()).toMatchObject({ filename: 'résumé 📝.md' });
    const raw = await h.upload(apiKey, projectId, [filePart('日本語.md')]);
    expect(await raw.json()).toMatchObject({ filename: '日本語.md' });
    const download = await h.fetch(`/api/projects/${projectId}/files/${encodeURIComponent('résumé 📝.md')}`, {
      key: apiKey,
    });
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('# r');
  });

  test('NFC and NFD spellings and case variants are different files', async (h) => {
    const { apiKey, projectId } = await projectFor(h);
    const nfc = 'café.md'.normalize('NFC');
    const nfd = 'café.md'.normalize('NFD');
    await h.uploadFile(apiKey, projectId, nfc, 'nfc');
    await h.uploadFile(apiKey, projectId, nfd, 'nfd!');
    await h.uploadFile(apiKey, projectId, 'a.md', 'lower');
    await h.uploadFile(apiKey, projectId, 'A.md', 'upper!');
    const read = async (name: string) =>
      (await h.fetch(`/api/projects/${projectId}/files/${encodeURIComponent(name)}`, { key: apiKey })).text();
    expect(await read(nfc)).toBe('nfc');
    expect(await read(nfd)).toBe('nfd!');
    expect(await read('a.md')).toBe('lower');
    expect(await read('A.md')).toBe('upper!');
  });

  test('a duplicate filename is 409 naming the file', async (h) => {
    const { apiKey, projectId } = await projectFor(h);
    await h.uploadFile(apiKey, projectId, 'dup.md', 'one');
    const again = await h.upload(apiKey, projectId, [filePart('dup.md', 'two')]);
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({ detail: "File with name 'dup.md' already exists" });
  });

  test('content rules: exactly the maximum accepted, one more 413, empty 400, invalid UTF-8 400', async (h) => {
    const { apiKey, projectId } = await projectFor(h);
    const exact = await h.upload(apiKey, projectId, [filePart('exact.md', 'x'.repeat(MAX))]);
    expect(exact.status).toBe(201);
    expect(await exact.json()).toMatchObject({ size_bytes: MAX });
    const over = await h.upload(apiKey, projectId, [filePart('over.md', 'x'.repeat(MAX + 1))]);
    expect(over.status).toBe(413);
    expect(typeof ((await over.json()) as { detail: unknown }).detail).toBe('string');
    const wayOver = await h.upload(apiKey, projectId, [filePart('way.md', 'x'.repeat(300_000))]);
    expect(wayOver.status).toBe(413);
    const empty = await h.upload(apiKey, projectId, [filePart('empty.md', '')]);
    expect(empty.status).toBe(400);
    const invalid = await h.upload(apiKey, projectId, [
      filePart('bad.md', new Uint8Array([0x23, 0x20, 0xc3, 0x28])),
    ]);
    expect(invalid.status).toBe(400);
    const files = (await (await h.fetch(`/api/projects/${projectId}/files`, { key: apiKey })).json()) as {
      files: Array<{ filename: string }>;
      total_size_bytes: number;
    };
    expect(files.files.map((file) => file.filename)).toEqual(['exact.md']);
    expect(files.total_size_bytes).toBe(MAX);
  });

  test('a byte-order mark is kept; bytes come back byte for byte', async (h) => {
    const { apiKey, projectId } = await projectFor(h);
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('# BOM\r\n\u0000 é 😀\n')]);
    const file = await h.uploadFile(apiKey, projectId, 'bom.md', bytes);
    expect(file.size_bytes).toBe(bytes.byteLength);
    const download = await h.fetch(`/api/projects/${projectId}/files/bom.md`, { key: apiKey });
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(bytes);
  });

  test('404 for an unknown project, 403 for another account, 422 for a malformed id', async (h) => {
    const { apiKey, projectId } = await projectFor(h);
    const other = await h.account();
    const missing = await h.upload(apiKey, MISSING_UUID, [filePart('a.md')]);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: 'Project not found' });
    expect((await h.upload(other.apiKey, projectId, [filePart('a.md')])).status).toBe(403);
    expect((await h.upload(apiKey, 'nope', [filePart('a.md')])).status).toBe(422);
  });
});

describe('list, download, delete', () => {
  test('list: every file in code-point order with totals', async (h) => {
    const { apiKey, projectId } = await projectFor(h);
    for (const name of ['b.md', 'B.md', 'a.mdx', 'é.md', '😀.md', 'ｚ.md'])
      await h.uploadFile(apiKey, projectId, name, name);
    const response = await h.fetch(`/api/projects/${projectId}/files`, { key: apiKey });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      files: Array<Record<string, unknown>>;
      total_count: number;
      total_size_bytes: number;
    };
    expect(Object.keys(body).sort()).toEqual(['files', 'total_count', 'total_size_bytes']);
    expect(body.files.map((file) => file.filename)).toEqual([
      'B.md',
      'a.mdx',
      'b.md',
      'é.md',
      'ｚ.md',
      '😀.md',
    ]);
    expect(body.total_count).toBe(6);
    expect(body.total_size_bytes).toBe(
      body.files.reduce((sum, file) => sum + (file.size_bytes as number), 0),
    );
    expect(body.files[0]).toHaveProperty('storage_path');
    const other = await h.account();
    expect((await h.fetch(`/api/projects/${projectId}/files`, { key: other.apiKey })).status).toBe(403);
    expect((await h.fetch(`/api/projects/${MISSING_UUID}/files`, { key: apiKey })).status).toBe(404);
  });

  test('download: raw bytes and every header of the interface', async (h) => {
    const { apiKey, projectId } = await projectFor(h);
    const file = await h.uploadFile(apiKey, projectId, 'doc.md', '# Doc\nbody é\n');
    const response = await h.fetch(`/api/projects/${projectId}/files/doc.md`, { key: apiKey });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(response.headers.get('content-length')).toBe('14');
    expect(response.headers.get('x-file-size')).toBe('14');
    expect(response.headers.get('x-created-date')).toBe(file.created_date);
    expect(response.headers.get('x-updated-date')).toBe(file.updated_date);
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="doc.md"; filename*=UTF-8''doc.md`,
    );
    expect(response.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    expect(await response.text()).toBe('# Doc\nbody é\n');
  });

  test('download of a hostile filename: safe ASCII fallback and exact filename*', async (h) => {
    const { apiKey, projectId } = await projectFor(h);
    const name = 'a "quoted"; name=\'x\' é\u2028%41 ü\u00a0\u200b.md';
    const uploaded = await h.upload(apiKey, projectId, [
      { name: 'file', filename: 'fallback.md', filenameStar: name, data: '# x' },
    ]);
    expect(await uploaded.json()).toMatchObject({ filename: name });
    const response = await h.fetch(`/api/projects/${projectId}/files/${encodeURIComponent(name)}`, {
      key: apiKey,
    });
    expect(response.status).toBe(200);
    const disposition = response.headers.get('content-disposition')!;
    expect(disposition).toMatch(/^[\x20-\x7e]+$/);
    const fallback = /filename="([^"]*)"/.exec(disposition)![1];
    expect(fallback).toBe("a _quoted_; name='x' __%41 ___.md");
    const star = /filename\*=UTF-8''(\S+)$/.exec(disposition)![1]!;
    expect(star).not.toMatch(/['"();\s]/);
    expect(decodeURIComponent(star)).toBe(name);
  });

  test('a filename with an encoded slash or odd characters is matched as one segment', async (h) => {
    const { apiKey, projectId } = await projectFor(h);
    await h.uploadFile(apiKey, projectId, 'x?#%.md', '# odd');
    const odd = await h.fetch(`/api/projects/${projectId}/files/${encodeURIComponent('x?#%.md')}`, {
      key: apiKey,
    });
    expect(await odd.text()).toBe('# odd');
    const slash = await h.fetch(`/api/projects/${projectId}/files/a%2Fb.md`, { key: apiKey });
    expect(slash.status).toBe(404);
    expect(await slash.json()).toEqual({ detail: 'File not found' });
    const badEncoding = await h.fetch(`/api/projects/${projectId}/files/%E0%A4%A.md`, { key: apiKey });
    expect(badEncoding.status).toBe(400);
    expect(Array.isArray(((await badEncoding.json()) as { detail: unknown }).detail)).toBe(true);
  });

  test('download: 404 File not found, 404 unknown project, 403 foreign project', async (h) => {
    const { apiKey, projectId } = await projectFor(h);
    const other = await h.account();
    await h.uploadFile(apiKey, projectId, 'here.md', '# here');
    const missing = await h.fetch(`/api/projects/${projectId}/files/missing.md`, { key: apiKey });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: 'File not found' });
    expect(missing.headers.get('content-disposition')).toBeNull();
    expect((await h.fetch(`/api/projects/${projectId}/files/Here.md`, { key: apiKey })).status).toBe(404);
    expect((await h.fetch(`/api/projects/${MISSING_UUID}/files/here.md`, { key: apiKey })).status).toBe(404);
    expect((await h.fetch(`/api/projects/${projectId}/files/here.md`, { key: other.apiKey })).status).toBe(
      403,
    );
  });

  test('delete: 204 without a body, then 404; counters and updated_date follow', async (h) => {
    const { apiKey, projectId } = await projectFor(h);
    await h.uploadFile(apiKey, projectId, 'keep.md', '12345');
    await h.uploadFile(apiKey, projectId, 'gone.md', '123');
    const before = (await (await h.fetch(`/api/projects/${projectId}`, { key: apiKey })).json()) as Record<
      string,
      unknown
    >;
    expect(before).toMatchObject({ file_count: 2, total_size_bytes: 8 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const deleted = await h.fetch(`/api/projects/${projectId}/files/gone.md`, {
      method: 'DELETE',
      key: apiKey,
    });
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe('');
    const after = (await (await h.fetch(`/api/projects/${projectId}`, { key: apiKey })).json()) as Record<
      string,
      string
    >;
    expect(after).toMatchObject({ file_count: 1, total_size_bytes: 5 });
    expect(after.updated_date! > (before.updated_date as string)).toBe(true);
    const again = await h.fetch(`/api/projects/${projectId}/files/gone.md`, {
      method: 'DELETE',
      key: apiKey,
    });
    expect(again.status).toBe(404);
    expect(await again.json()).toEqual({ detail: 'File not found' });
    expect((await h.fetch(`/api/projects/${projectId}/files/gone.md`, { key: apiKey })).status).toBe(404);
  });
});

describe('update metadata', () => {
  test('replaces the whole object; null clears; answer has the five fields', async (h) => {
    const { apiKey, projectId } = await projectFor(h);
    const uploaded = await h.uploadFile(apiKey, projectId, 'm.md', '# m', { a: 1, b: 2 });
    const project = (await (await h.fetch(`/api/projects/${projectId}`, { key: apiKey })).json()) as Record<
      string,
      unknown
    >;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const response = await h.json(`/api/projects/${projectId}/files/m.md`, 'PUT', apiKey, {
      metadata: { c: 3 },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(
      [
        'filename',
        'metadata',
        'project_id',
        'size_bytes',
        'updated_date',
        'etag',
        'revision',
        'sha256',
      ].sort(),
    );
    expect(body).toMatchObject({
      filename: 'm.md',
      project_id: projectId,
      size_bytes: 3,
      metadata: { c: 3 },
    });
    expect((body.updated_date as string) > (uploaded.updated_date as string)).toBe(true);
    const cleared = await h.json(`/api/projects/${projectId}/files/m.md`, 'PUT', apiKey, { metadata: null });
    expect(await cleared.json()).toMatchObject({ metadata: null });
    const unchanged = (await (await h.fetch(`/api/projects/${projectId}`, { key: apiKey })).json()) as Record<
      string,
      unknown
    >;
    expect(unchanged.updated_date).toBe(project.updated_date);
  });

  test('invalid metadata is 422, invalid JSON 400, wrong type 415, unknown file 404', async (h) => {
    const { apiKey, projectId } = await projectFor(h);
    await h.uploadFile(apiKey, projectId, 'm.md', '# m');
    const path = `/api/projects/${projectId}/files/m.md`;
    for (const body of [{}, { metadata: [1] }, { metadata: 'x' }, { metadata: 3 }, [], 'x']) {
      const response = await h.json(path, 'PUT', apiKey, body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(Array.isArray(((await response.json()) as { detail: unknown }).detail)).toBe(true);
    }
    const large = { metadata: { text: 'x'.repeat(64 * 1024) } };
    expect((await h.json(path, 'PUT', apiKey, large)).status).toBe(422);
    const broken = await h.fetch(path, {
      method: 'PUT',
      key: apiKey,
      headers: { 'Content-Type': 'application/json' },
      body: '{"metadata":',
    });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toEqual({
      detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }],
    });
    expect(
      (
        await h.fetch(path, {
          method: 'PUT',
          key: apiKey,
          headers: { 'Content-Type': 'text/plain' },
          body: '{}',
        })
      ).status,
    ).toBe(415);
    const missing = await h.json(`/api/projects/${projectId}/files/none.md`, 'PUT', apiKey, { metadata: {} });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: 'File not found' });
  });
});

describe('update content', () => {
  const put = (
    h: Parameters<Parameters<typeof test>[1]>[0],
    key: string,
    path: string,
    body: string | Uint8Array,
    type = 'text/markdown',
  ) => h.fetch(path, { method: 'PUT', key, headers: { 'Content-Type': type }, body });

  test('replaces the content, keeps the metadata, moves the counters', async (h) => {
    const { apiKey, projectId } = await projectFor(h);
    await h.uploadFile(apiKey, projectId, 'c.md', '# old', { keep: true });
    const response = await put(
      h,
      apiKey,
      `/api/projects/${projectId}/files/c.md/content`,
      '# new content',
      'text/markdown; charset=utf-8',
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(
      [
        'filename',
        'metadata',
        'project_id',
        'size_bytes',
        'updated_date',
        'etag',
        'revision',
        'sha256',
      ].sort(),
    );
    expect(body).toMatchObject({ filename: 'c.md', size_bytes: 13, metadata: { keep: true } });
    const download = await h.fetch(`/api/projects/${projectId}/files/c.md`, { key: apiKey });
    expect(await download.text()).toBe('# new content');
    const project = (await (await h.fetch(`/api/projects/${projectId}`, { key: apiKey })).json()) as Record<
      string,
      unknown
    >;
    expect(project).toMatchObject({ file_count: 1, total_size_bytes: 13 });
  });

  test('415 for another type, 400 empty or invalid UTF-8, 413 above the maximum, 404 unknown file', async (h) => {
    const { apiKey, projectId } = await projectFor(h);
    await h.uploadFile(apiKey, projectId, 'c.md', '# keep me');
    const path = `/api/projects/${projectId}/files/c.md/content`;
    expect((await put(h, apiKey, path, '# x', 'text/plain')).status).toBe(415);
    expect((await put(h, apiKey, path, '# x', 'application/json')).status).toBe(415);
    expect((await put(h, apiKey, path, '')).status).toBe(400);
    expect((await put(h, apiKey, path, new Uint8Array([0xff, 0xfe]))).status).toBe(400);
    expect((await put(h, apiKey, path, 'x'.repeat(MAX + 1))).status).toBe(413);
    expect((await put(h, apiKey, path, 'y'.repeat(200_000))).status).toBe(413);
    expect((await put(h, apiKey, path, 'z'.repeat(MAX))).status).toBe(200);
    const missing = await put(h, apiKey, `/api/projects/${projectId}/files/none.md/content`, '# x');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: 'File not found' });
    const download = await h.fetch(`/api/projects/${projectId}/files/c.md`, { key: apiKey });
    expect(await download.text()).toBe('z'.repeat(MAX));
  });

  test('GET and DELETE on the content path are 405 with Allow: PUT', async (h) => {
    const { apiKey, projectId } = await projectFor(h);
    const response = await h.fetch(`/api/projects/${projectId}/files/c.md/content`, { key: apiKey });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('PUT');
    expect(await response.json()).toEqual({ detail: 'Method Not Allowed' });
  });
});
