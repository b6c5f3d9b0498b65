import { describe, expect } from 'vitest';
import { type ReadEntry, readTarGz, readZip, sha256Hex } from '../support/archives.js';
import { type HttpHarness, serverTest } from '../support/http-harness.js';

/**
 * Export (extensions §10): `GET /api/projects/{id}/export?format=zip|tar.gz&prefix=` streams an
 * archive with every file at its filename, byte for byte, and `mdstore.json`; `Content-Disposition:
 * attachment` names it after the project. Read back with yauzl and tar-stream.
 */
const test = serverTest();

const FORMATS = [
  { format: 'zip', type: 'application/zip', read: readZip },
  { format: 'tar.gz', type: 'application/gzip', read: readTarGz },
] as const;

interface Manifest {
  project: { name: string; description: string | null; settings: Record<string, unknown> };
  files: Array<{
    filename: string;
    metadata: unknown;
    sha256: string;
    revision: number;
    created_date: string;
    updated_date: string;
  }>;
  skipped?: unknown;
}

const FILES: Record<string, string> = {
  'README.md': '# Notes\n',
  'guides/setup.md': '# Setup\n\n1. install\n',
  'guides/deep/more.mdx': '# More <Thing />\n',
  'r\u00e9sum\u00e9 \u65e5\u672c.md': '# R\u00e9sum\u00e9 \u{1F600}\n',
  'caf\u00e9s/\u00e9t\u00e9.md': '# \u00c9t\u00e9\n',
  'A "quoted" name.md': "# it's\r\n",
};

async function exportOf(h: HttpHarness, key: string, projectId: string, query = '') {
  const response = await h.fetch(`/api/projects/${projectId}/export${query}`, { key });
  const body = Buffer.from(await response.arrayBuffer());
  return { response, body };
}

async function projectWithFiles(h: HttpHarness, name = 'Caf\u00e9 notes') {
  const { apiKey } = await h.account();
  const response = await h.json('/api/projects', 'POST', apiKey, {
    name,
    description: 'what I keep',
    settings: { keep_revisions: 5 },
  });
  expect(response.status).toBe(201);
  const { id } = (await response.json()) as { id: string };
  for (const [filename, text] of Object.entries(FILES)) {
    const metadata = filename === 'README.md' ? { tags: ['top'], n: 1 } : undefined;
    const parts = [{ name: 'file', filenameStar: filename, data: text }];
    if (metadata) parts.unshift({ name: 'metadata', data: JSON.stringify(metadata) } as never);
    const uploaded = await h.upload(apiKey, id, parts);
    expect(uploaded.status, await uploaded.clone().text()).toBe(201);
  }
  // A second revision, so revision and dates are not all first ones.
  const changed = await h.fetch(
    `/api/projects/${id}/files/${encodeURIComponent('guides/setup.md')}/content`,
    {
      method: 'PUT',
      key: apiKey,
      headers: { 'Content-Type': 'text/markdown' },
      body: FILES['guides/setup.md'],
    },
  );
  expect(changed.status).toBe(200);
  return { apiKey, projectId: id };
}

const byName = (entries: ReadEntry[]) => Object.fromEntries(entries.map((e) => [e.name, e]));

async function listed(h: HttpHarness, key: string, projectId: string) {
  const response = await h.fetch(`/api/projects/${projectId}/files`, { key });
  return ((await response.json()) as { files: Array<Record<string, unknown>> }).files;
}

