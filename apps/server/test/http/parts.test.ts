import { describe, expect } from 'vitest';
import { type HttpHarness, serverTest } from '../support/http-harness.js';

/**
 * Reading parts of a file (extensions §4): `?lines=a-b`, `?section=…`, and `GET …/outline`, on
 * whichever adapter set runs the suite (see test/matrix).
 */

const test = serverTest();

type Issue = { loc: unknown[]; msg: string; type: string };

const DOC = [
  '---',
  'title: Guide',
  '---',
  '# Guide',
  '',
  'See [the docs](https://example.com/docs) and [[Other Page|other]].',
  '',
  '## Setup',
  '',
  'Install it.',
  '',
  '### Linux',
  '',
  '```sh',
  '# not a heading, [not](a-link)',
  '```',
  '',
  '## Use',
  '',
  'Run it.',
  '',
].join('\r\n');

async function scene(h: HttpHarness, filename = 'guide.md', content: string = DOC) {
  const { apiKey } = await h.account();
  const { id: projectId } = await h.createProject(apiKey, 'Parts');
  const uploaded = await h.uploadFile(apiKey, projectId, filename, content);
  const path = `/api/projects/${projectId}/files/${encodeURIComponent(filename)}`;
  return {
    apiKey,
    projectId,
    path,
    etag: uploaded.etag as string,
    get: (query: string, init: RequestInit = {}) => h.fetch(`${path}${query}`, { key: apiKey, ...init }),
  };
}

const lines = (from: number, to: number) =>
  `${DOC.split('\r\n')
    .slice(from - 1, to)
    .join('\r\n')}\r\n`;

const detail = async (response: Response) => ((await response.json()) as { detail: Issue[] }).detail;

describe('?lines=a-b', () => {
  test('200 with those lines and their line endings, X-Line-Range, the file ETag, no range headers', async (h) => {
    const s = await scene(h);
    const response = await s.get('?lines=4-6');
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(lines(4, 6));
    expect(response.headers.get('x-line-range')).toBe('4-6/20');
    expect(response.headers.get('etag')).toBe(s.etag);
    expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(lines(4, 6))));
    expect(response.headers.get('x-file-size')).toBe(String(Buffer.byteLength(DOC)));
    expect(response.headers.get('accept-ranges')).toBeNull();
    expect(response.headers.get('repr-digest')).toBeNull();
    expect(response.headers.get('content-range')).toBeNull();
    // Front matter counts for line numbers.
    expect(await (await s.get('?lines=1-1')).text()).toBe('---\r\n');
  });

  test('b past the end is clipped to the last line; the last line keeps (or lacks) its LF', async (h) => {
    const s = await scene(h);
    const response = await s.get('?lines=19-999');
    expect(response.status).toBe(200);
    expect(response.headers.get('x-line-range')).toBe('19-20/20');
    expect(await response.text()).toBe('\r\nRun it.\r\n');
    const open = await scene(h, 'open.md', 'a\nb');
    const last = await open.get('?lines=2-2');
    expect(await last.text()).toBe('b');
    expect(last.headers.get('x-line-range')).toBe('2-2/2');
  });

  test('a < 1, a past the last line, b < a, non-integers, two values: 422 ["query","lines"]', async (h) => {
    const s = await scene(h);
    for (const query of [
      '?lines=0-3',
      '?lines=21-22',
      '?lines=5-4',
      '?lines=1.5-3',
      '?lines=a-b',
      '?lines=3',
      '?lines=-3',
      '?lines=',
      '?lines=1-2&lines=3-4',
      '?lines=%FF-1',
    ]) {
      const response = await s.get(query);
      expect(response.status, query).toBe(422);
      expect(
        (await detail(response)).map((issue) => issue.loc),
        query,
      ).toEqual([['query', 'lines']]);
    }
  });

  test('Range and If-Range are ignored with lines; a plain download still honours Range', async (h) => {
    const s = await scene(h);
    const ranged = await s.get('?lines=4-4', { headers: { Range: 'bytes=0-1', 'If-Range': s.etag } });
    expect(ranged.status).toBe(200);
    expect(await ranged.text()).toBe('# Guide\r\n');
    const whole = await s.get('', { headers: { Range: 'bytes=0-1' } });
    expect(whole.status).toBe(206);
    // A query that names neither leaves the download as it was.
    const other = await s.get('?other=1', { headers: { Range: 'bytes=0-1' } });
    expect(other.status).toBe(206);
  });

  test('conditional: If-None-Match with the ETag is 304, a stale If-Match is 412', async (h) => {
    const s = await scene(h);
    const cached = await s.get('?lines=1-2', { headers: { 'If-None-Match': s.etag } });
    expect(cached.status).toBe(304);
    expect(cached.headers.get('etag')).toBe(s.etag);
    const stale = await s.get('?lines=1-2', { headers: { 'If-Match': '"nope"' } });
    expect(stale.status).toBe(412);
  });

  test('HEAD: the headers of the part, no body', async (h) => {
    const s = await scene(h);
    const head = await s.get('?lines=4-6', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(lines(4, 6))));
    expect(head.headers.get('x-line-range')).toBe('4-6/20');
    expect(await head.text()).toBe('');
  });
});

