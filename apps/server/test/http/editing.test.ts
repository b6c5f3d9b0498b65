import { applyEdits, type BlobStore, type MarkdownEdit, type RecordsRepository } from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { type AdapterFactory, selectedAdapters } from '../support/adapters.js';
import { type HttpHarness, serverTest } from '../support/http-harness.js';
import { race, soleWinner } from '../support/race.js';

/**
 * `PATCH …/files/{filename}` (extensions §4), on whichever adapter set runs the suite (see
 * test/matrix): every edit kind, all-or-nothing, dry runs, preconditions, the content rules of the
 * result, byte preservation, and concurrent edits (one winner with If-Match, none lost without).
 */

const test = serverTest();
const MAX = 1024; // TEST_SETTINGS.maxFileBytes

type Issue = { loc: unknown[]; msg: string; type: string };
type Json = Record<string, unknown>;

async function scene(h: HttpHarness, filename = 'doc.md', content: string | Uint8Array = DOC) {
  const { apiKey } = await h.account();
  const { id: projectId } = await h.createProject(apiKey, 'Editing');
  const uploaded = await h.uploadFile(apiKey, projectId, filename, content);
  const path = `/api/projects/${projectId}/files/${encodeURIComponent(filename)}`;
  return {
    apiKey,
    projectId,
    path,
    etag: uploaded.etag as string,
    patch: (body: unknown, headers: Record<string, string> = {}) =>
      h.fetch(path, {
        method: 'PATCH',
        key: apiKey,
        headers: { 'Content-Type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    bytes: async () => Buffer.from(await (await h.fetch(path, { key: apiKey })).arrayBuffer()),
    text: async () => (await h.fetch(path, { key: apiKey })).text(),
    file: async () => {
      const list = (await (await h.fetch(`/api/projects/${projectId}/files`, { key: apiKey })).json()) as {
        files: Json[];
      };
      return list.files.find((file) => file.filename === filename)!;
    },
  };
}

const DOC = [
  '# Guide',
  '',
  'Intro text.',
  '',
  '## Setup',
  '',
  'Install it.',
  '',
  '### Linux',
  '',
  'apt install it',
  '',
  '## Use',
  '',
  'Run it.',
  '',
].join('\n');

const detail = async (response: Response) => ((await response.json()) as { detail: Issue[] }).detail;

describe('PATCH edits', () => {
  test('replace: 200 with the File object, a diff, a new revision and ETag; the content changed', async (h) => {
    const s = await scene(h);
    const response = await s.patch({ edits: [{ op: 'replace', old: 'Run it.', new: 'Run it twice.' }] });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Json;
    expect(Object.keys(body).sort()).toEqual(
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
        'etag',
        'revision',
        'sha256',
        'diff',
      ].sort(),
    );
    const expected = DOC.replace('Run it.', 'Run it twice.');
    expect(body).toMatchObject({ filename: 'doc.md', revision: 2, size_bytes: Buffer.byteLength(expected) });
    expect(body.etag).not.toBe(s.etag);
    expect(response.headers.get('etag')).toBe(body.etag);
    expect(response.headers.get('last-modified')).not.toBeNull();
    expect(response.headers.get('cache-control')).toBe('private, no-cache');
    expect(body.diff).toBe(
      [
        '--- a/doc.md',
        '+++ b/doc.md',
        '@@ -12,4 +12,4 @@',
        ' ',
        ' ## Use',
        ' ',
        '-Run it.',
        '+Run it twice.',
        '',
      ].join('\n'),
    );
    expect(await s.text()).toBe(expected);
    expect(await s.file()).toMatchObject({ revision: 2, etag: body.etag, size_bytes: body.size_bytes });
    // One new revision, recorded as an edit.
    const record = (await h.adapters.records.findFile({ projectId: s.projectId, filename: 'doc.md' }))!;
    const revisions = await h.adapters.records.listRevisions({ fileId: record.id, limit: 10 });
    expect(revisions.map((revision) => [revision.revision, revision.change])).toEqual([
      [2, 'edit'],
      [1, 'created'],
    ]);
  });

  test('replace counts exactly, without overlaps; "all" replaces every occurrence', async (h) => {
    const s = await scene(h, 'count.md', 'it it it\nit\n');
    expect((await s.patch({ edits: [{ op: 'replace', old: 'it', new: 'x', count: 4 }] })).status).toBe(200);
    expect(await s.text()).toBe('x x x\nx\n');
    expect((await s.patch({ edits: [{ op: 'replace', old: 'x', new: 'yy', count: 'all' }] })).status).toBe(
      200,
    );
    expect(await s.text()).toBe('yy yy yy\nyy\n');
    // "yy yy" has two non-overlapping "y"s per word; "yyy" would overlap.
    expect((await s.patch({ edits: [{ op: 'replace', old: 'yy', new: 'z', count: 4 }] })).status).toBe(200);
    expect(await s.text()).toBe('z z z\nz\n');
  });

  test('a match count that differs is 409 match_count naming the count and the lines; nothing changes', async (h) => {
    const s = await scene(h, 'twice.md', 'a\nfoo\nb\nfoo\n');
    const twice = await s.patch({ edits: [{ op: 'replace', old: 'foo', new: 'bar' }] });
    expect(twice.status).toBe(409);
    expect(await detail(twice)).toEqual([
      {
        loc: ['body', 'edits', 0, 'old'],
        msg: 'The old text was found 2 times (expected 1), on lines 2, 4',
        type: 'match_count',
      },
    ]);
    const none = await s.patch({ edits: [{ op: 'replace', old: 'zzz', new: 'bar', count: 'all' }] });
    expect(none.status).toBe(409);
    expect((await detail(none))[0]).toMatchObject({
      type: 'match_count',
      msg: expect.stringContaining('0 times'),
    });
    expect(await s.text()).toBe('a\nfoo\nb\nfoo\n');
    expect(await s.file()).toMatchObject({ revision: 1, etag: s.etag });
  });

  test('all or nothing: a failing later edit leaves the file as it was', async (h) => {
    const s = await scene(h);
    const response = await s.patch({
      edits: [
        { op: 'append', text: 'tail\n' },
        { op: 'replace', old: 'Intro', new: 'Preface' },
        { op: 'append', section: 'Nowhere', text: 'x' },
      ],
    });
    expect(response.status).toBe(409);
    expect((await detail(response))[0]).toMatchObject({
      loc: ['body', 'edits', 2, 'section'],
      type: 'section_not_found',
    });
    expect(await s.text()).toBe(DOC);
    expect(await s.file()).toMatchObject({ revision: 1 });
  });

  test('edits apply in order, each to the result of the previous one, as one revision', async (h) => {
    const s = await scene(h, 'order.md', 'one\n');
    const response = await s.patch({
      edits: [
        { op: 'replace', old: 'one', new: 'two' },
        { op: 'replace', old: 'two', new: 'three' },
        { op: 'append', text: 'four\n' },
      ],
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ revision: 2 });
    expect(await s.text()).toBe('three\nfour\n');
  });

  test('append and prepend on the file; prepend goes after the front matter block', async (h) => {
    const s = await scene(h, 'fm.md', '---\ntitle: T\n---\n# Body\n');
    expect((await s.patch({ edits: [{ op: 'prepend', text: 'Lead' }] })).status).toBe(200);
    expect((await s.patch({ edits: [{ op: 'append', text: 'End' }] })).status).toBe(200);
    expect(await s.text()).toBe('---\ntitle: T\n---\nLead\n# Body\nEnd');
    const plain = await scene(h, 'plain.md', 'last line without LF');
    expect((await plain.patch({ edits: [{ op: 'append', text: 'next' }] })).status).toBe(200);
    expect((await plain.patch({ edits: [{ op: 'prepend', text: 'first\n' }] })).status).toBe(200);
    expect(await plain.text()).toBe('first\nlast line without LF\nnext');
  });

  test('append and prepend to a section, and replace_section keeping the heading', async (h) => {
    const s = await scene(h);
    const response = await s.patch({
      edits: [
        { op: 'prepend', section: ['Setup', 'Linux'], text: 'Needs root.' },
        { op: 'append', section: 'Setup', text: 'Done.\n\n' },
        { op: 'replace_section', section: 'Use', text: '\nNew usage.\n' },
      ],
    });
    expect(response.status).toBe(200);
    expect(await s.text()).toBe(
      [
        '# Guide',
        '',
        'Intro text.',
        '',
        '## Setup',
        '',
        'Install it.',
        '',
        '### Linux',
        'Needs root.',
        '',
        'apt install it',
        '',
        'Done.',
        '',
        '## Use',
        '',
        'New usage.',
        '',
      ].join('\n'),
    );
  });

  test('insert before a line; lines + 1 appends; any other line is 422', async (h) => {
    const s = await scene(h, 'lines.md', 'a\nb\nc\n');
    expect((await s.patch({ edits: [{ op: 'insert', line: 2, text: 'x' }] })).status).toBe(200);
    expect((await s.patch({ edits: [{ op: 'insert', line: 5, text: 'end\n' }] })).status).toBe(200);
    expect(await s.text()).toBe('a\nx\nb\nc\nend\n');
    for (const line of [7, 0, -1, 1.5, '2']) {
      const response = await s.patch({ edits: [{ op: 'insert', line, text: 'y' }] });
      expect(response.status, String(line)).toBe(422);
      expect((await detail(response))[0]!.loc).toEqual(['body', 'edits', 0, 'line']);
    }
    expect(await s.file()).toMatchObject({ revision: 3 });
  });

  test('a section path that matches nothing or several headings is 409 with the candidates', async (h) => {
    const s = await scene(h, 'dup.md', '# A\n## Notes\nx\n# B\n## Notes\ny\n');
    const ambiguous = await s.patch({ edits: [{ op: 'append', section: 'Notes', text: 'z' }] });
    expect(ambiguous.status).toBe(409);
    const [issue] = await detail(ambiguous);
    expect(issue).toMatchObject({ loc: ['body', 'edits', 0, 'section'], type: 'section_ambiguous' });
    expect(issue!.msg).toContain('["A","Notes"]');
    expect(issue!.msg).toContain('["B","Notes"]');
    const missing = await s.patch({ edits: [{ op: 'replace_section', section: ['C', 'Notes'], text: 'z' }] });
    expect(missing.status).toBe(409);
    const [notFound] = await detail(missing);
    expect(notFound).toMatchObject({ type: 'section_not_found' });
    expect(notFound!.msg).toContain('["A","Notes"]');
    // The full path names one of them.
    expect((await s.patch({ edits: [{ op: 'append', section: ['B', 'Notes'], text: 'z' }] })).status).toBe(
      200,
    );
    expect(await s.text()).toBe('# A\n## Notes\nx\n# B\n## Notes\ny\nz');
  });

  test('the outline path ["Notes"] names a top-level # Notes; the string "Notes" stays ambiguous', async (h) => {
    const s = await scene(h, 'top.md', '# Notes\nx\n# B\n## Notes\ny\n');
    const text = await s.patch({ edits: [{ op: 'append', section: 'Notes', text: 'z\n' }] });
    expect(text.status).toBe(409);
    expect((await detail(text))[0]).toMatchObject({ type: 'section_ambiguous' });
    const path = await s.patch({ edits: [{ op: 'append', section: ['Notes'], text: 'z\n' }] });
    expect(path.status).toBe(200);
    expect(await s.text()).toBe('# Notes\nx\nz\n# B\n## Notes\ny\n');
  });

  test('headings are what a CommonMark parser finds: not in code, HTML or front matter; plain text', async (h) => {
    const s = await scene(h, 'parse.md', '```\n# Fake\n```\n## Install **now**\nbody\n');
    const fake = await s.patch({ edits: [{ op: 'append', section: 'Fake', text: 'x' }] });
    expect(fake.status).toBe(409);
    const other = await scene(
      h,
      'other.md',
      '---\n# In front: matter\n---\n<div>\n# In html\n</div>\n\n# Real\n',
    );
    for (const section of ['In front: matter', 'In html']) {
      const response = await other.patch({ edits: [{ op: 'append', section, text: 'x' }] });
      expect(response.status, section).toBe(409);
      expect((await detail(response))[0]!.msg).toContain('["Real"] (line 8)');
    }
    expect((await s.patch({ edits: [{ op: 'append', section: ' Install   now ', text: 'x' }] })).status).toBe(
      200,
    );
    expect(await s.text()).toBe('```\n# Fake\n```\n## Install **now**\nbody\nx');
  });

  test('the body: 422 under ["body","edits",i] for empty, unknown or incomplete edits, 400 for non-JSON', async (h) => {
    const s = await scene(h);
    const cases: Array<[unknown, unknown[]]> = [
      [{ edits: [] }, ['body', 'edits']],
      [{ edits: [{ op: 'delete', old: 'x' }] }, ['body', 'edits', 0, 'op']],
      [{ edits: [{ op: 'replace', new: 'x' }] }, ['body', 'edits', 0, 'old']],
      [
        {
          edits: [
            { op: 'append', text: 'x' },
            { op: 'insert', text: 'x' },
          ],
        },
        ['body', 'edits', 1, 'line'],
      ],
      [{ edits: [{ op: 'replace', old: '', new: 'x' }] }, ['body', 'edits', 0, 'old']],
      [{ edits: [{ op: 'append', text: 'x', sectoin: 'Use' }] }, ['body', 'edits', 0, 'sectoin']],
      [{ edits: Array.from({ length: 101 }, () => ({ op: 'append', text: 'x' })) }, ['body', 'edits']],
      [{ edits: [{ op: 'append', text: 'x' }], dry_run: 'yes' }, ['body', 'dry_run']],
      [{}, ['body', 'edits']],
      [{ edits: [{ op: 'append', text: '\ud800' }] }, ['body', 'edits', 0, 'text']],
      [[1], ['body']],
    ];
    for (const [body, loc] of cases) {
      const response = await s.patch(body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(
        (await detail(response)).map((issue) => issue.loc),
        JSON.stringify(body),
      ).toContainEqual(loc);
    }
    const broken = await s.patch('{"edits": [');
    expect(broken.status).toBe(400);
    const text = await h.fetch(s.path, {
      method: 'PATCH',
      key: s.apiKey,
      headers: { 'Content-Type': 'text/plain' },
      body: '{}',
    });
    expect(text.status).toBe(415);
    expect(await s.file()).toMatchObject({ revision: 1 });
  });

  test('dry_run: 200 with the diff and the would-be size; nothing changes, ETag and revision kept', async (h) => {
    const s = await scene(h, 'dry.md', 'a\n');
    const response = await s.patch({ edits: [{ op: 'append', text: 'b\n' }], dry_run: true });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Json;
    expect(body).toMatchObject({ revision: 1, etag: s.etag, size_bytes: 4 });
    expect(body.sha256).not.toBe((await s.file()).sha256);
    expect(body.diff).toBe('--- a/dry.md\n+++ b/dry.md\n@@ -1,1 +1,2 @@\n a\n+b\n');
    expect(response.headers.get('etag')).toBe(s.etag);
    expect(await s.text()).toBe('a\n');
    expect(await s.file()).toMatchObject({ revision: 1, etag: s.etag, size_bytes: 2 });
    // A dry run fails as the real edit would.
    const failing = await s.patch({ edits: [{ op: 'replace', old: 'zz', new: 'y' }], dry_run: true });
    expect(failing.status).toBe(409);
  });

  test('If-Match: a stale ETag is 412 with the current one; the current ETag passes', async (h) => {
    const s = await scene(h, 'cond.md', 'a\n');
    const first = await s.patch({ edits: [{ op: 'append', text: 'b\n' }] }, { 'If-Match': s.etag });
    expect(first.status).toBe(200);
    const current = ((await first.json()) as Json).etag as string;
    const stale = await s.patch({ edits: [{ op: 'append', text: 'c\n' }] }, { 'If-Match': s.etag });
    expect(stale.status).toBe(412);
    expect(await stale.json()).toEqual({ detail: 'Precondition failed' });
    expect(stale.headers.get('etag')).toBe(current);
    // A dry run honours If-Match too.
    const dry = await s.patch(
      { edits: [{ op: 'append', text: 'c\n' }], dry_run: true },
      { 'If-Match': s.etag },
    );
    expect(dry.status).toBe(412);
    // 412 is decided before the body is judged, and before it is read: no 100 Continue.
    expect((await s.patch({ edits: [] }, { 'If-Match': s.etag })).status).toBe(412);
    const held = await race(h.url, [
      {
        method: 'PATCH',
        path: s.path,
        headers: {
          authorization: `Bearer ${s.apiKey}`,
          'content-type': 'application/json',
          'if-match': s.etag,
        },
        body: Buffer.from(JSON.stringify({ edits: [{ op: 'append', text: 'x' }] })),
      },
    ]);
    expect(held.continued).toBe(0);
    expect(held.answers[0]!.status).toBe(412);
    // If-Unmodified-Since too.
    const since = await s.patch(
      { edits: [{ op: 'append', text: 'c\n' }] },
      { 'If-Unmodified-Since': 'Mon, 01 Jan 2001 00:00:00 GMT' },
    );
    expect(since.status).toBe(412);
    expect(await s.text()).toBe('a\nb\n');
  });

  test('require_if_match: 428 without If-Match, before the body is judged; a dry run is never 428', async (h) => {
    const s = await scene(h, 'req.md', 'a\n');
    const settings = await h.json(`/api/projects/${s.projectId}`, 'PUT', s.apiKey, {
      settings: { require_if_match: true },
    });
    expect(settings.status).toBe(200);
    const required = await s.patch({ edits: [{ op: 'append', text: 'b\n' }] });
    expect(required.status).toBe(428);
    expect(await required.json()).toEqual({
      detail: "Precondition required: send If-Match with the file's ETag",
    });
    expect((await s.patch({ edits: [] })).status).toBe(428);
    expect((await s.patch('not json')).status).toBe(428);
    expect((await s.patch({ edits: [{ op: 'append', text: 'b\n' }], dry_run: false })).status).toBe(428);
    const dry = await s.patch({ edits: [{ op: 'append', text: 'b\n' }], dry_run: true });
    expect(dry.status).toBe(200);
    // A dry run without If-Match still has its other preconditions and its body judged.
    expect((await s.patch({ edits: [], dry_run: true })).status).toBe(422);
    expect(
      (await s.patch({ edits: [{ op: 'append', text: 'b' }], dry_run: true }, { 'If-None-Match': '*' }))
        .status,
    ).toBe(412);
    const real = await s.patch({ edits: [{ op: 'append', text: 'b\n' }] }, { 'If-Match': s.etag });
    expect(real.status).toBe(200);
    expect(await s.text()).toBe('a\nb\n');
  });

  test('the result obeys the content rules: 413 above the size limit, 400 when empty', async (h) => {
    const s = await scene(h, 'rules.md', 'x'.repeat(MAX - 2));
    const tooLarge = await s.patch({ edits: [{ op: 'append', text: 'abc' }] });
    expect(tooLarge.status).toBe(413);
    // The last line gets its line ending, then the text: exactly the limit.
    const fits = await s.patch({ edits: [{ op: 'append', text: '\n' }] });
    expect(fits.status).toBe(200);
    expect(await fits.json()).toMatchObject({ size_bytes: MAX });
    const empty = await s.patch({ edits: [{ op: 'replace', old: `${'x'.repeat(MAX - 2)}\n\n`, new: '' }] });
    expect(empty.status).toBe(400);
    expect((await detail(empty))[0]).toMatchObject({ loc: ['body', 'edits'], type: 'value_error' });
    expect((await s.bytes()).byteLength).toBe(MAX);
    // The dry run tells the same.
    expect((await s.patch({ edits: [{ op: 'append', text: 'abc' }], dry_run: true })).status).toBe(413);
  });

  test('404 for a missing file or project, 403 for another account, 401 without a key', async (h) => {
    const s = await scene(h);
    const body = JSON.stringify({ edits: [{ op: 'append', text: 'x' }] });
    const headers = { 'Content-Type': 'application/json' };
    const missing = await h.fetch(`/api/projects/${s.projectId}/files/none.md`, {
      method: 'PATCH',
      key: s.apiKey,
      headers,
      body,
    });
    expect(missing.status).toBe(404);
    const other = await h.account('other');
    expect((await h.fetch(s.path, { method: 'PATCH', key: other.apiKey, headers, body })).status).toBe(403);
    const anonymous = await h.fetch(s.path, { method: 'PATCH', headers, body });
    expect(anonymous.status).toBe(401);
    const counted = await s.patch({ edits: [{ op: 'append', text: 'x' }] });
    expect(counted.headers.get('x-ratelimit-limit')).not.toBeNull();
  });
});

describe('the diff', () => {
  serverTest({ settings: { maxFileBytes: 64 * 1024 } })(
    'is null when computing it would take more than 10⁷ line comparisons; the edit is stored all the same',
    async (h) => {
      const s = await scene(h, 'wide.md', 'x\n'.repeat(2000));
      // 2000 changed lines on each side: (2000 + 2000)² comparisons.
      const wide = await s.patch({ edits: [{ op: 'replace', old: 'x', new: 'y', count: 'all' }] });
      expect(wide.status).toBe(200);
      expect(await wide.json()).toMatchObject({ diff: null, revision: 2 });
      expect(await s.text()).toBe('y\n'.repeat(2000));
      // 1500 on each side: 9·10⁶, still given.
      const narrow = await s.patch({
        edits: [{ op: 'replace', old: 'y\n'.repeat(1500), new: 'z\n'.repeat(1500), count: 1 }],
      });
      expect(((await narrow.json()) as Json).diff).toMatch(
        /^--- a\/wide\.md\n\+\+\+ b\/wide\.md\n@@ -1,1503 \+1,1503 @@/,
      );
    },
  );
});

describe('PATCH keeps every byte outside the edited spans', () => {
  const cases: Array<{
    name: string;
    filename: string;
    content: string;
    edits: MarkdownEdit[];
    expected: string;
  }> = [
    {
      name: 'CRLF lines, inserted text used as given',
      filename: 'crlf.md',
      content: '# A\r\n\r\ntext  \r\n\r\n# B\r\nbody\r\n',
      edits: [
        { op: 'append', section: 'A', text: 'lf\n' },
        { op: 'insert', line: 2, text: 'x' },
        { op: 'replace', old: 'body', new: 'BODY', count: 1 },
      ],
      expected: '# A\r\nx\r\n\r\ntext  \r\n\r\nlf\n# B\r\nBODY\r\n',
    },
    {
      name: 'a BOM stays first',
      filename: 'bom.md',
      content: '\uFEFF# Title\nbody\n',
      edits: [
        { op: 'prepend', text: 'lead' },
        { op: 'insert', line: 1, text: 'top' },
      ],
      expected: '\uFEFFtop\nlead\n# Title\nbody\n',
    },
    {
      name: 'front matter kept, headings in it ignored',
      filename: 'front.md',
      content: '---\n# not: heading\ntags: [a]\n---\n# Real\n',
      edits: [
        { op: 'append', section: 'Real', text: 'x' },
        { op: 'prepend', text: 'intro' },
      ],
      expected: '---\n# not: heading\ntags: [a]\n---\nintro\n# Real\nx',
    },
    {
      name: 'MDX: JSX kept byte for byte, headings inside JSX are not sections',
      filename: 'page.mdx',
      content: 'import X from "./x"\n\n# Page\n\n<Box>\n# Inner\n</Box>\n\n# Next {1+1}\n',
      edits: [
        { op: 'append', section: 'Page', text: 'added\n' },
        // An expression is no text: the heading reads `Next`.
        { op: 'replace_section', section: 'Next', text: 'replaced\n' },
      ],
      expected: 'import X from "./x"\n\n# Page\n\n<Box>\n# Inner\n</Box>\n\nadded\n# Next {1+1}\nreplaced\n',
    },
  ];

  test('CRLF, BOM, front matter and MDX files: exact bytes, as the local model says', async (h) => {
    for (const { filename, content, edits, expected } of cases) {
      const s = await scene(h, filename, content);
      const response = await s.patch({ edits });
      expect(response.status, filename).toBe(200);
      const stored = await s.bytes();
      expect(
        stored.equals(Buffer.from(expected, 'utf8')),
        `${filename}: ${JSON.stringify(stored.toString())}`,
      ).toBe(true);
      expect(stored.toString('utf8')).toBe(applyEdits(content, edits, { mdx: filename.endsWith('.mdx') }));
    }
  });

  test('an MDX inner heading cannot be addressed', async (h) => {
    const s = await scene(h, 'inner.mdx', '# Page\n\n<Box>\n# Inner\n</Box>\n');
    expect((await s.patch({ edits: [{ op: 'append', section: 'Inner', text: 'x' }] })).status).toBe(409);
    // In a .md file the same line is a heading (HTML blocks end at a blank line only after their tag line).
    const md = await scene(h, 'inner.md', '# Page\n\n<Box>\n\n# Inner\n</Box>\n');
    expect((await md.patch({ edits: [{ op: 'append', section: 'Inner', text: 'x' }] })).status).toBe(200);
  });
});

describe('PATCH replace edits against a local model', () => {
  const unit = fc.constantFrom('a', 'b', 'é', '\n', '\r\n', ' ', '#', '日');
  const edit = fc.record({
    op: fc.constant('replace' as const),
    old: fc.string({ unit, minLength: 1, maxLength: 3 }),
    new: fc.string({ unit, maxLength: 4 }),
    count: fc.oneof(fc.constant('all' as const), fc.integer({ min: 1, max: 3 })),
  });

  test('applying them through the API equals applying them to the string, or fails where it fails', async (h) => {
    const { apiKey } = await h.account();
    const { id: projectId } = await h.createProject(apiKey, 'Model');
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit, minLength: 1, maxLength: 60 }),
        fc.array(edit, { minLength: 1, maxLength: 4 }),
        async (content, edits) => {
          const filename = `m${n++}.md`;
          await h.uploadFile(apiKey, projectId, filename, content);
          const path = `/api/projects/${projectId}/files/${filename}`;
          const response = await h.json(path, 'PATCH', apiKey, { edits });
          let expected: string | { failedAt: number } | null;
          try {
            expected = applyEdits(content, edits, { mdx: false });
          } catch (error) {
            const issue = (error as { issues: Issue[] }).issues[0]!;
            expected = { failedAt: issue.loc[2] as number };
          }
          const stored = await (await h.fetch(path, { key: apiKey })).text();
          if (typeof expected === 'string' && expected !== '') {
            expect(response.status).toBe(200);
            expect(stored).toBe(expected);
          } else if (expected === '') {
            expect(response.status).toBe(400);
            expect(stored).toBe(content);
          } else {
            expect(response.status).toBe(409);
            expect((await detail(response))[0]!.loc).toEqual(['body', 'edits', expected!.failedAt, 'old']);
            expect(stored).toBe(content);
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});

/** A turn of the event loop: lets another request run between reading a version and committing. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Binds a method of an adapter object (adapters may be classes). */
function bound<T extends object>(target: T, name: PropertyKey): unknown {
  const value = Reflect.get(target, name, target) as unknown;
  return typeof value === 'function' ? value.bind(target) : value;
}

/**
 * The suite's adapters, with a turn of the event loop before each content read. On the memory adapters
 * every step of a request otherwise runs in one go, so concurrent edits would never overlap there; with
 * it they do on every adapter set, and a lost update could not hide.
 */
const interleaving: AdapterFactory = async () => {
  const adapters = await selectedAdapters()();
  const records = new Proxy(adapters.records, {
    get: (target, name) =>
      name === 'readInlineContent'
        ? async (q: Parameters<RecordsRepository['readInlineContent']>[0]) => {
            await turn();
            return target.readInlineContent(q);
          }
        : bound(target, name),
  });
  const blobs = new Proxy(adapters.blobs, {
    get: (target, name) =>
      name === 'get'
        ? async (o: Parameters<BlobStore['get']>[0]) => {
            await turn();
            return target.get(o);
          }
        : bound(target, name),
  });
  return { ...adapters, records, blobs, close: () => adapters.close() };
};

describe('concurrent PATCH', () => {
  const test = serverTest({ adapters: interleaving });

  /** A PATCH for `race`: sent with `Expect: 100-continue`, its body held until every writer is past its first checks. */
  const racer = (
    s: { apiKey: string; path: string },
    edits: unknown,
    headers: Record<string, string> = {},
  ) => ({
    method: 'PATCH',
    path: s.path,
    headers: { authorization: `Bearer ${s.apiKey}`, 'content-type': 'application/json', ...headers },
    body: Buffer.from(JSON.stringify({ edits })),
  });

  test('with the same If-Match: exactly one wins, the others are 412 and change nothing', async (h) => {
    const s = await scene(h, 'race.md', 'start\n');
    const { answers, continued } = await race(
      h.url,
      Array.from({ length: 12 }, (_, i) =>
        racer(s, [{ op: 'append', text: `line ${i}\n` }], { 'if-match': s.etag }),
      ),
    );
    // Every writer got past the first If-Match check: only the one in the commit could refuse.
    expect(continued).toBe(12);
    const winner = soleWinner(answers);
    const won = JSON.parse(answers[winner]!.body) as Json;
    for (const [index, answer] of answers.entries()) {
      if (index === winner) continue;
      expect(answer.status, `writer ${index}`).toBe(412);
      expect(answer.headers.etag).toBe(won.etag);
    }
    expect(await s.text()).toBe(`start\nline ${winner}\n`);
    expect(await s.file()).toMatchObject({ revision: 2, etag: won.etag });
  });

  test('without If-Match: every edit is applied, none is lost (each retried on the newer content)', async (h) => {
    const s = await scene(h, 'merge.md', 'start\n');
    const count = 8;
    const { answers, continued } = await race(
      h.url,
      Array.from({ length: count }, (_, i) => racer(s, [{ op: 'append', text: `line ${i}\n` }])),
    );
    expect(continued).toBe(count);
    expect(answers.map((answer) => `${answer.status} ${answer.status === 200 ? '' : answer.body}`)).toEqual(
      Array(count).fill('200 '),
    );
    const revisions = answers.map((answer) => (JSON.parse(answer.body) as Json).revision);
    expect([...revisions].sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: count }, (_, i) => i + 2),
    );
    const lines = (await s.text()).split('\n');
    expect(lines[0]).toBe('start');
    expect(lines.slice(1, -1).sort()).toEqual(Array.from({ length: count }, (_, i) => `line ${i}`).sort());
    expect(await s.file()).toMatchObject({ revision: count + 1 });
  });

  test('an edit racing a content update applies to the newer content, or fails as it would on it', async (h) => {
    const s = await scene(h, 'newer.md', 'alpha\n');
    const put = (content: string) =>
      h.fetch(`${s.path}/content`, {
        method: 'PUT',
        key: s.apiKey,
        headers: { 'Content-Type': 'text/markdown' },
        body: content,
      });
    const [edit, update] = await Promise.all([
      s.patch({ edits: [{ op: 'append', text: 'edited\n' }] }),
      put('beta\n'),
    ]);
    expect([edit.status, update.status]).toEqual([200, 200]);
    const final = await s.text();
    // Either order is fine; the edit is never lost unless the update came after it.
    expect(['beta\nedited\n', 'beta\n']).toContain(final);
    if (final === 'beta\n') expect(((await edit.json()) as Json).revision).toBe(2);
  });
});
