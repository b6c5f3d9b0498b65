import { createHash } from 'node:crypto';
import { describe, expect } from 'vitest';
import { type HttpHarness, serverTest } from '../support/http-harness.js';

/**
 * Move of an attachment (extensions §12) over HTTP, on whichever adapter set runs the suite (memory here;
 * SQLite + filesystem and Postgres + S3 through test/matrix): `POST …/attachments/{path}/move` with
 * `to`, `rewrite_links` and `dry_run`, as a file's move (§5, §9): the same bytes at the new path (read
 * back there, 404 at the old one), 409 for a taken or Markdown target, 404 for a missing source, 412 for
 * a failed `If-Match`, roles and a key's folders, the `attachment.moved` event and the audit entry; with
 * `rewrite_links` the links and embeds in notes rewritten in one changeset, and a dry run writing nothing.
 */
const test = serverTest();

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

interface MovedJson {
  path: string;
  project_id: string;
  size_bytes: number;
  content_type: string;
  sha256: string;
  etag: string;
  created_date: string;
  updated_date: string;
  rewritten?: Array<{ filename: string; links: number }>;
}

interface ChangeJson {
  seq: number;
  type: string;
  filename: string | null;
  from: string | null;
  etag: string | null;
  changeset_id: string | null;
}

async function scene(h: HttpHarness) {
  const { apiKey, defaultProjectId: projectId } = await h.account();
  const base = `/api/projects/${projectId}`;
  const url = (path: string) => `${base}/attachments/${encodeURIComponent(path)}`;
  const put = async (path: string, body: Buffer, type: string) => {
    const response = await h.fetch(url(path), {
      method: 'PUT',
      key: apiKey,
      headers: { 'Content-Type': type },
      body,
    });
    expect(response.status).toBe(201);
    return (await response.json()) as MovedJson;
  };
  const get = (path: string, key = apiKey) => h.fetch(url(path), { key });
  const move = (path: string, body: unknown, o: { key?: string; headers?: Record<string, string> } = {}) =>
    h.fetch(`${url(path)}/move`, {
      method: 'POST',
      key: o.key ?? apiKey,
      headers: { 'Content-Type': 'application/json', ...o.headers },
      body: JSON.stringify(body),
    });
  const note = (filename: string, text: string) => h.uploadFile(apiKey, projectId, filename, text);
  const text = async (filename: string) => {
    const response = await h.fetch(`${base}/files/${encodeURIComponent(filename)}`, {
      key: apiKey,
    });
    expect(response.status).toBe(200);
    return response.text();
  };
  const paths = async () => {
    const response = await h.fetch(`${base}/attachments`, { key: apiKey });
    return ((await response.json()) as { attachments: MovedJson[] }).attachments.map((a) => a.path);
  };
  const changes = async (since = 0) => {
    const response = await h.fetch(`/api/changes?since=${since}&limit=1000`, { key: apiKey });
    return ((await response.json()) as { changes: ChangeJson[] }).changes;
  };
  const key = async (body: Record<string, unknown>) => {
    const made = await h.json('/api/keys', 'POST', apiKey, { name: 'other', ...body });
    expect(made.status).toBe(201);
    return ((await made.json()) as { api_key: string }).api_key;
  };
  return { apiKey, projectId, base, put, get, move, note, text, paths, changes, key };
}

const detailOf = async (response: Response) => ((await response.json()) as { detail: unknown }).detail;

