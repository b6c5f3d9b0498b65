import { readFile } from 'node:fs/promises';
import { beforeEach, describe, expect, it } from 'vitest';
import { createClient, MdStoreApiError, type MdStoreClient } from '../src/index.js';
import { useRealServer } from './support/server.js';

let client: MdStoreClient;
let projectId: string;
let apiKey: string;

const scene = useRealServer();
beforeEach(async () => {
  const { account } = scene;
  apiKey = account.apiKey;
  client = createClient({ baseUrl: scene.server.url, apiKey });
  projectId = account.defaultProjectId;
});

const streamOf = (text: string) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text));
      controller.close();
    },
  });

describe('files.put', () => {
  it('creates a missing file, then replaces content and metadata of the existing one', async () => {
    const created = await client.files.put(projectId, 'a.md', '# one\n', { metadata: { n: 1 } });
    expect(created).toMatchObject({ filename: 'a.md', revision: 1, metadata: { n: 1 } });
    const replaced = await client.files.put(projectId, 'a.md', '# two\n', { metadata: { n: 2 } });
    expect(replaced.metadata).toEqual({ n: 2 });
    expect(await client.files.readText(projectId, 'a.md')).toBe('# two\n');
    const kept = await client.files.put(projectId, 'a.md', '# three\n');
    expect(kept.metadata).toEqual({ n: 2 });
    expect(kept.revision).toBeGreaterThan(replaced.revision);
    expect(await client.files.readText(projectId, 'a.md')).toBe('# three\n');
  });

  it('with ifMatch only replaces: a stale ETag is a 412, a missing file a 404, and nothing changes', async () => {
    const first = await client.files.put(projectId, 'b.md', 'v1');
    const second = await client.files.put(projectId, 'b.md', 'v2', { ifMatch: first.etag });
    expect(await client.files.readText(projectId, 'b.md')).toBe('v2');
    const stale = await client.files.put(projectId, 'b.md', 'v3', { ifMatch: first.etag }).catch((e) => e);
    expect(stale).toBeInstanceOf(MdStoreApiError);
    expect((stale as MdStoreApiError).status).toBe(412);
    expect(await client.files.readText(projectId, 'b.md')).toBe('v2');
    const missing = await client.files
      .put(projectId, 'nope.md', 'x', { ifMatch: second.etag })
      .catch((e) => e);
    expect((missing as MdStoreApiError).status).toBe(404);
    await expect(client.files.head(projectId, 'nope.md')).rejects.toMatchObject({ status: 404 });
  });

  it('takes a stream for a new and for an existing file', async () => {
    await client.files.put(projectId, 's.md', streamOf('streamed 1'));
    expect(await client.files.readText(projectId, 's.md')).toBe('streamed 1');
    await client.files.put(projectId, 's.md', streamOf('streamed 2'));
    expect(await client.files.readText(projectId, 's.md')).toBe('streamed 2');
  });
});

describe('cursors', () => {
  it("a null cursor (a last page's next_cursor) is accepted and means the first page", async () => {
    await client.files.upload(projectId, 'x.md', 'x');
    await client.files.upload(projectId, 'y.md', 'y');
    const page = await client.files.list(projectId, { limit: 1, cursor: null });
    expect(page.files.map((f) => f.filename)).toEqual(['x.md']);
    const next = await client.files.list(projectId, { limit: 1, cursor: page.next_cursor });
    expect(next.files.map((f) => f.filename)).toEqual(['y.md']);
    const projects = await client.projects.list({ limit: 1, cursor: null });
    expect(projects.projects).toHaveLength(1);
    const revisions = await client.history.listRevisions(projectId, 'x.md', { limit: 1, cursor: null });
    expect(revisions.revisions).toHaveLength(1);
    const trash = await client.trash.list(projectId, { limit: 1, cursor: null });
    expect(trash.trash).toEqual([]);
  });
});

describe('the README snippet', () => {
  it('runs twice against a real server without an error', async () => {
    const readme = await readFile(new URL('../../../README.md', import.meta.url), 'utf8');
    const block = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)]
      .map((m) => m[1] as string)
      .find((code) => code.includes("from '@mdstore/client'"));
    expect(block).toBeDefined();
    const body = (block as string).replace(/^import .*$/m, '').replace("'http://127.0.0.1:8080'", 'baseUrl');
    expect(body).not.toContain("from '@mdstore/client'");
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
      ...args: string[]
    ) => (...values: unknown[]) => Promise<void>;
    const run = new AsyncFunction('createClient', 'baseUrl', 'process', body);
    const env = { env: { MDSTORE_API_KEY: apiKey } };
    await run(createClient, scene.server.url, env);
    await run(createClient, scene.server.url, env);
    expect(await client.files.readText(projectId, 'hello.md')).toBe('# Hello again\n');
  });
});

describe('projects.export', () => {
  it('streams the archive with its media type and the name the server suggests', async () => {
    await client.files.put(projectId, 'e.md', '# e\n');
    const zip = await client.projects.export(projectId);
    expect(zip.contentType).toBe('application/zip');
    expect(zip.filename).toBe('Default.zip');
    const bytes = new Uint8Array(await zip.arrayBuffer());
    expect([...bytes.subarray(0, 4)]).toEqual([0x50, 0x4b, 0x03, 0x04]);
    const tar = await client.projects.export(projectId, { format: 'tar.gz', prefix: 'e' });
    expect(tar.contentType).toBe('application/gzip');
    expect(tar.filename).toBe('Default.tar.gz');
    const reader = tar.body.getReader();
    const first = await reader.read();
    expect([...(first.value ?? new Uint8Array()).subarray(0, 2)]).toEqual([0x1f, 0x8b]);
    await reader.cancel();
  });

  it('reads a Content-Disposition filename, the UTF-8 one first', async () => {
    const { dispositionFilename } = await import('../src/index.js');
    expect(dispositionFilename(`attachment; filename="Caf_.zip"; filename*=UTF-8''Caf%C3%A9.zip`)).toBe(
      'Caf\u00e9.zip',
    );
    expect(dispositionFilename('attachment; filename="plain.zip"')).toBe('plain.zip');
    expect(dispositionFilename(`attachment; filename="x.zip"; filename*=UTF-8''%FF.zip`)).toBe('x.zip');
    expect(dispositionFilename(null)).toBeUndefined();
  });
});
