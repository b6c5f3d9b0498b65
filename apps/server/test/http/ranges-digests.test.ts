import { describe, expect } from 'vitest';
import {
  expectNothingLeftBehind,
  type FileAnswer,
  fileState,
  projectJson,
  type Spied,
  sha256Field,
  sha256Hex,
  spyingAdapters,
} from '../support/conditional.js';
import { type HttpHarness, multipartBody, serverTest } from '../support/http-harness.js';

/**
 * Ranges (RFC 9110 §14) and digests (RFC 9530) of extensions §2 over HTTP, on both storage forms: a small
 * file is inline on the default sets (its range sliced from the records store), a large one always a
 * blob (its range read from the blob store, and only that part).
 */
const MAX = 300_000;
const { factory, spied } = spyingAdapters();
const test = serverTest({ adapters: factory, settings: { maxFileBytes: MAX } });

/** Valid UTF-8 with multi-byte characters, so that ranges cut through them. */
function markdown(size: number): Buffer {
  const unit = Buffer.from('# Range é 中文 😀\nline of text\n');
  // Whole units, then ASCII up to the size: a cut character would be invalid UTF-8.
  const bytes = Buffer.alloc(size, 0x2e);
  for (let offset = 0; offset + unit.length <= size; offset += unit.length) unit.copy(bytes, offset);
  return bytes;
}

const SMALL = markdown(100);
const LARGE = markdown(200_000);
const SIZES = [
  ['small', SMALL],
  ['large', LARGE],
] as const;

function clearSpied(s: Spied): void {
  s.gets.length = 0;
  s.inline.clear();
  s.blobs.clear();
}

async function setup(h: HttpHarness) {
  clearSpied(spied);
  const { apiKey } = await h.account();
  const { id: projectId } = await h.createProject(apiKey, 'Ranges');
  const files: Record<string, FileAnswer & { path: string; bytes: Buffer }> = {};
  for (const [name, bytes] of SIZES) {
    const file = (await h.uploadFile(apiKey, projectId, `${name}.md`, bytes)) as unknown as FileAnswer;
    files[name] = { ...file, path: `/api/projects/${projectId}/files/${name}.md`, bytes };
  }
  return {
    apiKey,
    projectId,
    files: files as Record<(typeof SIZES)[number][0], FileAnswer & { path: string; bytes: Buffer }>,
  };
}

const get = (h: HttpHarness, key: string, path: string, headers: Record<string, string>, method = 'GET') =>
  h.fetch(path, { key, method, headers });

