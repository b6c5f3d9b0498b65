import { describe, expect } from 'vitest';
import { type HttpHarness, serverTest } from '../support/http-harness.js';

/**
 * A file rendered as HTML (extensions §11): `GET …/files/{filename}?format=html`, on whichever adapter
 * set runs the suite (see test/matrix).
 */

const test = serverTest();

const DOC = [
  '---',
  'title: Front matter stays out',
  '---',
  '# Guide',
  '',
  'See [setup](sub/setup.md#linux), [up](../top.md), [site](https://example.org/) and [here](#use).',
  '',
  '<script>window.__xss = 1</script><img src="x.png" onerror="window.__xss = 1">',
  '',
  '## Use',
  '',
  '## Use',
  '',
].join('\n');

const HTML = [
  '<h1 id="guide">Guide</h1>',
  '<p>See <a href="/#/p/{P}/f/docs/sub/setup.md#linux">setup</a>, <a href="/#/p/{P}/f/top.md">up</a>, ' +
    '<a href="https://example.org/">site</a> and <a href="#use">here</a>.</p>',
  '<img src="/api/projects/{P}/attachments/docs%2Fx.png" />',
  '<h2 id="use">Use</h2>',
  '<h2 id="use-1">Use</h2>',
  '',
].join('\n');

async function scene(h: HttpHarness, filename = 'docs/guide.md', content = DOC) {
  const { apiKey } = await h.account();
  const { id: projectId } = await h.createProject(apiKey, 'Render');
  const uploaded = await h.uploadFile(apiKey, projectId, filename, content);
  const path = `/api/projects/${projectId}/files/${encodeURIComponent(filename)}`;
  return {
    apiKey,
    projectId,
    etag: uploaded.etag as string,
    get: (query: string, init: RequestInit & { key?: string } = {}) =>
      h.fetch(`${path}${query}`, { key: apiKey, ...init }),
  };
}

describe('GET …/files/{filename}?format=html', () => {
  test('200: the sanitised fragment, headings with slug ids, links to other files made console links', async (h) => {
    const s = await scene(h);
    const response = await s.get('?format=html');
    expect(response.status).toBe(200);
    const body = await response.text();
    expect(body).toBe(HTML.replaceAll('{P}', s.projectId));
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
    expect(response.headers.get('etag')).toBe(s.etag);
    expect(response.headers.get('content-disposition')).toMatch(/^inline; filename="guide.md"/);
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(response.headers.get('x-file-size')).toBe(String(Buffer.byteLength(DOC)));
  });

  test('conditional like the download: 304 on the ETag, 412 on another', async (h) => {
    const s = await scene(h);
    const same = await s.get('?format=html', { headers: { 'If-None-Match': s.etag } });
    expect(same.status).toBe(304);
    expect(same.headers.get('etag')).toBe(s.etag);
    expect(await same.text()).toBe('');
    const other = await s.get('?format=html', { headers: { 'If-Match': '"0000-9"' } });
    expect(other.status).toBe(412);
  });

  test('HEAD: the headers without the body', async (h) => {
    const s = await scene(h);
    const response = await s.get('?format=html', { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await response.text()).toBe('');
  });

  test('an .mdx file is its escaped source, front matter left out', async (h) => {
    const s = await scene(h, 'page.mdx', '---\na: 1\n---\n# Hi\n\n<Chart data={[1]} />\n');
    const response = await s.get('?format=html');
    expect(await response.text()).toBe(
      '<pre class="mdx-source"><code># Hi\n\n&lt;Chart data={[1]} /&gt;\n</code></pre>\n',
    );
  });

  test('a read key may; ranges and parts are ignored; another format is 422', async (h) => {
    const s = await scene(h);
    const created = await h.json('/api/keys', 'POST', s.apiKey, { name: 'reader', role: 'read' });
    expect(created.status).toBe(201);
    const reader = ((await created.json()) as { api_key: string }).api_key;
    const read = await s.get('?format=html&lines=1-2', { key: reader, headers: { Range: 'bytes=0-3' } });
    expect(read.status).toBe(200);
    expect(await read.text()).toBe(HTML.replaceAll('{P}', s.projectId));
    const wrong = await s.get('?format=pdf');
    expect(wrong.status).toBe(422);
    expect(((await wrong.json()) as { detail: Array<{ loc: unknown[] }> }).detail[0]!.loc).toEqual([
      'query',
      'format',
    ]);
  });

  test('a missing file is 404', async (h) => {
    const s = await scene(h);
    const response = await h.fetch(`/api/projects/${s.projectId}/files/none.md?format=html`, {
      key: s.apiKey,
    });
    expect(response.status).toBe(404);
  });
});

describe('wiki links and embeds in ?format=html (extensions §12)', () => {
  test('resolved by the link index’s rule against files and attachments; unresolved ones marked', async (h) => {
    const note =
      '[[Setup]] [[Setup#Linux|on linux]] ![[pics/cat.png]] ![[Missing]] [[report.pdf]] ![x](../pics/cat.png) ![[cat.png|by name]]\n';
    const s = await scene(h, 'docs/guide.md', note);
    await h.uploadFile(s.apiKey, s.projectId, 'docs/sub/Setup.md', '# Linux\n');
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
      'base64',
    );
    for (const [path, body, type] of [
      ['pics/cat.png', png, 'image/png'],
      ['report.pdf', Buffer.from('%PDF-1.4\n%%EOF\n'), 'application/pdf'],
    ] as const) {
      const put = await h.fetch(`/api/projects/${s.projectId}/attachments/${encodeURIComponent(path)}`, {
        method: 'PUT',
        key: s.apiKey,
        headers: { 'Content-Type': type },
        body,
      });
      expect(put.status).toBe(201);
    }
    const response = await s.get('?format=html');
    expect(response.status).toBe(200);
    const file = `/#/p/${s.projectId}/f/docs/sub/Setup.md`;
    const cat = `/api/projects/${s.projectId}/attachments/pics%2Fcat.png`;
    expect(await response.text()).toBe(
      `<p><a href="${file}">Setup</a> <a href="${file}#linux">on linux</a> ` +
        `<img alt="pics/cat.png" src="${cat}" /> <span class="broken-link">Missing</span> ` +
        `<a href="/api/projects/${s.projectId}/attachments/report.pdf">report.pdf</a> ` +
        `<img alt="x" src="${cat}" /> <img alt="by name" src="${cat}" /></p>\n`,
    );
    // The image's URL is the attachment's read.
    expect((await h.fetch(cat, { key: s.apiKey })).status).toBe(200);
  });
});

