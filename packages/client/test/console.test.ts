import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createClient, describeDetail, MdStoreApiError, type MdStoreClient } from '../src/index.js';
import { useRealServer } from './support/server.js';

/** What the web console needs of the SDK beyond the plain calls (issue 35). */

let client: MdStoreClient;
let projectId: string;

const scene = useRealServer();
beforeEach(async () => {
  const { account } = scene;
  client = createClient({ baseUrl: scene.server.url, apiKey: account.apiKey });
  projectId = account.defaultProjectId;
});

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable('the call succeeded'),
    (error: unknown) => {
      expect(error).toBeInstanceOf(MdStoreApiError);
      return error as MdStoreApiError;
    },
  );

describe('downloads of part of a file and of its rendering', () => {
  it('`lines` reads those lines with the file ETag', async () => {
    const file = await client.files.upload(projectId, 'lines.md', '---\ntitle: x\n---\n# One\ntwo\n');
    const part = await client.files.download(projectId, 'lines.md', { lines: '1-3' });
    expect(part.status).toBe(200);
    expect(part.etag).toBe(file.etag);
    expect(part.headers.get('x-line-range')).toBe('1-3/5');
    expect(await part.text()).toBe('---\ntitle: x\n---\n');
  });

  it("`format: 'html'` reads the rendered fragment with the file ETag", async () => {
    const file = await client.files.upload(projectId, 'page.md', '# Title\n\nBody.\n');
    const rendered = await client.files.download(projectId, 'page.md', { format: 'html' });
    expect(rendered.etag).toBe(file.etag);
    expect(rendered.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await rendered.text();
    expect(html).toContain('<h1');
    expect(html).toBe(await client.files.html(projectId, 'page.md'));
  });
});

describe('error answers keep their body', () => {
  it('a refused publish carries its conflicts', async () => {
    const file = await client.files.upload(projectId, 'c.md', 'one\ntwo\nthree\n');
    const draft = await client.drafts.create(projectId, {
      title: 'conflicting',
      operations: [{ op: 'put', filename: 'c.md', content: 'one\nDRAFT\nthree\n', if_match: file.etag }],
    });
    await client.files.updateContent(projectId, 'c.md', 'one\nLIVE\nthree\n', { ifMatch: file.etag });
    const error = await refusal(client.drafts.publish(projectId, draft.id));
    expect(error.status).toBe(409);
    expect(error.conflicts?.map((c) => c.filename)).toEqual(['c.md']);
    expect(error.conflicts?.[0]?.hunks[0]).toMatchObject({ draft: 'DRAFT', current: 'LIVE' });
    expect((error.body as { detail?: unknown }).detail).toBe(error.detail);
  });

  it('other refusals have no conflicts, and their detail reads as one line', async () => {
    const missing = await refusal(client.files.readText(projectId, 'missing.md'));
    expect(missing.status).toBe(404);
    expect(missing.conflicts).toBeUndefined();
    const invalid = await refusal(client.projects.create({ name: '' }));
    expect(invalid.issues.length).toBeGreaterThan(0);
    expect(describeDetail(invalid.detail)).toContain(': ');
  });

  it('a body that is not JSON has none', async () => {
    const proxy: typeof fetch = async () => new Response('<html>bad gateway</html>', { status: 502 });
    const behind = createClient({ baseUrl: 'http://127.0.0.1:1', fetch: proxy, retry: false });
    const error = await refusal(behind.projects.list());
    expect(error.body).toBeUndefined();
    expect(error.detail).toBe('<html>bad gateway</html>');
  });
});

describe('in a browser page that is not a secure context', () => {
  it('downloads without Web Crypto digests (the check is skipped, the content read)', async () => {
    await client.files.upload(projectId, 'plain.md', '# Plain http\n');
    const { crypto } = globalThis;
    // A page served over http from a LAN address has `crypto.getRandomValues` but no `crypto.subtle`.
    vi.stubGlobal('crypto', { getRandomValues: crypto.getRandomValues.bind(crypto) });
    try {
      const download = await client.files.download(projectId, 'plain.md');
      expect(download.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(await download.text()).toBe('# Plain http\n');
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