describe('ranges', () => {
  test('one range is 206 with Content-Range and that part only; X-File-Size and Repr-Digest stay whole', async (h) => {
    const s = await setup(h);
    for (const [name, bytes] of SIZES) {
      const size = bytes.length;
      const cases: Array<[string, number, number]> = [
        ['bytes=0-0', 0, 0],
        ['bytes=-1', size - 1, size - 1],
        ['bytes=5-', 5, size - 1],
        ['bytes=2-5', 2, 5],
        [`bytes=${size - 1}-`, size - 1, size - 1],
        // The end beyond the size is cut at the size; a suffix longer than the file is all of it.
        [`bytes=10-${size + 1000}`, 10, size - 1],
        [`bytes=-${size + 1000}`, 0, size - 1],
        [`bytes=0-${size - 1}`, 0, size - 1],
        ['BYTES=3-4', 3, 4],
        [' bytes=3-4 ', 3, 4],
        ['bytes= 3-4 , ', 3, 4],
        ['bytes=0-99999999999999999999999999', 0, size - 1],
      ];
      if (size > 70_000)
        cases.push(['bytes=65530-65545', 65530, 65545], ['bytes=131000-140000', 131000, 140000]);
      for (const [range, start, end] of cases) {
        const response = await get(h, s.apiKey, s.files[name].path, { Range: range });
        const label = `${name} ${range}`;
        expect(response.status, label).toBe(206);
        expect(response.headers.get('content-range'), label).toBe(`bytes ${start}-${end}/${size}`);
        expect(response.headers.get('content-length'), label).toBe(String(end - start + 1));
        expect(response.headers.get('x-file-size'), label).toBe(String(size));
        expect(response.headers.get('accept-ranges'), label).toBe('bytes');
        expect(response.headers.get('repr-digest'), label).toBe(sha256Field(bytes));
        expect(response.headers.get('etag'), label).toBe(s.files[name].etag);
        expect(response.headers.get('cache-control'), label).toBe('private, no-cache');
        expect(response.headers.get('content-type'), label).toBe('text/markdown; charset=utf-8');
        const body = Buffer.from(await response.arrayBuffer());
        expect(body.equals(bytes.subarray(start, end + 1)), label).toBe(true);
      }
    }
  });

  test('a range starting at or past the end (or -0) is 416 with Content-Range: bytes */size', async (h) => {
    const s = await setup(h);
    for (const [name, bytes] of SIZES) {
      const size = bytes.length;
      for (const range of [
        `bytes=${size}-`,
        `bytes=${size}-${size + 10}`,
        `bytes=${size + 5}-`,
        'bytes=-0',
        'bytes=99999999999999999999-',
      ]) {
        for (const method of ['GET', 'HEAD']) {
          const response = await get(h, s.apiKey, s.files[name].path, { Range: range }, method);
          const label = `${name} ${method} ${range}`;
          expect(response.status, label).toBe(416);
          expect(response.headers.get('content-range'), label).toBe(`bytes */${size}`);
          expect(response.headers.get('cache-control'), label).toBe('no-store');
          if (method === 'GET')
            expect(await response.json(), label).toEqual({ detail: 'Range not satisfiable' });
          else expect(await response.text()).toBe('');
        }
      }
    }
  });

  test('several ranges, a malformed Range, another unit or an inverted range: 200 with the whole file', async (h) => {
    const s = await setup(h);
    for (const [name, bytes] of SIZES) {
      for (const range of [
        'bytes=0-1,3-4',
        'bytes=0-0,0-0',
        'bytes=-1,0-0',
        'bytes=5-2',
        'bytes=abc',
        'bytes=1-x',
        'bytes=--1',
        'bytes=',
        'bytes',
        'items=0-1',
        'bytes 0-1',
        'bytes=0x10-20',
        '',
      ]) {
        const response = await get(h, s.apiKey, s.files[name].path, { Range: range });
        const label = `${name} ${JSON.stringify(range)}`;
        expect(response.status, label).toBe(200);
        expect(response.headers.get('content-range'), label).toBeNull();
        expect(response.headers.get('content-length'), label).toBe(String(bytes.length));
        expect(Buffer.from(await response.arrayBuffer()).equals(bytes), label).toBe(true);
      }
    }
  });

  test('HEAD with a range: the 206 headers, no body', async (h) => {
    const s = await setup(h);
    const response = await get(h, s.apiKey, s.files.large.path, { Range: 'bytes=100-199' }, 'HEAD');
    expect(response.status).toBe(206);
    expect(response.headers.get('content-range')).toBe(`bytes 100-199/${LARGE.length}`);
    expect(response.headers.get('content-length')).toBe('100');
    expect(await response.text()).toBe('');
  });

  test('If-Range: a current strong ETag or the exact Last-Modified gives 206; anything else the whole file', async (h) => {
    const s = await setup(h);
    for (const [name, bytes] of SIZES) {
      const file = s.files[name];
      const lastModified = new Date(file.updated_date).toUTCString();
      const partial = [file.etag, lastModified];
      const whole = [
        '"stale"',
        `W/${file.etag}`,
        new Date(Date.parse(lastModified) + 1000).toUTCString(),
        new Date(Date.parse(lastModified) - 1000).toUTCString(),
        'not a validator',
      ];
      for (const ifRange of [...partial, ...whole]) {
        const response = await get(h, s.apiKey, file.path, { Range: 'bytes=1-3', 'If-Range': ifRange });
        const label = `${name} ${ifRange}`;
        const expected = partial.includes(ifRange);
        expect(response.status, label).toBe(expected ? 206 : 200);
        const body = Buffer.from(await response.arrayBuffer());
        expect(body.equals(expected ? bytes.subarray(1, 4) : bytes), label).toBe(true);
      }
      // An unsatisfiable range behind a stale If-Range is not judged: the whole file.
      const stale = await get(h, s.apiKey, file.path, {
        Range: `bytes=${bytes.length}-`,
        'If-Range': '"stale"',
      });
      expect(stale.status).toBe(200);
      await stale.arrayBuffer();
      // If-Range without Range changes nothing.
      const alone = await get(h, s.apiKey, file.path, { 'If-Range': '"stale"' });
      expect(alone.status).toBe(200);
      await alone.arrayBuffer();
    }
  });

  test('after a write the old ETag in If-Range gives the new version whole', async (h) => {
    const s = await setup(h);
    const file = s.files.small;
    const updated = await h.fetch(`${file.path}/content`, {
      method: 'PUT',
      key: s.apiKey,
      headers: { 'Content-Type': 'text/markdown' },
      body: '# replaced',
    });
    expect(updated.status).toBe(200);
    await updated.arrayBuffer();
    const response = await get(h, s.apiKey, file.path, { Range: 'bytes=0-1', 'If-Range': file.etag });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('# replaced');
  });

  test('preconditions come before the range: 304 and 412 win over 206 and 416', async (h) => {
    const s = await setup(h);
    const file = s.files.large;
    const notModified = await get(h, s.apiKey, file.path, { Range: 'bytes=0-0', 'If-None-Match': file.etag });
    expect(notModified.status).toBe(304);
    const failed = await get(h, s.apiKey, file.path, {
      Range: `bytes=${LARGE.length}-`,
      'If-Match': '"stale"',
    });
    expect(failed.status).toBe(412);
    await failed.arrayBuffer();
  });

  test('a range of a blob is asked of the blob store as that range; an inline one never touches it', async (h) => {
    const s = await setup(h);
    const read = async (path: string, headers: Record<string, string>) => {
      spied.gets.length = 0;
      const response = await get(h, s.apiKey, path, headers);
      await response.arrayBuffer();
      return [...spied.gets];
    };
    const blobGets = await read(s.files.large.path, { Range: 'bytes=1000-1009' });
    expect(blobGets.map((g) => g.range)).toEqual([{ start: 1000, end: 1009 }]);
    expect((await read(s.files.large.path, { Range: 'bytes=-5' })).map((g) => g.range)).toEqual([
      { start: LARGE.length - 5, end: LARGE.length - 1 },
    ]);
    expect((await read(s.files.large.path, {})).map((g) => g.range)).toEqual([undefined]);
    // HEAD opens nothing; neither does a 304 or a 416.
    spied.gets.length = 0;
    await (await get(h, s.apiKey, s.files.large.path, { Range: 'bytes=0-1' }, 'HEAD')).arrayBuffer();
    await (await get(h, s.apiKey, s.files.large.path, { 'If-None-Match': '*' })).arrayBuffer();
    await (await get(h, s.apiKey, s.files.large.path, { Range: 'bytes=999999-' })).arrayBuffer();
    expect(spied.gets).toEqual([]);
    const small = await read(s.files.small.path, { Range: 'bytes=1-2' });
    const smallIsInline = (await h.adapters.records.findFile({
      projectId: s.projectId,
      filename: 'small.md',
    }))!.inline;
    expect(small.map((g) => g.range)).toEqual(smallIsInline ? [] : [{ start: 1, end: 2 }]);
  });
});

