import { describe, expect } from 'vitest';
import { BOUNDARY, multipartBody } from '../support/http-harness.js';
import {
  call,
  exchange,
  expectHealthy,
  type HostileContext,
  head,
  hostileTest,
  listedFiles,
  settled,
  tempFiles,
} from './support.js';

const test = hostileTest();
/** Large enough for metadata bodies near the 1 MiB JSON limit. */
const bigFileTest = hostileTest({ settings: { maxFileBytes: 64 * 1024 } });

const filesPath = (ctx: HostileContext) => `/api/projects/${ctx.account.defaultProjectId}/files`;

async function upload(ctx: HostileContext, parts: Parameters<typeof multipartBody>[0]) {
  const form = multipartBody(parts);
  const request = head(ctx, 'POST', filesPath(ctx), {
    'Content-Type': form.contentType,
    'Content-Length': form.body.byteLength,
  });
  const { response } = await exchange(ctx, [request, form.body]);
  return response;
}

const putJson = (ctx: HostileContext, path: string, body: string) =>
  call(ctx, path, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body });

const INVALID_UTF8: Record<string, Buffer> = {
  'overlong slash': Buffer.from([0x23, 0x20, 0xc0, 0xaf]),
  'overlong NUL': Buffer.from([0x23, 0x20, 0xe0, 0x80, 0x80]),
  'UTF-16 surrogate': Buffer.from([0x23, 0x20, 0xed, 0xa0, 0x80]),
  'surrogate pair in CESU-8': Buffer.from([0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80]),
  'truncated sequence at the end': Buffer.from([0x23, 0x20, 0xe2, 0x82]),
  'truncated sequence in the middle': Buffer.from([0x61, 0xe2, 0x82, 0x61]),
  'lone continuation byte': Buffer.from([0x80, 0x61]),
  'beyond U+10FFFF': Buffer.from([0xf4, 0x90, 0x80, 0x80]),
  'byte FF': Buffer.from([0x61, 0xff]),
};

/** `{"a":{"a":…}}` nested `levels` deep, built without recursion. */
const deepObject = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
const deepArray = (levels: number) => `{"a":${'['.repeat(levels)}${']'.repeat(levels)}}`;