describe('?section=', () => {
  test('a path, outer first: from its heading line to its end, as stored (CRLF kept)', async (h) => {
    const s = await scene(h);
    const response = await s.get('?section=Setup&section=Linux');
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(lines(12, 17));
    expect(response.headers.get('etag')).toBe(s.etag);
    expect(response.headers.get('x-line-range')).toBe('12-17/20');
    expect(response.headers.get('accept-ranges')).toBeNull();
    expect(response.headers.get('repr-digest')).toBeNull();
    const setup = await s.get('?section=Setup');
    expect(await setup.text()).toBe(lines(8, 17));
    // Percent-encoded and `+` for spaces; white space collapsed.
    const spaced = await scene(h, 'spaced.md', '# Über  uns\nx\n');
    expect(await (await spaced.get('?section=%C3%9Cber+uns')).text()).toBe('# Über  uns\nx\n');
  });

  test('a heading text unique in the file; several or none is 409 with the candidates', async (h) => {
    const s = await scene(h, 'dup.md', '# A\n## Notes\nx\n# B\n## Notes\ny\n');
    const ambiguous = await s.get('?section=Notes');
    expect(ambiguous.status).toBe(409);
    const [issue] = await detail(ambiguous);
    expect(issue).toMatchObject({ loc: ['query', 'section'], type: 'section_ambiguous' });
    expect(issue!.msg).toContain('["A","Notes"]');
    const missing = await s.get('?section=Nope');
    expect(missing.status).toBe(409);
    expect((await detail(missing))[0]).toMatchObject({
      loc: ['query', 'section'],
      type: 'section_not_found',
    });
    expect(await (await s.get('?section=B&section=Notes')).text()).toBe('## Notes\ny\n');
  });

  test('one ?section= is the one-element path: a top-level heading with that text is meant', async (h) => {
    const s = await scene(h, 'top.md', '# Notes\nx\n# B\n## Notes\ny\n');
    const top = await s.get('?section=Notes');
    expect(top.status).toBe(200);
    expect(await top.text()).toBe('# Notes\nx\n');
    expect(top.headers.get('x-line-range')).toBe('1-2/5');
  });

  test('with lines at once: 422; a value that is not UTF-8: 422 ["query","section"]', async (h) => {
    const s = await scene(h);
    const both = await s.get('?lines=1-2&section=Setup');
    expect(both.status).toBe(422);
    expect((await detail(both))[0]!.loc).toEqual(['query', 'lines']);
    const bad = await s.get('?section=%C3');
    expect(bad.status).toBe(422);
    expect((await detail(bad))[0]!.loc).toEqual(['query', 'section']);
  });

  test('headings in code are not sections; in .mdx, headings inside JSX are not either', async (h) => {
    const s = await scene(h);
    expect((await s.get('?section=not a heading, [not](a-link)')).status).toBe(409);
    const mdx = await scene(h, 'page.mdx', '# Page\n\n<Box>\n# Inner\n</Box>\n');
    expect((await mdx.get('?section=Inner')).status).toBe(409);
    expect(await (await mdx.get('?section=Page')).text()).toBe('# Page\n\n<Box>\n# Inner\n</Box>\n');
  });

  test('404 for a missing file, 403 for another account, 401 without a key', async (h) => {
    const s = await scene(h);
    expect(
      (await h.fetch(`/api/projects/${s.projectId}/files/no.md?lines=1-2`, { key: s.apiKey })).status,
    ).toBe(404);
    const other = await h.account('other');
    expect((await h.fetch(`${s.path}?section=Setup`, { key: other.apiKey })).status).toBe(403);
    expect((await h.fetch(`${s.path}?section=Setup`)).status).toBe(401);
  });
});

describe('GET …/outline', () => {
  test('headings with level, text, line and path; links outside code; the etag', async (h) => {
    const s = await scene(h);
    const response = await s.get('/outline');
    expect(response.status).toBe(200);
    expect(response.headers.get('x-ratelimit-limit')).not.toBeNull();
    expect(await response.json()).toEqual({
      headings: [
        { level: 1, text: 'Guide', line: 4, path: ['Guide'] },
        { level: 2, text: 'Setup', line: 8, path: ['Guide', 'Setup'] },
        { level: 3, text: 'Linux', line: 12, path: ['Guide', 'Setup', 'Linux'] },
        { level: 2, text: 'Use', line: 18, path: ['Guide', 'Use'] },
      ],
      links: [
        { target: 'https://example.com/docs', text: 'the docs', line: 6 },
        { target: 'Other Page', text: 'other', line: 6 },
      ],
      etag: s.etag,
    });
  });

  test('setext headings and inline markup as plain text; .mdx read as MDX', async (h) => {
    const s = await scene(h, 'setext.md', 'Title **bold**\n===\n\nSub\n---\n');
    expect(((await (await s.get('/outline')).json()) as { headings: unknown }).headings).toEqual([
      { level: 1, text: 'Title bold', line: 1, path: ['Title bold'] },
      { level: 2, text: 'Sub', line: 4, path: ['Title bold', 'Sub'] },
    ]);
    const mdx = await scene(h, 'page.mdx', '# Page\n\n<Box>\n# Inner [x](y)\n</Box>\n');
    const outline = (await (await mdx.get('/outline')).json()) as { headings: unknown[]; links: unknown[] };
    expect(outline.headings).toEqual([{ level: 1, text: 'Page', line: 1, path: ['Page'] }]);
  });

  test('404 for a missing file, 403 for another account, 405 for other methods', async (h) => {
    const s = await scene(h);
    expect(
      (await h.fetch(`/api/projects/${s.projectId}/files/no.md/outline`, { key: s.apiKey })).status,
    ).toBe(404);
    const other = await h.account('other');
    expect((await h.fetch(`${s.path}/outline`, { key: other.apiKey })).status).toBe(403);
    const put = await h.fetch(`${s.path}/outline`, { method: 'PUT', key: s.apiKey });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD');
  });
});