describe('bounded rendering over HTTP', () => {
  serverTest({ settings: { maxFileBytes: 2 * 1024 * 1024 } })(
    'a file whose render is estimated past the bound is the outline’s 413, refused before any work',
    async (h) => {
      const s = await scene(h, 'big.md', '[a](b.md) *c* '.repeat(60_000));
      const response = await s.get('?format=html');
      expect(response.status).toBe(413);
      const outline = await h.fetch(`/api/projects/${s.projectId}/files/big.md/outline`, { key: s.apiKey });
      expect(await response.json()).toEqual({
        detail: expect.stringMatching(/^File too large for an outline: /),
      });
      expect(outline.status).toBe(413);
    },
  );
});

describe('POST …/render: unsaved text rendered as ?format=html renders a file (extensions §11)', () => {
  const render = (h: HttpHarness, projectId: string, key: string, body: unknown) =>
    h.fetch(`/api/projects/${projectId}/render`, {
      method: 'POST',
      key,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });

  test('the same HTML as the stored file’s render, links resolved from the named file’s folder', async (h) => {
    const s = await scene(h);
    const stored = await (await s.get('?format=html')).text();
    const response = await render(h, s.projectId, s.apiKey, { content: DOC, filename: 'docs/guide.md' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ html: stored });
    expect(stored).toBe(HTML.replaceAll('{P}', s.projectId));
  });

  test('wiki embeds resolve against the project; without a filename the text is a root file', async (h) => {
    const s = await scene(h, 'docs/guide.md', '# G\n');
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
      'base64',
    );
    const put = await h.fetch(`/api/projects/${s.projectId}/attachments/a.png`, {
      method: 'PUT',
      key: s.apiKey,
      headers: { 'Content-Type': 'image/png' },
      body: png,
    });
    expect(put.status).toBe(201);
    const response = await render(h, s.projectId, s.apiKey, {
      content: '![[a.png]] [[guide]] ![y](a.png)\n',
    });
    const cat = `/api/projects/${s.projectId}/attachments/a.png`;
    expect(await response.json()).toEqual({
      html:
        `<p><img alt="a.png" src="${cat}" /> <a href="/#/p/${s.projectId}/f/docs/guide.md">guide</a> ` +
        `<img alt="y" src="${cat}" /></p>\n`,
    });
  });

  test('a read key may; an .mdx name shows the escaped source', async (h) => {
    const s = await scene(h);
    const created = await h.json('/api/keys', 'POST', s.apiKey, { name: 'reader', role: 'read' });
    const reader = ((await created.json()) as { api_key: string }).api_key;
    const response = await render(h, s.projectId, reader, { content: '# Hi <b>x</b>\n', filename: 'p.mdx' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      html: '<pre class="mdx-source"><code># Hi &lt;b&gt;x&lt;/b&gt;\n</code></pre>\n',
    });
  });

  test('refusals: 422 content, 400/415 filename, 413 past the file size limit, 404 project, 415 media type', async (h) => {
    const s = await scene(h);
    const missing = await render(h, s.projectId, s.apiKey, { filename: 'a.md' });
    expect(missing.status).toBe(422);
    expect(((await missing.json()) as { detail: { loc: unknown[] }[] }).detail[0]!.loc).toEqual([
      'body',
      'content',
    ]);
    expect((await render(h, s.projectId, s.apiKey, { content: 7 })).status).toBe(422);
    expect((await render(h, s.projectId, s.apiKey, [])).status).toBe(422);
    expect((await render(h, s.projectId, s.apiKey, { content: '', filename: 'a.txt' })).status).toBe(415);
    expect((await render(h, s.projectId, s.apiKey, { content: '', filename: '../a.md' })).status).toBe(400);
    // TEST_SETTINGS: files of at most 1024 bytes.
    const big = await render(h, s.projectId, s.apiKey, { content: 'é'.repeat(513) });
    expect(big.status).toBe(413);
    const other = await render(h, '00000000-0000-4000-8000-000000000000', s.apiKey, { content: '' });
    expect(other.status).toBe(404);
    const text = await h.fetch(`/api/projects/${s.projectId}/render`, {
      method: 'POST',
      key: s.apiKey,
      headers: { 'Content-Type': 'text/plain' },
      body: '# x',
    });
    expect(text.status).toBe(415);
  });
});