describe('digests', () => {
  test('downloads carry Repr-Digest of the whole content on 200, 206 and HEAD, matching the sha256 field', async (h) => {
    const s = await setup(h);
    for (const [name, bytes] of SIZES) {
      const file = s.files[name];
      expect(file.sha256).toBe(sha256Hex(bytes));
      const expected = sha256Field(bytes);
      for (const [method, headers] of [
        ['GET', {}],
        ['HEAD', {}],
        ['GET', { Range: 'bytes=0-9' }],
      ] as const) {
        const response = await get(h, s.apiKey, file.path, headers, method);
        expect(response.headers.get('repr-digest'), `${name} ${method}`).toBe(expected);
        await response.arrayBuffer();
      }
      // The value decodes to the SHA-256 the File object shows.
      const base64 = /^sha-256=:([A-Za-z0-9+/=]+):$/.exec(expected)![1]!;
      expect(Buffer.from(base64, 'base64').toString('hex')).toBe(file.sha256);
    }
  });

  test('content update: a matching Content-Digest or Repr-Digest is accepted; other algorithms are ignored', async (h) => {
    const s = await setup(h);
    const put = (body: Buffer | string, headers: Record<string, string>) =>
      h.fetch(`${s.files.small.path}/content`, {
        method: 'PUT',
        key: s.apiKey,
        headers: { 'Content-Type': 'text/markdown', ...headers },
        body,
      });
    const bodies = ['# one', '# two', '# three', '# four', '# five'];
    const headers: Array<Record<string, string>> = [
      { 'Content-Digest': sha256Field(bodies[0]!) },
      { 'Repr-Digest': sha256Field(bodies[1]!) },
      { 'Content-Digest': sha256Field(bodies[2]!), 'Repr-Digest': sha256Field(bodies[2]!) },
      // Another algorithm only, or next to sha-256; parameters on the member are allowed.
      { 'Content-Digest': 'sha-512=:AAAA:, unixsum=:AA==:' },
      { 'Content-Digest': `sha-512=:AAAA:, sha-256=${sha256Field(bodies[4]!).slice(8)};p=1` },
    ];
    for (const [index, body] of bodies.entries()) {
      const response = await put(body, headers[index]!);
      expect(response.status, JSON.stringify(headers[index])).toBe(200);
      expect(((await response.json()) as FileAnswer).sha256).toBe(sha256Hex(body));
    }
  });

  test('content update: a digest that does not match is 400 digest_mismatch and nothing is stored or changed', async (h) => {
    const s = await setup(h);
    for (const [name, bytes] of SIZES) {
      const file = s.files[name];
      const before = await fileState(h, s.apiKey, s.projectId, `${name}.md`);
      const project = await projectJson(h, s.apiKey, s.projectId);
      const replacement = name === 'small' ? Buffer.from('# replacement') : markdown(150_000);
      for (const [header, loc] of [
        ['Content-Digest', 'content-digest'],
        ['Repr-Digest', 'repr-digest'],
      ] as const) {
        const response = await h.fetch(`${file.path}/content`, {
          method: 'PUT',
          key: s.apiKey,
          headers: { 'Content-Type': 'text/markdown', [header]: sha256Field('something else') },
          body: replacement,
        });
        expect(response.status, `${name} ${header}`).toBe(400);
        expect(await response.json()).toEqual({
          detail: [
            {
              loc: ['header', loc],
              msg: 'Value error, the digest does not match the content received',
              type: 'digest_mismatch',
            },
          ],
        });
      }
      // One right and one wrong: still refused.
      const mixed = await h.fetch(`${file.path}/content`, {
        method: 'PUT',
        key: s.apiKey,
        headers: {
          'Content-Type': 'text/markdown',
          'Content-Digest': sha256Field(replacement),
          'Repr-Digest': sha256Field(bytes),
        },
        body: replacement,
      });
      expect(mixed.status).toBe(400);
      await mixed.arrayBuffer();
      const after = await fileState(h, s.apiKey, s.projectId, `${name}.md`);
      expect(after.body!.equals(bytes)).toBe(true);
      expect(after.item).toEqual(before.item);
      expect(await projectJson(h, s.apiKey, s.projectId)).toEqual(project);
    }
    await expectNothingLeftBehind(h, spied, s.projectId);
    // The refused versions were really sent to storage (and removed again): the check above had work to do.
    expect(spied.inline.size + spied.blobs.size).toBeGreaterThan(2);
  });

  test('content update: a malformed digest field is 400 value_error before the body is read', async (h) => {
    const s = await setup(h);
    for (const [header, value] of [
      ['Content-Digest', 'sha-256=abc'],
      ['Content-Digest', 'sha-256=:not base64!:'],
      ['Content-Digest', 'sha-256=:AAAA:'],
      ['Content-Digest', 'sha-256'],
      ['Content-Digest', 'SHA-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:'],
      ['Repr-Digest', 'sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:,'],
      ['Repr-Digest', '=:x:'],
      ['Repr-Digest', 'sha-256="47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="'],
    ] as const) {
      const response = await h.fetch(`${s.files.small.path}/content`, {
        method: 'PUT',
        key: s.apiKey,
        headers: { 'Content-Type': 'text/markdown', [header]: value },
        body: '# never stored',
      });
      const label = `${header}: ${value}`;
      expect(response.status, label).toBe(400);
      const body = (await response.json()) as { detail: Array<{ loc: string[]; type: string }> };
      expect(
        body.detail.map((issue) => [issue.loc, issue.type]),
        label,
      ).toEqual([[['header', header.toLowerCase()], 'value_error']]);
    }
    expect((await fileState(h, s.apiKey, s.projectId, 'small.md')).body!.equals(SMALL)).toBe(true);
  });

  test('a malformed digest field is judged with the media type: after project 403/404 and file 404, before the preconditions', async (h) => {
    const s = await setup(h);
    const other = await h.account();
    const bad = { 'Content-Type': 'text/markdown', 'Content-Digest': 'sha-256=nope', 'If-Match': '"stale"' };
    const put = (path: string, key: string, headers: Record<string, string> = bad) =>
      h.fetch(`${path}/content`, { method: 'PUT', key, headers, body: '# x' });
    const statuses = [
      (await put(s.files.small.path, other.apiKey)).status,
      (await put(`/api/projects/3f1c5b9e-8d2a-4c7b-9e1f-2a3b4c5d6e7f/files/small.md`, s.apiKey)).status,
      (await put(`/api/projects/${s.projectId}/files/missing.md`, s.apiKey)).status,
      (await put(s.files.small.path, s.apiKey, { ...bad, 'Content-Type': 'text/plain' })).status,
      (await put(s.files.small.path, s.apiKey)).status,
    ];
    expect(statuses).toEqual([403, 404, 404, 415, 400]);
  });

  test('upload: a matching sha256 field is accepted, before or after the file part', async (h) => {
    const s = await setup(h);
    const before = await h.upload(s.apiKey, s.projectId, [
      { name: 'sha256', data: sha256Hex('# before') },
      { name: 'file', filename: 'before.md', data: '# before' },
    ]);
    expect(before.status).toBe(201);
    expect(((await before.json()) as FileAnswer).sha256).toBe(sha256Hex('# before'));
    const after = await h.upload(s.apiKey, s.projectId, [
      { name: 'file', filename: 'after.md', data: LARGE },
      { name: 'sha256', data: sha256Hex(LARGE) },
    ]);
    expect(after.status).toBe(201);
    await after.arrayBuffer();
  });

  test('upload: a sha256 field that does not match is 400 digest_mismatch and nothing is stored', async (h) => {
    const s = await setup(h);
    const project = await projectJson(h, s.apiKey, s.projectId);
    for (const [name, bytes] of [...SIZES, ['late', LARGE] as const]) {
      const digest = { name: 'sha256', data: sha256Hex('other content') };
      const file = { name: 'file', filename: `new-${name}.md`, data: bytes };
      const response = await h.upload(
        s.apiKey,
        s.projectId,
        name === 'late' ? [file, digest] : [digest, file],
      );
      expect(response.status, name).toBe(400);
      expect(await response.json()).toEqual({
        detail: [
          {
            loc: ['body', 'sha256'],
            msg: 'Value error, the digest does not match the content received',
            type: 'digest_mismatch',
          },
        ],
      });
      expect(
        (await h.fetch(`/api/projects/${s.projectId}/files/new-${name}.md`, { key: s.apiKey })).status,
      ).toBe(404);
    }
    expect(await projectJson(h, s.apiKey, s.projectId)).toEqual(project);
    await expectNothingLeftBehind(h, spied, s.projectId);
  });

  test('upload: a malformed sha256 field is 400 value_error at ["body","sha256"]', async (h) => {
    const s = await setup(h);
    const good = sha256Hex('# x');
    for (const value of [good.toUpperCase(), good.slice(1), `${good}0`, ` ${good}`, '', 'sha-256=:x:']) {
      for (const late of [false, true]) {
        const parts = [
          { name: 'file', filename: 'm.md', data: '# x' },
          { name: 'sha256', data: value },
        ];
        const form = multipartBody(late ? parts : parts.reverse());
        const response = await h.fetch(`/api/projects/${s.projectId}/files`, {
          method: 'POST',
          key: s.apiKey,
          headers: { 'Content-Type': form.contentType },
          body: form.body,
        });
        const label = `${JSON.stringify(value)} ${late ? 'after' : 'before'} the file`;
        expect(response.status, label).toBe(400);
        const body = (await response.json()) as { detail: Array<{ loc: string[]; type: string }> };
        expect(
          body.detail.map((issue) => [issue.loc, issue.type]),
          label,
        ).toEqual([[['body', 'sha256'], 'value_error']]);
      }
    }
    expect((await h.fetch(`/api/projects/${s.projectId}/files/m.md`, { key: s.apiKey })).status).toBe(404);
  });
});
