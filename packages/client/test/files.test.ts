import { Readable } from 'node:stream';
import { beforeEach, describe, expect, it } from 'vitest';
import { createClient, MdStoreApiError, type MdStoreClient } from '../src/index.js';
import { toNodeReadable } from '../src/node/index.js';
import { useRealServer } from './support/server.js';

let client: MdStoreClient;
let projectId: string;

const scene = useRealServer();
beforeEach(async () => {
  const { account } = scene;
  client = createClient({ baseUrl: scene.server.url, apiKey: account.apiKey });
  projectId = account.defaultProjectId;
});

const sha256 = async (text: string) => {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Buffer.from(digest).toString('hex');
};

async function readAll(stream: AsyncIterable<Uint8Array>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

describe('files', () => {
  it('uploads with metadata and reads the File object, the list and the content back', async () => {
    const content = '# Hello\n\nr\u00e9sum\u00e9 \u{1F600}\n';
    const file = await client.files.upload(projectId, 'hello.md', content, { metadata: { tags: ['a'] } });
    expect(file).toMatchObject({
      filename: 'hello.md',
      project_id: projectId,
      size_bytes: Buffer.byteLength(content),
      metadata: { tags: ['a'] },
      revision: 1,
      sha256: await sha256(content),
    });
    expect(file.etag).toMatch(/^".+"$/);
    const list = await client.files.list(projectId);
    expect(list.files.map((f) => f.filename)).toEqual(['hello.md']);
    expect(list.total_size_bytes).toBe(file.size_bytes);
    const download = await client.files.download(projectId, 'hello.md');
    expect(download.status).toBe(200);
    expect(download.etag).toBe(file.etag);
    expect(download.sha256).toBe(file.sha256);
    expect(download.size).toBe(file.size_bytes);
    expect(download.createdDate).toBe(file.created_date);
    expect(await download.text()).toBe(content);
  });

  it('keeps names with spaces, quotes, percent signs and non-ASCII exactly, one path segment each', async () => {
    const names = [
      'meeting notes.md',
      'say "hi".md',
      'a%2Fb.md',
      'r\u00e9sum\u00e9.mdx',
      '\u65e5\u672c.md',
      "it's (1).md",
    ];
    for (const name of names) await client.files.upload(projectId, name, `# ${name}\n`);
    const listed = (await client.files.list(projectId)).files.map((f) => f.filename);
    expect(listed.sort()).toEqual([...names].sort());
    for (const name of names) expect(await client.files.readText(projectId, name)).toBe(`# ${name}\n`);
  });

  it('downloads as a web stream and as a Node stream', async () => {
    await client.files.upload(projectId, 'stream.md', 'x'.repeat(100_000));
    const web = await client.files.download(projectId, 'stream.md');
    expect(await readAll(web.body as unknown as AsyncIterable<Uint8Array>)).toBe('x'.repeat(100_000));
    const node = toNodeReadable(await client.files.download(projectId, 'stream.md'));
    expect(node).toBeInstanceOf(Readable);
    expect(await readAll(node)).toBe('x'.repeat(100_000));
  });

  it('streams uploads from a Node Readable, a web stream and a generator', async () => {
    const parts = ['# Streamed\n', 'line two\n', '\u00e9\n'];
    const whole = parts.join('');
    await client.files.upload(projectId, 'node.md', Readable.from(parts.map((p) => Buffer.from(p))));
    const web = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const part of parts) controller.enqueue(new TextEncoder().encode(part));
        controller.close();
      },
    });
    await client.files.upload(projectId, 'web.md', web, { metadata: { via: 'web' } });
    async function* generate() {
      for (const part of parts) yield new TextEncoder().encode(part);
    }
    const updated = await client.files.updateContent(projectId, 'node.md', generate());
    expect(updated.revision).toBe(2);
    for (const name of ['node.md', 'web.md'])
      expect(await client.files.readText(projectId, name)).toBe(whole);
    expect((await client.files.list(projectId)).files.find((f) => f.filename === 'web.md')?.metadata).toEqual(
      {
        via: 'web',
      },
    );
  });

  it('a byte range is a 206 with its part; a suffix range too', async () => {
    await client.files.upload(projectId, 'range.md', '0123456789');
    const part = await client.files.download(projectId, 'range.md', { range: { start: 2, end: 5 } });
    expect(part.status).toBe(206);
    expect(part.range).toEqual({ start: 2, end: 5, size: 10 });
    expect(part.size).toBe(10);
    expect(await part.text()).toBe('2345');
    const suffix = await client.files.download(projectId, 'range.md', { range: { suffix: 3 } });
    expect(await suffix.text()).toBe('789');
    const error = await client.files
      .download(projectId, 'range.md', { range: { start: 50 } })
      .catch((e) => e);
    expect(error).toBeInstanceOf(MdStoreApiError);
    expect(error.status).toBe(416);
  });

  it('a conditional download of a current copy is notModified, without content', async () => {
    const file = await client.files.upload(projectId, 'cond.md', '# v1\n');
    const same = await client.files.download(projectId, 'cond.md', { ifNoneMatch: file.etag });
    expect(same.notModified).toBe(true);
    expect(same.status).toBe(304);
    expect(same.body).toBeNull();
    await expect(same.text()).rejects.toThrow(TypeError);
    const changed = await client.files.updateContent(projectId, 'cond.md', '# v2\n');
    const fresh = await client.files.download(projectId, 'cond.md', { ifNoneMatch: file.etag });
    expect(fresh.notModified).toBe(false);
    expect(fresh.etag).toBe(changed.etag);
    expect(await fresh.text()).toBe('# v2\n');
  });

  it('If-Match: a write with the current ETag succeeds, with a stale one it is a 412 carrying the current ETag', async () => {
    const file = await client.files.upload(projectId, 'etag.md', '# one\n');
    const first = await client.files.updateContent(projectId, 'etag.md', '# two\n', { ifMatch: file.etag });
    expect(first.revision).toBe(2);
    const stale = await client.files
      .updateContent(projectId, 'etag.md', '# lost\n', { ifMatch: file.etag })
      .catch((e) => e);
    expect(stale).toBeInstanceOf(MdStoreApiError);
    expect(stale.status).toBe(412);
    expect(stale.detail).toBe('Precondition failed');
    expect(stale.etag).toBe(first.etag);
    expect(await client.files.readText(projectId, 'etag.md')).toBe('# two\n');
    const meta = await client.files.updateMetadata(
      projectId,
      'etag.md',
      { ok: true },
      { ifMatch: first.etag },
    );
    expect(meta).toMatchObject({ metadata: { ok: true }, revision: 3 });
    await expect(client.files.delete(projectId, 'etag.md', { ifMatch: first.etag })).rejects.toMatchObject({
      status: 412,
    });
    await client.files.delete(projectId, 'etag.md', { ifMatch: [first.etag, meta.etag] });
    expect((await client.files.list(projectId)).files).toEqual([]);
  });

  it('head reads the download headers without the content', async () => {
    const file = await client.files.upload(projectId, 'head.md', '# head\n');
    const head = await client.files.head(projectId, 'head.md');
    expect(head).toMatchObject({
      etag: file.etag,
      size: 7,
      sha256: file.sha256,
      updatedDate: file.updated_date,
    });
    expect(head.lastModified?.getTime()).toBe(Math.floor(Date.parse(file.updated_date) / 1000) * 1000);
  });

  it('digests: sha256 true is computed and checked; a wrong one is a 400 digest_mismatch and nothing changes', async () => {
    const file = await client.files.upload(projectId, 'digest.md', '# d\n', { sha256: true });
    expect(file.sha256).toBe(await sha256('# d\n'));
    const wrong = await sha256('something else');
    const upload = await client.files
      .upload(projectId, 'other.md', '# o\n', { sha256: wrong })
      .catch((e) => e);
    expect(upload).toMatchObject({ status: 400 });
    expect(upload.issues[0]).toMatchObject({ loc: ['body', 'sha256'], type: 'digest_mismatch' });
    const update = await client.files
      .updateContent(projectId, 'digest.md', '# e\n', { sha256: wrong })
      .catch((e) => e);
    expect(update.issues[0]).toMatchObject({ loc: ['header', 'content-digest'], type: 'digest_mismatch' });
    expect(await client.files.readText(projectId, 'digest.md')).toBe('# d\n');
    const ok = await client.files.updateContent(projectId, 'digest.md', '# e\n', { sha256: true });
    expect(ok.sha256).toBe(await sha256('# e\n'));
    await expect(
      client.files.upload(projectId, 'x.md', Readable.from(['a']), { sha256: true }),
    ).rejects.toThrow(TypeError);
  });

  it('errors are typed: status, detail, issues and the request id the server logged', async () => {
    const missing = await client.files.download(projectId, 'nope.md').catch((e) => e);
    expect(missing).toBeInstanceOf(MdStoreApiError);
    expect(missing).toMatchObject({ status: 404, detail: 'File not found', issues: [] });
    expect(missing.requestId).toMatch(/^[0-9a-f-]{36}$/);
    await client.files.upload(projectId, 'dup.md', '# 1\n');
    await expect(client.files.upload(projectId, 'dup.md', '# 2\n')).rejects.toMatchObject({ status: 409 });
    await expect(client.files.upload(projectId, 'bad.txt', 'x')).rejects.toMatchObject({ status: 415 });
    const invalid = await client.files.list('not-a-uuid').catch((e) => e);
    expect(invalid.status).toBe(422);
    expect(invalid.issues).toEqual([
      expect.objectContaining({ loc: ['path', 'project_id'], type: 'uuid_parsing' }),
    ]);
    const anonymous = createClient({ baseUrl: scene.server.url });
    await expect(anonymous.files.list(projectId)).rejects.toMatchObject({
      status: 401,
      detail: 'Invalid authentication credentials',
    });
  });

  it('iterate yields every file (in one page on a server that does not page)', async () => {
    for (const name of ['b.md', 'a.md', 'c.md']) await client.files.upload(projectId, name, `# ${name}\n`);
    const names: string[] = [];
    for await (const file of client.files.iterate(projectId, { pageSize: 2 })) names.push(file.filename);
    expect(names).toEqual(['a.md', 'b.md', 'c.md']);
  });

  it('pages with sort, order, prefix and delimiter; iterate follows next_cursor in the same order', async () => {
    for (const [name, body] of [
      ['docs/b.md', 'bb'],
      ['docs/a.md', 'aaaa'],
      ['docs/deep/c.md', 'c'],
      ['top.md', 'ttt'],
    ] as const) {
      await client.files.upload(projectId, name, body);
    }
    const first = await client.files.list(projectId, {
      limit: 1,
      sort: 'size_bytes',
      order: 'desc',
      prefix: 'docs/',
    });
    expect(first.files.map((f) => f.filename)).toEqual(['docs/a.md']);
    expect(first).toMatchObject({ total_count: 3, total_size_bytes: 7 });
    expect(typeof first.next_cursor).toBe('string');
    const second = await client.files.list(projectId, {
      limit: 5,
      cursor: first.next_cursor,
      sort: 'size_bytes',
      order: 'desc',
      prefix: 'docs/',
    });
    expect(second.files.map((f) => f.filename)).toEqual(['docs/b.md', 'docs/deep/c.md']);
    expect(second.next_cursor).toBeNull();
    const level = await client.files.list(projectId, { prefix: 'docs/', delimiter: '/' });
    expect(level.folders).toEqual(['docs/deep/']);
    expect(level.files.map((f) => f.filename)).toEqual(['docs/a.md', 'docs/b.md']);
    const names: string[] = [];
    for await (const file of client.files.iterate(projectId, { pageSize: 1, sort: 'size_bytes' }))
      names.push(file.filename);
    expect(names).toEqual(['docs/deep/c.md', 'docs/b.md', 'top.md', 'docs/a.md']);
    const bad = await client.files
      .list(projectId, { limit: 1, cursor: 'forged' })
      .catch((error: unknown) => error);
    expect(bad).toBeInstanceOf(MdStoreApiError);
    expect((bad as MdStoreApiError).status).toBe(422);
  });

  it('an aborted signal stops a call', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(client.files.list(projectId, { signal: controller.signal })).rejects.toThrow('stop');
  });
});
