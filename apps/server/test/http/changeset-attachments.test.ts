import { describe, expect } from 'vitest';
import { expectNothingLeftBehind, projectJson, spyingAdapters } from '../support/conditional.js';
import { type HttpHarness, serverTest } from '../support/http-harness.js';

/**
 * Changesets carry attachments (extensions §9, §12; issue 37): `attach` and `detach` in the changeset's
 * one transaction, so a note and the images it embeds land together or not at all. Runs on every
 * adapter set of the matrix (`MDSTORE_HTTP_TEST_ADAPTERS`); `expectNothingLeftBehind` checks that a
 * failed changeset leaves no blob and no staged note.
 */
const { factory, spied } = spyingAdapters();
const test = serverTest({ adapters: factory, settings: { maxFileBytes: 4096, maxAttachmentBytes: 4096 } });

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
type Issue = { loc: unknown[]; msg: string; type: string };

async function scene(h: HttpHarness) {
  const { apiKey, defaultProjectId: projectId } = await h.account();
  const apply = async (body: unknown) => {
    const response = await h.json(`/api/projects/${projectId}/changesets`, 'POST', apiKey, body);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const attachment = (path: string) =>
    h.fetch(`/api/projects/${projectId}/attachments/${encodeURIComponent(path)}`, { key: apiKey });
  const links = async (filename: string) => {
    const url = `/api/projects/${projectId}/files/${encodeURIComponent(filename)}/links`;
    return (await (await h.fetch(url, { key: apiKey })).json()) as { outgoing: Record<string, unknown>[] };
  };
  const broken = async () =>
    (await (await h.fetch(`/api/projects/${projectId}/links/broken`, { key: apiKey })).json()) as {
      links: unknown[];
    };
  const project = async () => (await projectJson(h, apiKey, projectId)).body as Record<string, unknown>;
  const events = async () => {
    const response = await h.fetch('/api/changes?since=0&limit=1000', { key: apiKey });
    const body = (await response.json()) as {
      changes: { type: string; filename: string; changeset_id: string }[];
    };
    return body.changes.filter((event) => event.type.startsWith('attachment.'));
  };
  return { apiKey, projectId, apply, attachment, links, broken, project, events };
}

const note = { op: 'put', filename: 'notes/a.md', content: '# A\n\n![](img/a.png)\n' };
const attach = (path: string, type = 'image/png', bytes: Buffer = PNG) => ({
  op: 'attach',
  path,
  content_base64: bytes.toString('base64'),
  content_type: type,
});

describe('changesets with attachments', () => {
  test('a note and the image it embeds land together: the link resolves; attach answers the attachment', async (h) => {
    const s = await scene(h);
    const answer = await s.apply({ operations: [note, attach('notes/img/a.png')] });
    expect(answer.status).toBe(200);
    const files = answer.body.files as Record<string, unknown>[];
    expect(files[0]).toMatchObject({ filename: 'notes/a.md' });
    expect(files[1]).toMatchObject({
      path: 'notes/img/a.png',
      content_type: 'image/png',
      size_bytes: PNG.length,
      project_id: s.projectId,
    });
    expect(files[1]).not.toHaveProperty('filename');
    const read = await s.attachment('notes/img/a.png');
    expect(read.status).toBe(200);
    expect(Buffer.from(await read.arrayBuffer()).equals(PNG)).toBe(true);
    expect((await s.links('notes/a.md')).outgoing).toMatchObject([
      { target: 'notes/img/a.png', resolved: true },
    ]);
    expect((await s.broken()).links).toEqual([]);
    expect(await s.project()).toMatchObject({
      file_count: 1,
      attachment_count: 1,
      attachment_bytes: PNG.length,
    });
    expect(await s.events()).toMatchObject([
      { type: 'attachment.created', filename: 'notes/img/a.png', changeset_id: answer.body.changeset_id },
    ]);
    await expectNothingLeftBehind(h, spied, s.projectId);
  });

  test('a failing operation in the same changeset writes neither the note nor the image', async (h) => {
    const s = await scene(h);
    const answer = await s.apply({
      operations: [note, attach('notes/img/a.png'), { op: 'delete', filename: 'nothing.md' }],
    });
    expect(answer.status).toBe(409);
    expect((answer.body.detail as Issue[])[0]!.loc).toEqual(['body', 'operations', 2]);
    expect((await s.attachment('notes/img/a.png')).status).toBe(404);
    expect(await s.project()).toMatchObject({ file_count: 0, attachment_count: 0 });
    expect(await s.events()).toEqual([]);
    await expectNothingLeftBehind(h, spied, s.projectId);
  });

  test('a PNG sent as image/jpeg is refused (415); a .md path is 409; a detach of nothing 404', async (h) => {
    const s = await scene(h);
    const mismatch = await s.apply({ operations: [note, attach('notes/img/a.png', 'image/jpeg')] });
    expect(mismatch.status).toBe(415);
    expect((mismatch.body.detail as Issue[])[0]).toMatchObject({
      loc: ['body', 'operations', 1],
      type: 'content_type_mismatch',
    });
    const markdown = await s.apply({ operations: [attach('x.md', 'text/markdown', Buffer.from('# x'))] });
    expect(markdown.status).toBe(409);
    const missing = await s.apply({ operations: [{ op: 'detach', path: 'nothing.png' }] });
    expect(missing.status).toBe(404);
    expect((missing.body.detail as Issue[])[0]!.loc).toEqual(['body', 'operations', 0]);
    const tooLarge = await s.apply({
      operations: [attach('big.bin', 'application/octet-stream', Buffer.alloc(4097))],
    });
    expect(tooLarge.status).toBe(413);
    expect(await s.project()).toMatchObject({ file_count: 0, attachment_count: 0 });
    await expectNothingLeftBehind(h, spied, s.projectId);
  });

  test('detach deletes; the change feed shows created, updated and deleted with the changeset ids', async (h) => {
    const s = await scene(h);
    const first = await s.apply({ operations: [attach('a.png')] });
    const gif = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1');
    const second = await s.apply({ operations: [attach('a.png', 'image/gif', gif)] });
    expect((second.body.files as Record<string, unknown>[])[0]).toMatchObject({ content_type: 'image/gif' });
    const third = await s.apply({ operations: [{ op: 'detach', path: 'a.png' }] });
    expect(third.status).toBe(200);
    expect(third.body.files).toEqual([{ path: 'a.png', deleted: true }]);
    expect((await s.attachment('a.png')).status).toBe(404);
    expect(await s.project()).toMatchObject({ attachment_count: 0, attachment_bytes: 0 });
    expect((await s.events()).map((event) => [event.type, event.changeset_id])).toEqual([
      ['attachment.created', first.body.changeset_id],
      ['attachment.updated', second.body.changeset_id],
      ['attachment.deleted', third.body.changeset_id],
    ]);
    await expectNothingLeftBehind(h, spied, s.projectId);
  });
});