describe('hostile content and metadata', () => {
  test('invalid UTF-8 content is 400 on upload and on content update, and nothing changes', async (ctx) => {
    for (const [name, bytes] of Object.entries(INVALID_UTF8)) {
      const response = await upload(ctx, [{ name: 'file', filename: 'bad.md', data: bytes }]);
      expect(response?.status, name).toBe(400);
    }
    await settled(ctx);
    expect((await listedFiles(ctx)).total_count).toBe(0);
    await ctx.h.uploadFile(ctx.account.apiKey, ctx.account.defaultProjectId, 'good.md', '# good');
    for (const [name, bytes] of Object.entries(INVALID_UTF8)) {
      const response = await call(ctx, `${filesPath(ctx)}/good.md/content`, {
        method: 'PUT',
        headers: { 'Content-Type': 'text/markdown' },
        body: bytes,
      });
      expect(response.status, name).toBe(400);
    }
    await settled(ctx);
    expect((await call(ctx, `${filesPath(ctx)}/good.md`)).text).toBe('# good');
    expect(await tempFiles(ctx)).toEqual([]);
    await expectHealthy(ctx);
  });

  bigFileTest('metadata JSON bombs are refused (422 on update, 400 on upload)', async (ctx) => {
    await ctx.h.uploadFile(ctx.account.apiKey, ctx.account.defaultProjectId, 'm.md', '# m', { keep: true });
    const metadataPath = `${filesPath(ctx)}/m.md`;
    const bombs: Record<string, string> = {
      'objects nested 100k deep': deepObject(100_000),
      'arrays nested 100k deep': deepArray(100_000),
      'nested 33 deep': deepObject(33),
      'an array of 400k numbers': `{"a":[${'0,'.repeat(400_000)}0]}`,
      'a 65 KiB string': `{"a":"${'x'.repeat(65 * 1024)}"}`,
      'a 64 KiB + 1 serialisation': `{"a":"${'x'.repeat(64 * 1024 - 7)}"}`,
      'many keys': `{${Array.from({ length: 20_000 }, (_, i) => `"k${i}":${i}`).join(',')}}`,
    };
    for (const [name, metadata] of Object.entries(bombs)) {
      expect(metadata.length, name).toBeLessThan(1024 * 1024 - 20);
      const updated = await putJson(ctx, metadataPath, `{"metadata":${metadata}}`);
      expect(updated.status, name).toBe(422);
      const uploaded = await upload(ctx, [
        { name: 'metadata', data: metadata },
        { name: 'file', filename: 'bomb.md', data: '# bomb' },
      ]);
      expect(uploaded?.status, name).toBe(400);
    }
    // Exactly at the limits is accepted.
    const atDepth = await putJson(ctx, metadataPath, `{"metadata":${deepObject(32)}}`);
    expect(atDepth.status).toBe(200);
    const atSize = `{"a":"${'x'.repeat(64 * 1024 - 8)}"}`;
    expect((await putJson(ctx, metadataPath, `{"metadata":${atSize}}`)).status).toBe(200);
    // Above the 1 MiB JSON body limit: 413.
    const huge = await putJson(ctx, metadataPath, `{"metadata":{"a":[${'0,'.repeat(600_000)}0]}}`);
    expect(huge.status).toBe(413);
    await settled(ctx);
    expect((await listedFiles(ctx)).files.map((file) => file.filename)).toEqual(['m.md']);
    await expectHealthy(ctx);
  });

  test('__proto__ and constructor keys are stored as plain data, with no prototype pollution', async (ctx) => {
    const hostile =
      '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":2}},' +
      '"nested":{"__proto__":{"polluted":3}},"toString":"x","hasOwnProperty":4}';
    const response = await upload(ctx, [
      { name: 'metadata', data: hostile },
      { name: 'file', filename: 'proto.md', data: '# proto' },
    ]);
    expect(response?.status).toBe(201);
    // The server runs in this process: its Object.prototype is ours.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    const listed = await call(ctx, filesPath(ctx));
    expect(listed.text).toContain('"__proto__":{"polluted":1}');
    const metadata = (JSON.parse(listed.text) as { files: Array<{ metadata: object }> }).files[0]!.metadata;
    expect(Object.getPrototypeOf(metadata)).toBe(Object.prototype);
    expect(Object.keys(metadata)).toEqual([
      '__proto__',
      'constructor',
      'nested',
      'toString',
      'hasOwnProperty',
    ]);
    // The same through the metadata update.
    const updated = await putJson(ctx, `${filesPath(ctx)}/proto.md`, `{"metadata":${hostile}}`);
    expect(updated.status).toBe(200);
    expect(updated.text).toContain('"__proto__":{"polluted":1}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // A project body with __proto__ sets nothing it should not.
    const project = await call(ctx, '/api/projects', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"name":"p","__proto__":{"is_default":true,"polluted":1}}',
    });
    expect(project.status).toBe(201);
    const created = JSON.parse(project.text) as Record<string, unknown>;
    expect(created.is_default).toBe(false);
    // A fresh object in a later response has exactly the documented fields.
    const fresh = JSON.parse((await call(ctx, `/api/projects/${created.id}`)).text) as object;
    expect(Object.keys(fresh).sort()).toEqual(
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
        'etag',
        'settings',
        'history_size_bytes',
        'trash_size_bytes',
        // extensions §12
        'attachment_count',
        'attachment_bytes',
      ].sort(),
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await expectHealthy(ctx);
  });

  test('a metadata form field larger than the field limit is 400, not truncated', async (ctx) => {
    const form = multipartBody([
      { name: 'metadata', data: `{"a":"${'x'.repeat(1024 * 1024 + 10)}"}` },
      { name: 'file', filename: 'f.md', data: '# f' },
    ]);
    const request = head(ctx, 'POST', filesPath(ctx), {
      'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
      'Content-Length': form.body.byteLength,
    });
    expect((await exchange(ctx, [request, form.body])).response?.status).toBe(400);
    await settled(ctx);
    expect((await listedFiles(ctx)).total_count).toBe(0);
    await expectHealthy(ctx);
  });
});