describe('POST /api/projects/{id}/attachments/{path}/move (extensions §12)', () => {
  test('moves: the same bytes at the new path, 404 at the old, a new ETag, the event and the audit entry', async (h) => {
    const s = await scene(h);
    const written = await s.put('img/a.png', PNG, 'image/png');
    const project = async () =>
      (await (await h.fetch(s.base, { key: s.apiKey })).json()) as Record<string, number>;
    const before = await project();
    const response = await s.move('img/a.png', { to: 'pics/ü b.png' });
    expect(response.status).toBe(200);
    const moved = (await response.json()) as MovedJson;
    expect(moved).toEqual({
      path: 'pics/ü b.png',
      project_id: s.projectId,
      size_bytes: PNG.length,
      content_type: 'image/png',
      sha256: sha(PNG),
      etag: expect.any(String),
      created_date: written.created_date,
      updated_date: expect.any(String),
    });
    expect(moved.etag).not.toBe(written.etag);
    expect(response.headers.get('etag')).toBe(moved.etag);

    // A reader gets the bytes at the new path, and 404 at the old one.
    const reader = await s.key({ role: 'read' });
    const read = await s.get('pics/ü b.png', reader);
    expect(read.status).toBe(200);
    expect(read.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await read.arrayBuffer())).toEqual(PNG);
    const old = await s.get('img/a.png', reader);
    expect(old.status).toBe(404);
    expect(await detailOf(old)).toBe('Attachment not found');
    expect(await s.paths()).toEqual(['pics/ü b.png']);
    const after = await project();
    expect([after.attachment_count, after.attachment_bytes]).toEqual([
      before.attachment_count,
      before.attachment_bytes,
    ]);

    // The change feed: attachment.moved with the old path in `from`.
    const event = (await s.changes()).at(-1)!;
    expect(event).toMatchObject({
      type: 'attachment.moved',
      filename: 'pics/ü b.png',
      from: 'img/a.png',
      etag: moved.etag,
      changeset_id: null,
    });
    await h.audit.flush();
    const audit = await h.fetch('/api/audit?limit=100', { key: s.apiKey });
    const entries = (
      (await audit.json()) as { entries: Array<{ action: string; filename: string | null; status: number }> }
    ).entries;
    expect(
      entries.filter((e) => e.action.includes('/move')).map((e) => [e.action, e.filename, e.status]),
    ).toEqual([['POST /api/projects/:project_id/attachments/:path/move', 'img/a.png', 200]]);
  });

  test('refusals: 404 missing, 409 taken or Markdown, 400 a bad path, 422 no to, 412 If-Match, 403 a read key', async (h) => {
    const s = await scene(h);
    const a = await s.put('a.png', PNG, 'image/png');
    await s.put('docs/q3.pdf', PDF, 'application/pdf');
    const missing = await s.move('none.png', { to: 'x.png' });
    expect(missing.status).toBe(404);
    expect(await detailOf(missing)).toBe('Attachment not found');
    const taken = await s.move('a.png', { to: 'docs/q3.pdf' });
    expect(taken.status).toBe(409);
    expect(await detailOf(taken)).toBe("Attachment with path 'docs/q3.pdf' already exists");
    const takenRewriting = await s.move('a.png', { to: 'docs/q3.pdf', rewrite_links: true });
    expect(takenRewriting.status).toBe(409);
    const markdown = await s.move('a.png', { to: 'notes/a.md' });
    expect(markdown.status).toBe(409);
    expect(await detailOf(markdown)).toMatch(/names a Markdown file/);
    expect((await s.move('a.png', { to: 'a/../../x.png' })).status).toBe(400);
    expect((await s.move('a.png', {})).status).toBe(422);
    const failed = await s.move('a.png', { to: 'b.png' }, { headers: { 'If-Match': '"not-it-1"' } });
    expect(failed.status).toBe(412);
    const reader = await s.key({ role: 'read' });
    expect((await s.move('a.png', { to: 'b.png' }, { key: reader })).status).toBe(403);
    const stranger = await h.account();
    expect((await s.move('a.png', { to: 'b.png' }, { key: stranger.apiKey })).status).toBe(403);
    expect(await s.paths()).toEqual(['a.png', 'docs/q3.pdf']);
    expect((await s.changes()).filter((e) => e.type === 'attachment.moved')).toEqual([]);
    // With the ETag it holds: moved (with rewrite_links and no link to rewrite: a changeset of its own).
    const held = await s.move(
      'a.png',
      { to: 'b.png', rewrite_links: true },
      { headers: { 'If-Match': a.etag } },
    );
    expect(held.status).toBe(200);
    expect(((await held.json()) as MovedJson).rewritten).toEqual([]);
    expect(await s.paths()).toEqual(['b.png', 'docs/q3.pdf']);
    const [event] = (await s.changes()).filter((e) => e.type === 'attachment.moved');
    expect(event).toMatchObject({ filename: 'b.png', from: 'a.png', changeset_id: expect.any(String) });
  });

  test('a key confined to folders must reach both paths: 404 outside, whichever of the two it is', async (h) => {
    const s = await scene(h);
    await s.put('memories/a.png', PNG, 'image/png');
    await s.put('top.png', PNG, 'image/png');
    const agent = await s.key({ role: 'write', path_prefixes: ['memories/'] });
    const out = await s.move('memories/a.png', { to: 'elsewhere/a.png' }, { key: agent });
    expect(out.status).toBe(404);
    expect(await detailOf(out)).toBe('Attachment not found');
    expect((await s.move('top.png', { to: 'memories/top.png' }, { key: agent })).status).toBe(404);
    expect(await s.paths()).toEqual(['memories/a.png', 'top.png']);
    const inside = await s.move('memories/a.png', { to: 'memories/deep/a.png' }, { key: agent });
    expect(inside.status).toBe(200);
  });

  test('rewrite_links: images, embeds and links in notes rewritten, one changeset; dry_run writes nothing', async (h) => {
    const s = await scene(h);
    await s.put('img/a.png', PNG, 'image/png');
    await s.put('a.png', PNG, 'image/png');
    await s.put('docs/q3.pdf', PDF, 'application/pdf');
    await s.note('index.md', '# Index\n\n![alt](img/a.png) and [report](docs/q3.pdf)\n');
    await s.note('notes/n.md', 'See ![](../img/a.png) and ![[a.png]] and [[docs/q3.pdf]].\n');
    await s.note('other.md', 'Nothing here: `![](img/a.png)`\n');
    const since = (await s.changes()).at(-1)!.seq;

    const dry = await s.move('img/a.png', { to: 'pics/b.png', rewrite_links: true, dry_run: true });
    expect(dry.status).toBe(200);
    const plan = (await dry.json()) as MovedJson;
    expect(plan.path).toBe('pics/b.png');
    expect(plan.rewritten).toEqual([
      { filename: 'index.md', links: 1 },
      { filename: 'notes/n.md', links: 1 },
    ]);
    expect(await s.paths()).toEqual(['a.png', 'docs/q3.pdf', 'img/a.png']);
    expect(await s.text('index.md')).toBe('# Index\n\n![alt](img/a.png) and [report](docs/q3.pdf)\n');
    expect(await s.changes(since)).toEqual([]);

    const response = await s.move('img/a.png', { to: 'pics/b.png', rewrite_links: true });
    expect(response.status).toBe(200);
    expect(((await response.json()) as MovedJson).rewritten).toEqual(plan.rewritten);
    expect(await s.text('index.md')).toBe('# Index\n\n![alt](pics/b.png) and [report](docs/q3.pdf)\n');
    expect(await s.text('notes/n.md')).toBe('See ![](../pics/b.png) and ![[a.png]] and [[docs/q3.pdf]].\n');
    expect(await s.text('other.md')).toBe('Nothing here: `![](img/a.png)`\n');
    // One changeset: the event of the move and those of the rewritten notes carry one id.
    const events = await s.changes(since);
    expect(events.map((e) => [e.type, e.filename, e.from]).sort()).toEqual([
      ['attachment.moved', 'pics/b.png', 'img/a.png'],
      ['file.updated', 'index.md', null],
      ['file.updated', 'notes/n.md', null],
    ]);
    const ids = new Set(events.map((e) => e.changeset_id));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toEqual(expect.any(String));

    // A wiki embed by its name alone still names it in its new folder (the name is its own): nothing to
    // rewrite.
    const embed = await s.move('a.png', { to: 'img/a.png', rewrite_links: true });
    expect(((await embed.json()) as MovedJson).rewritten).toEqual([]);
    const pdf = await s.move('docs/q3.pdf', { to: 'reports/2026/q3.pdf', rewrite_links: true });
    // `[[docs/q3.pdf]]` still resolves by its last segment, the name being this attachment's alone (the
    // rule of files, extensions §9): only the Markdown link changes.
    expect(((await pdf.json()) as MovedJson).rewritten).toEqual([{ filename: 'index.md', links: 1 }]);
    expect(await s.text('index.md')).toBe(
      '# Index\n\n![alt](pics/b.png) and [report](reports/2026/q3.pdf)\n',
    );
    expect(await s.text('notes/n.md')).toBe('See ![](../pics/b.png) and ![[a.png]] and [[docs/q3.pdf]].\n');
    // Every link resolves to the attachments at their new paths.
    const broken = await h.fetch(`${s.base}/links/broken`, { key: s.apiKey });
    expect(((await broken.json()) as { links: unknown[] }).links).toEqual([]);
    const reader = await s.key({ role: 'read' });
    expect((await s.get('reports/2026/q3.pdf', reader)).status).toBe(200);
    expect((await s.get('docs/q3.pdf', reader)).status).toBe(404);
  });
});