describe('export (extensions §10)', () => {
  for (const { format, type, read } of FORMATS) {
    test(`${format}: every file at its filename byte for byte, then mdstore.json describing them`, async (h) => {
      const { apiKey, projectId } = await projectWithFiles(h);
      const { response, body } = await exportOf(h, apiKey, projectId, `?format=${format}`);
      expect(response.status, body.toString()).toBe(200);
      expect(response.headers.get('content-type')).toBe(type);
      const extension = format === 'zip' ? 'zip' : 'tar.gz';
      expect(response.headers.get('content-disposition')).toBe(
        `attachment; filename="Caf_ notes.${extension}"; filename*=UTF-8''Caf%C3%A9%20notes.${extension}`,
      );
      expect(response.headers.get('x-ratelimit-limit')).not.toBeNull();
      const entries = await read(body);
      const names = entries.map((e) => e.name);
      expect(names).toEqual([...Object.keys(FILES)].sort().concat('mdstore.json'));
      expect(entries.every((e) => e.type === 'file')).toBe(true);
      const got = byName(entries);
      for (const [filename, text] of Object.entries(FILES)) {
        expect(got[filename]?.bytes.equals(Buffer.from(text, 'utf8')), filename).toBe(true);
      }
      const manifest = JSON.parse(got['mdstore.json']!.bytes.toString('utf8')) as Manifest;
      expect(manifest.project).toEqual({
        name: 'Caf\u00e9 notes',
        description: 'what I keep',
        settings: {
          require_if_match: false,
          keep_revisions: 5,
          trash_retention_days: 0,
          keep_revisions_days: 0,
        },
      });
      expect(manifest.skipped).toBeUndefined();
      const files = await listed(h, apiKey, projectId);
      expect(manifest.files).toEqual(
        files.map((f) => ({
          filename: f.filename,
          metadata: f.metadata,
          sha256: f.sha256,
          revision: f.revision,
          created_date: f.created_date,
          updated_date: f.updated_date,
        })),
      );
      for (const file of manifest.files) expect(sha256Hex(got[file.filename]!.bytes)).toBe(file.sha256);
      expect(manifest.files.find((f) => f.filename === 'guides/setup.md')?.revision).toBe(2);
      expect(manifest.files.find((f) => f.filename === 'README.md')?.metadata).toEqual({
        tags: ['top'],
        n: 1,
      });
    });

    test(`${format}: prefix narrows the files; an empty project or prefix has mdstore.json alone`, async (h) => {
      const { apiKey, projectId } = await projectWithFiles(h);
      const guides = await exportOf(
        h,
        apiKey,
        projectId,
        `?format=${format}&prefix=${encodeURIComponent('guides/')}`,
      );
      expect(guides.response.status).toBe(200);
      const entries = await read(guides.body);
      expect(entries.map((e) => e.name)).toEqual(['guides/deep/more.mdx', 'guides/setup.md', 'mdstore.json']);
      const manifest = JSON.parse(byName(entries)['mdstore.json']!.bytes.toString()) as Manifest;
      expect(manifest.files.map((f) => f.filename)).toEqual(['guides/deep/more.mdx', 'guides/setup.md']);
      const accented = await exportOf(
        h,
        apiKey,
        projectId,
        `?format=${format}&prefix=${encodeURIComponent('caf\u00e9s/')}`,
      );
      expect((await read(accented.body)).map((e) => e.name)).toEqual([
        'caf\u00e9s/\u00e9t\u00e9.md',
        'mdstore.json',
      ]);

      const none = await exportOf(h, apiKey, projectId, `?format=${format}&prefix=nothing/`);
      const noneEntries = await read(none.body);
      expect(noneEntries.map((e) => e.name)).toEqual(['mdstore.json']);
      const empty = await h.createProject(apiKey, 'Empty');
      const emptyExport = await exportOf(h, apiKey, empty.id, `?format=${format}`);
      expect(emptyExport.response.status).toBe(200);
      const only = await read(emptyExport.body);
      expect(only.map((e) => e.name)).toEqual(['mdstore.json']);
      expect(JSON.parse(only[0]!.bytes.toString())).toMatchObject({ project: { name: 'Empty' }, files: [] });
    });
  }

  test('HEAD answers the headers without reading any file', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    await h.uploadFile(apiKey, defaultProjectId, 'a.md', '# a\n');
    const head = await h.fetch(`/api/projects/${defaultProjectId}/export?format=tar.gz`, {
      method: 'HEAD',
      key: apiKey,
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('application/gzip');
    expect(head.headers.get('content-disposition')).toContain('filename="Default.tar.gz"');
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });

  test('zip is the default format', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    await h.uploadFile(apiKey, defaultProjectId, 'a.md', '# a\n');
    const { response, body } = await exportOf(h, apiKey, defaultProjectId);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/zip');
    expect((await readZip(body)).map((e) => e.name)).toEqual(['a.md', 'mdstore.json']);
  });

  test('refusals come as the other routes give them, before any archive byte', async (h) => {
    const alice = await h.account();
    const bob = await h.account();
    const anonymous = await h.fetch(`/api/projects/${alice.defaultProjectId}/export`);
    expect(anonymous.status).toBe(401);
    const foreign = await exportOf(h, bob.apiKey, alice.defaultProjectId);
    expect(foreign.response.status).toBe(403);
    const missing = await exportOf(h, alice.apiKey, '00000000-0000-4000-8000-000000000000');
    expect(missing.response.status).toBe(404);
    const badFormat = await exportOf(h, alice.apiKey, alice.defaultProjectId, '?format=rar');
    expect(badFormat.response.status).toBe(422);
    expect(JSON.parse(badFormat.body.toString())).toEqual({
      detail: [{ loc: ['query', 'format'], msg: "Input should be 'zip' or 'tar.gz'", type: 'enum' }],
    });
    const twice = await exportOf(h, alice.apiKey, alice.defaultProjectId, '?format=zip&format=zip');
    expect(twice.response.status).toBe(422);
    const longPrefix = await exportOf(h, alice.apiKey, alice.defaultProjectId, `?prefix=${'x'.repeat(1025)}`);
    expect(longPrefix.response.status).toBe(422);
    expect(JSON.parse(longPrefix.body.toString()).detail[0].loc).toEqual(['query', 'prefix']);
    const post = await h.fetch(`/api/projects/${alice.defaultProjectId}/export`, {
      method: 'POST',
      key: alice.apiKey,
    });
    expect(post.status).toBe(405);
  });

  test('a name a zip cannot hold (a drive letter) is left out of a zip and listed; a tar.gz holds it', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    const uploaded = await h.upload(apiKey, defaultProjectId, [
      { name: 'file', filenameStar: 'C:notes.md', data: '# c\n' },
    ]);
    expect(uploaded.status).toBe(201);
    await h.uploadFile(apiKey, defaultProjectId, 'b.md', '# b\n');
    const zip = await readZip((await exportOf(h, apiKey, defaultProjectId)).body);
    expect(zip.map((e) => e.name)).toEqual(['b.md', 'mdstore.json']);
    const manifest = JSON.parse(byName(zip)['mdstore.json']!.bytes.toString()) as Manifest;
    expect(manifest.files.map((f) => f.filename)).toEqual(['b.md']);
    expect(manifest.skipped).toEqual([
      { filename: 'C:notes.md', reason: 'a zip cannot name it (drive letter)' },
    ]);
    const tar = await readTarGz((await exportOf(h, apiKey, defaultProjectId, '?format=tar.gz')).body);
    expect(tar.map((e) => e.name)).toEqual(['C:notes.md', 'b.md', 'mdstore.json']);
  });
});
