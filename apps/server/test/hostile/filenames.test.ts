import { describe, expect } from 'vitest';
import { BOUNDARY } from '../support/http-harness.js';
import {
  call,
  exchange,
  expectHealthy,
  filesUnder,
  type HostileContext,
  head,
  hostileTest,
  listedFiles,
  settled,
  tempFiles,
} from './support.js';

const test = hostileTest();

/**
 * Uploads one file part whose Content-Disposition parameters are `params` exactly as given (bytes that
 * a browser or fetch would never send included).
 */
async function uploadWithParams(ctx: HostileContext, params: string | Buffer, content = '# hostile name') {
  const body = Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; `, 'latin1'),
    Buffer.from(params),
    Buffer.from(`\r\nContent-Type: text/markdown\r\n\r\n${content}\r\n--${BOUNDARY}--\r\n`),
  ]);
  const request = head(ctx, 'POST', `/api/projects/${ctx.account.defaultProjectId}/files`, {
    'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
    'Content-Length': body.byteLength,
  });
  const { response } = await exchange(ctx, [request, body]);
  return response;
}

const star = (name: string) =>
  `filename*=UTF-8''${encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16)}`)}`;

const download = (ctx: HostileContext, filename: string) =>
  call(ctx, `/api/projects/${ctx.account.defaultProjectId}/files/${encodeURIComponent(filename)}`);

async function expectNoFiles(ctx: HostileContext) {
  await settled(ctx);
  expect(await listedFiles(ctx)).toMatchObject({ files: [], total_count: 0 });
  expect(await tempFiles(ctx)).toEqual([]);
}

describe('hostile filenames', () => {
  test('path traversal with ../ and ..\\ is 400 and nothing is written outside the store', async (ctx) => {
    const names = [
      'filename="../escape.md"',
      'filename="../../../../../../tmp/escape.md"',
      'filename="..\\\\escape.md"',
      'filename="..\\escape.md"',
      'filename="/etc/escape.md"',
      'filename="C:\\\\escape.md"',
      star('../escape.md'),
      star('..\\escape.md'),
      star('sub/../escape.md'),
      star('sub/./escape.md'),
      star('sub//escape.md'),
    ];
    for (const params of names) expect((await uploadWithParams(ctx, params))?.status, params).toBe(400);
    await expectNoFiles(ctx);
    for (const path of await filesUnder(ctx.dir)) expect(path).not.toContain('escape');
    await expectHealthy(ctx);
  });

  test('a folder in a filename is a name, never a path of the store: sub/escape.md is stored by key', async (ctx) => {
    const created = await uploadWithParams(ctx, star('sub/escape.md'), '# in a folder');
    expect(created?.status).toBe(201);
    expect(JSON.parse(created!.body)).toMatchObject({ filename: 'sub/escape.md' });
    expect(await download(ctx, 'sub/escape.md')).toMatchObject({ status: 200, text: '# in a folder' });
    // Blob keys are ids: no path under the data folder carries the filename or its folder.
    for (const path of await filesUnder(ctx.dir)) expect(path).not.toContain('escape');
    await expectHealthy(ctx);
  });

  test('percent-encoding in a filename stays literal: %2e%2e%2f is a name, not a path', async (ctx) => {
    const literal = '%2e%2e%2fescape.md';
    const created = await uploadWithParams(ctx, `filename="${literal}"`, '# literal');
    expect(created?.status).toBe(201);
    expect(JSON.parse(created!.body)).toMatchObject({ filename: literal });
    expect((await listedFiles(ctx)).files.map((file) => file.filename)).toEqual([literal]);
    const fetched = await download(ctx, literal);
    expect(fetched).toMatchObject({ status: 200, text: '# literal' });
    // The decoded form is another name (with a `/`), which does not exist.
    const decoded = await call(ctx, `/api/projects/${ctx.account.defaultProjectId}/files/${literal}`);
    expect(decoded.status).toBe(404);
    for (const path of await filesUnder(ctx.dir)) expect(path).not.toContain('escape');
    await expectHealthy(ctx);
  });

  test('NUL, CR and LF in a filename are 400, however they are sent', async (ctx) => {
    const attempts: Array<string | Buffer> = [
      star('nul\u0000name.md'),
      star('cr\rname.md'),
      star('lf\nname.md'),
      star('crlf\r\nSet-Cookie: x=1.md'),
      star('tab\tname.md'),
      star('del\u007fname.md'),
      Buffer.from('filename="raw\u0000nul.md"', 'latin1'),
      // A raw CR/LF inside the quoted name breaks the part header itself.
      Buffer.from('filename="raw\r\nX-Evil: 1.md"', 'latin1'),
    ];
    for (const params of attempts) {
      const response = await uploadWithParams(ctx, params);
      expect(response?.status, JSON.stringify(String(params))).toBe(400);
      expect(response?.text).not.toMatch(/\r\nX-Evil|\r\nSet-Cookie/i);
    }
    await expectNoFiles(ctx);
    await expectHealthy(ctx);
  });

  test('quotes and U+202E are stored exactly, and the download header stays safe', async (ctx) => {
    const names = ['say "hi".md', "it's.md", 'back\u0060tick;.md', '\u202Edm.exe.md', 'a%22b.md'];
    for (const name of names) {
      const response = await uploadWithParams(ctx, star(name), `# ${names.indexOf(name)}`);
      expect(response?.status, name).toBe(201);
      expect(JSON.parse(response!.body).filename).toBe(name);
    }
    const escapedQuote = await uploadWithParams(ctx, 'filename="esc\\"aped.md"');
    expect(escapedQuote?.status).toBe(201);
    const listed = (await listedFiles(ctx)).files.map((file) => file.filename);
    expect(listed).toEqual(expect.arrayContaining([...names, JSON.parse(escapedQuote!.body).filename]));
    for (const name of names) {
      const fetched = await download(ctx, name);
      expect(fetched.status).toBe(200);
      expect(fetched.text).toBe(`# ${names.indexOf(name)}`);
      const disposition = fetched.headers.get('content-disposition') ?? '';
      expect(disposition).toMatch(
        /^attachment; filename="[\x20-\x21\x23-\x5b\x5d-\x7e]*"; filename\*=UTF-8''/,
      );
      expect(disposition).not.toContain('\u202E');
      expect(decodeURIComponent(disposition.split("filename*=UTF-8''")[1]!)).toBe(name);
    }
    await expectHealthy(ctx);
  });

  test('NFC and NFD spellings of one name are two distinct files', async (ctx) => {
    const nfc = 'caf\u00e9.md';
    const nfd = 'cafe\u0301.md';
    expect(nfc.normalize('NFD')).toBe(nfd);
    expect((await uploadWithParams(ctx, star(nfc), '# composed'))?.status).toBe(201);
    expect((await uploadWithParams(ctx, star(nfd), '# decomposed'))?.status).toBe(201);
    const listed = await listedFiles(ctx);
    expect(listed.total_count).toBe(2);
    expect(listed.files.map((file) => file.filename).sort()).toEqual([nfc, nfd].sort());
    expect((await download(ctx, nfc)).text).toBe('# composed');
    expect((await download(ctx, nfd)).text).toBe('# decomposed');
    // Raw UTF-8 bytes in `filename="…"` reach the same two names.
    expect((await uploadWithParams(ctx, Buffer.from(`filename="${nfc}"`, 'utf8')))?.status).toBe(409);
    await expectHealthy(ctx);
  });
});
