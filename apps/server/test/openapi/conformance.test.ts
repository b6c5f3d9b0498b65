import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteFsAdapters } from '../support/adapters.js';
import { craftZip } from '../support/crafted-archives.js';
import { HttpHarness, multipartBody } from '../support/http-harness.js';
import { DocumentChecker } from './conformance.js';

/**
 * A real server on SQLite + filesystem, driven through every operation of the document it serves
 * (`GET /openapi.json`), with answers that succeed and answers that fail: each one must have a
 * documented status, a body matching the schema of its media type (ajv, JSON Schema 2020-12 with
 * formats) and every header the document says it carries. A new operation without a call here fails
 * the last test.
 */

interface State {
  key: string;
  projectId: string;
  etag: string;
  trashId?: string;
  keyId?: string;
  shareId?: string;
  draftId?: string;
  closedDraftId?: string;
  webhookId?: string;
}

interface Call {
  readonly operationId: string;
  readonly method: string;
  readonly path: (s: State) => string;
  readonly headers?: (s: State) => Record<string, string>;
  readonly body?: (s: State) => { type: string; data: string | Buffer };
  /** The status this call is meant to produce (so a call that goes wrong is not silently "conforming"). */
  readonly expect: number;
  readonly key?: false;
  /** Keeps something of the answer for the next calls. */
  readonly keep?: (s: State, body: Buffer, headers: Headers) => void;
}

const MISSING = '00000000-0000-4000-8000-000000000000';
const project = (s: State) => `/api/projects/${s.projectId}`;
const file = (s: State, name = 'doc.md') => `${project(s)}/files/${encodeURIComponent(name)}`;
const attachment = (s: State, path = 'img/a.pdf') => `${project(s)}/attachments/${encodeURIComponent(path)}`;
const json = (value: unknown) => () => ({ type: 'application/json', data: JSON.stringify(value) });
const sha256 = (text: string) => createHash('sha256').update(text).digest('base64');

const CALLS: Call[] = [
  { operationId: 'getHealth', method: 'GET', path: () => '/healthz', expect: 200, key: false },
  { operationId: 'getReadiness', method: 'GET', path: () => '/readyz', expect: 200, key: false },
  { operationId: 'listProjects', method: 'GET', path: () => '/api/projects', expect: 401, key: false },
  {
    operationId: 'createProject',
    method: 'POST',
    path: () => '/api/projects',
    body: json({ name: 'Conformance', description: null, settings: { keep_revisions: 5 } }),
    expect: 201,
    keep: (s, body) => {
      s.projectId = JSON.parse(body.toString()).id;
    },
  },
  {
    operationId: 'createProject',
    method: 'POST',
    path: () => '/api/projects',
    body: json({ name: 'Conformance' }),
    expect: 409,
  },
  { operationId: 'createProject', method: 'POST', path: () => '/api/projects', body: json({}), expect: 400 },
  {
    operationId: 'createProject',
    method: 'POST',
    path: () => '/api/projects',
    body: json({ name: 7 }),
    expect: 422,
  },
  { operationId: 'listProjects', method: 'GET', path: () => '/api/projects?limit=1', expect: 200 },
  { operationId: 'listProjects', method: 'GET', path: () => '/api/projects', expect: 200 },
  { operationId: 'listProjects', method: 'GET', path: () => '/api/projects?limit=x', expect: 422 },
  {
    operationId: 'getProject',
    method: 'GET',
    path: project,
    expect: 200,
    keep: (s, _b, h) => {
      s.etag = h.get('etag')!;
    },
  },
  {
    operationId: 'getProject',
    method: 'GET',
    path: project,
    headers: (s) => ({ 'If-None-Match': s.etag }),
    expect: 304,
  },
  { operationId: 'getProject', method: 'GET', path: () => `/api/projects/${MISSING}`, expect: 404 },
  { operationId: 'getProject', method: 'GET', path: () => '/api/projects/not-a-uuid', expect: 422 },
  {
    operationId: 'updateProject',
    method: 'PUT',
    path: project,
    headers: () => ({ 'If-Match': '"stale"' }),
    body: json({ description: 'x' }),
    expect: 412,
  },
  {
    operationId: 'updateProject',
    method: 'PUT',
    path: project,
    body: json({ description: 'Every operation', settings: { require_if_match: true } }),
    expect: 200,
  },
  {
    operationId: 'uploadFile',
    method: 'POST',
    path: (s) => `${project(s)}/files`,
    body: () => {
      const form = multipartBody([
        { name: 'metadata', data: JSON.stringify({ tags: ['a'] }) },
        { name: 'file', filename: 'doc.md', data: '# Title\n\nIntro [link](other.md)\n\n## Part\n\ntext\n' },
      ]);
      return { type: form.contentType, data: form.body };
    },
    expect: 201,
    keep: (_s, _b, h) => {
      expect(h.get('etag')).toBeTruthy();
    },
  },
  {
    operationId: 'uploadFile',
    method: 'POST',
    path: (s) => `${project(s)}/files`,
    body: () => {
      const form = multipartBody([{ name: 'file', filename: 'doc.txt', data: 'x' }]);
      return { type: form.contentType, data: form.body };
    },
    expect: 415,
  },
  { operationId: 'listFiles', method: 'GET', path: (s) => `${project(s)}/files`, expect: 200 },
  // Extensions §12: attachments.
  {
    operationId: 'writeAttachment',
    method: 'PUT',
    path: (s) => attachment(s),
    body: () => ({ type: 'application/pdf', data: Buffer.from('%PDF-1.4\n') }),
    expect: 201,
    keep: (s, _b, h) => {
      s.etag = h.get('etag')!;
    },
  },
  {
    operationId: 'writeAttachment',
    method: 'PUT',
    path: (s) => attachment(s),
    // The project requires If-Match by now.
    headers: (s) => ({ 'If-Match': s.etag }),
    body: () => ({ type: 'application/pdf', data: Buffer.from('%PDF-1.5\n') }),
    expect: 200,
  },
  {
    operationId: 'writeAttachment',
    method: 'PUT',
    path: (s) => attachment(s, 'fake.png'),
    body: () => ({ type: 'image/png', data: Buffer.from('<html></html>') }),
    expect: 415,
  },
  {
    operationId: 'writeAttachment',
    method: 'PUT',
    path: (s) => attachment(s, 'note.md'),
    body: () => ({ type: 'text/markdown', data: Buffer.from('# no') }),
    expect: 409,
  },
  {
    operationId: 'listAttachments',
    method: 'GET',
    path: (s) => `${project(s)}/attachments?delimiter=/`,
    expect: 200,
  },
  { operationId: 'readAttachment', method: 'GET', path: (s) => attachment(s), expect: 200 },
  {
    operationId: 'readAttachment',
    method: 'GET',
    path: (s) => attachment(s),
    headers: () => ({ Range: 'bytes=0-3' }),
    expect: 206,
  },
  {
    operationId: 'readAttachment',
    method: 'GET',
    path: (s) => attachment(s),
    headers: () => ({ Range: 'bytes=999-' }),
    expect: 416,
  },
  { operationId: 'readAttachment', method: 'GET', path: (s) => attachment(s, 'gone.png'), expect: 404 },
  { operationId: 'headAttachment', method: 'HEAD', path: (s) => attachment(s), expect: 200 },
  {
    operationId: 'moveAttachment',
    method: 'POST',
    path: (s) => `${attachment(s)}/move`,
    headers: () => ({ 'If-Match': '*' }),
    body: json({ to: 'img/b.pdf', rewrite_links: true, dry_run: true }),
    expect: 200,
  },
  {
    operationId: 'moveAttachment',
    method: 'POST',
    path: (s) => `${attachment(s)}/move`,
    headers: () => ({ 'If-Match': '*' }),
    body: json({ to: 'img/b.pdf' }),
    expect: 200,
  },
  {
    operationId: 'moveAttachment',
    method: 'POST',
    path: (s) => `${attachment(s, 'img/b.pdf')}/move`,
    headers: () => ({ 'If-Match': '*' }),
    body: json({ to: 'img/note.md' }),
    expect: 409,
  },
  {
    operationId: 'moveAttachment',
    method: 'POST',
    path: (s) => `${attachment(s, 'img/b.pdf')}/move`,
    headers: () => ({ 'If-Match': '*' }),
    body: json({ to: 'img/a.pdf' }),
    expect: 200,
  },
  {
    operationId: 'moveAttachment',
    method: 'POST',
    path: (s) => `${attachment(s, 'gone.png')}/move`,
    body: json({ to: 'x.png' }),
    expect: 404,
  },
  {
    operationId: 'deleteAttachment',
    method: 'DELETE',
    path: (s) => attachment(s),
    headers: () => ({ 'If-Match': '*' }),
    expect: 204,
  },
  { operationId: 'deleteAttachment', method: 'DELETE', path: (s) => attachment(s), expect: 404 },
  {
    operationId: 'downloadFile',
    method: 'GET',
    path: (s) => file(s),
    expect: 200,
    keep: (s, _b, h) => {
      s.etag = h.get('etag')!;
    },
  },
  {
    operationId: 'downloadFile',
    method: 'GET',
    path: (s) => file(s),
    headers: () => ({ Range: 'bytes=0-3' }),
    expect: 206,
  },
  {
    operationId: 'downloadFile',
    method: 'GET',
    path: (s) => file(s),
    headers: () => ({ Range: 'bytes=9999-' }),
    expect: 416,
  },
  { operationId: 'downloadFile', method: 'GET', path: (s) => `${file(s)}?lines=1-2`, expect: 200 },
  { operationId: 'downloadFile', method: 'GET', path: (s) => `${file(s)}?section=Part`, expect: 200 },
  // Extensions §11: the file rendered.
  { operationId: 'downloadFile', method: 'GET', path: (s) => `${file(s)}?format=html`, expect: 200 },
  { operationId: 'downloadFile', method: 'GET', path: (s) => `${file(s)}?format=pdf`, expect: 422 },
  {
    operationId: 'downloadFile',
    method: 'GET',
    path: (s) => file(s),
    headers: (s) => ({ 'If-None-Match': s.etag }),
    expect: 304,
  },
  { operationId: 'downloadFile', method: 'GET', path: (s) => file(s, 'none.md'), expect: 404 },
  { operationId: 'headFile', method: 'HEAD', path: (s) => file(s), expect: 200 },
  {
    operationId: 'getOutline',
    method: 'GET',
    path: (s) => `${file(s)}/outline`,
    expect: 200,
  },
  {
    operationId: 'renderText',
    method: 'POST',
    path: (s) => `${project(s)}/render`,
    body: json({ content: '# Draft\n', filename: 'notes/a.md' }),
    expect: 200,
  },
  {
    operationId: 'renderText',
    method: 'POST',
    path: (s) => `${project(s)}/render`,
    body: json({ content: 1 }),
    expect: 422,
  },
  // Extensions §9.
  { operationId: 'getFileLinks', method: 'GET', path: (s) => `${file(s)}/links`, expect: 200 },
  { operationId: 'getFileLinks', method: 'GET', path: (s) => `${file(s, 'none.md')}/links`, expect: 404 },
  {
    operationId: 'listBrokenLinks',
    method: 'GET',
    path: (s) => `${project(s)}/links/broken?limit=5`,
    expect: 200,
  },
  {
    operationId: 'listBrokenLinks',
    method: 'GET',
    path: (s) => `${project(s)}/links/broken?limit=0`,
    expect: 422,
  },
  { operationId: 'listOrphans', method: 'GET', path: (s) => `${project(s)}/links/orphans`, expect: 200 },
  {
    operationId: 'updateFileMetadata',
    method: 'PUT',
    path: (s) => file(s),
    body: json({ metadata: { n: 1 } }),
    expect: 428,
  },
  {
    operationId: 'updateFileMetadata',
    method: 'PUT',
    path: (s) => file(s),
    headers: (s) => ({ 'If-Match': s.etag }),
    body: json({ metadata: { n: 1 } }),
    expect: 200,
    keep: (s, _b, h) => {
      s.etag = h.get('etag')!;
    },
  },
  {
    operationId: 'updateFileMetadata',
    method: 'PUT',
    path: (s) => file(s),
    headers: (s) => ({ 'If-Match': s.etag }),
    body: json({ metadata: 'nope' }),
    expect: 422,
  },
  {
    operationId: 'updateFileContent',
    method: 'PUT',
    path: (s) => `${file(s)}/content`,
    headers: (s) => ({ 'If-Match': s.etag, 'Content-Digest': `sha-256=:${sha256('# New\n')}:` }),
    body: () => ({ type: 'text/markdown', data: '# New\n' }),
    expect: 200,
    keep: (s, _b, h) => {
      s.etag = h.get('etag')!;
    },
  },
  {
    operationId: 'updateFileContent',
    method: 'PUT',
    path: (s) => `${file(s)}/content`,
    headers: (s) => ({ 'If-Match': s.etag, 'Content-Digest': `sha-256=:${sha256('other')}:` }),
    body: () => ({ type: 'text/markdown', data: '# New\n' }),
    expect: 400,
  },
  {
    operationId: 'editFile',
    method: 'PATCH',
    path: (s) => file(s),
    headers: (s) => ({ 'If-Match': s.etag }),
    body: json({ edits: [{ op: 'append', text: 'more\n' }] }),
    expect: 200,
    keep: (s, _b, h) => {
      s.etag = h.get('etag')!;
    },
  },
  {
    operationId: 'editFile',
    method: 'PATCH',
    path: (s) => file(s),
    headers: (s) => ({ 'If-Match': s.etag }),
    body: json({ edits: [{ op: 'replace', old: 'absent', new: 'x' }] }),
    expect: 409,
  },
  {
    operationId: 'editFile',
    method: 'PATCH',
    path: (s) => file(s),
    headers: (s) => ({ 'If-Match': s.etag }),
    body: json({ edits: [] }),
    expect: 422,
  },
  {
    operationId: 'listRevisions',
    method: 'GET',
    path: (s) => `${file(s)}/revisions?limit=2`,
    expect: 200,
  },
  { operationId: 'listRevisions', method: 'GET', path: (s) => `${file(s)}/revisions?limit=0`, expect: 422 },
  { operationId: 'downloadRevision', method: 'GET', path: (s) => `${file(s)}/revisions/1`, expect: 200 },
  {
    operationId: 'downloadRevision',
    method: 'GET',
    path: (s) => `${file(s)}/revisions/1`,
    headers: () => ({ Range: 'bytes=0-1' }),
    expect: 206,
  },
  { operationId: 'downloadRevision', method: 'GET', path: (s) => `${file(s)}/revisions/999`, expect: 404 },
  { operationId: 'diffRevisions', method: 'GET', path: (s) => `${file(s)}/diff?from=1`, expect: 200 },
  { operationId: 'diffRevisions', method: 'GET', path: (s) => `${file(s)}/diff`, expect: 422 },
  {
    operationId: 'restoreRevision',
    method: 'POST',
    path: (s) => `${file(s)}/restore`,
    headers: (s) => ({ 'If-Match': s.etag }),
    body: json({ revision: 1 }),
    expect: 200,
    keep: (s, _b, h) => {
      s.etag = h.get('etag')!;
    },
  },
  {
    operationId: 'copyFile',
    method: 'POST',
    path: (s) => `${file(s)}/copy`,
    body: json({ to: 'copy.md' }),
    expect: 201,
  },
  {
    operationId: 'copyFile',
    method: 'POST',
    path: (s) => `${file(s)}/copy`,
    body: json({ to: 'copy.md' }),
    expect: 409,
  },
  {
    operationId: 'moveFile',
    method: 'POST',
    path: (s) => `${file(s, 'copy.md')}/move`,
    headers: () => ({ 'If-Match': '*' }),
    body: json({ to: 'folder/moved.md' }),
    expect: 200,
  },
  {
    operationId: 'applyChangeset',
    method: 'POST',
    path: (s) => `${project(s)}/changesets`,
    body: json({
      message: 'conformance',
      operations: [
        { op: 'put', filename: 'set.md', content: '# set\n', metadata: { n: 1 } },
        { op: 'edit', filename: 'set.md', edits: [{ op: 'append', text: 'more\n' }], if_match: '*' },
        { op: 'delete', filename: 'set.md' },
      ],
    }),
    expect: 200,
  },
  {
    operationId: 'applyChangeset',
    method: 'POST',
    path: (s) => `${project(s)}/changesets`,
    body: json({ operations: [{ op: 'delete', filename: 'nowhere.md' }] }),
    expect: 409,
  },
  // Extensions §14.
  {
    operationId: 'runMemoryCommand',
    method: 'POST',
    path: (s) => `${project(s)}/memory`,
    body: json({ command: 'create', path: '/memories/notes.txt', file_text: 'remember\n' }),
    expect: 200,
  },
  {
    operationId: 'runMemoryCommand',
    method: 'POST',
    path: (s) => `${project(s)}/memory`,
    body: json({ command: 'view', path: '/memories/../x' }),
    expect: 200,
  },
  {
    operationId: 'runMemoryCommand',
    method: 'POST',
    path: (s) => `${project(s)}/memory`,
    body: json({ command: 'view' }),
    expect: 422,
  },
  {
    operationId: 'listFiles',
    method: 'GET',
    path: (s) => `${project(s)}/files?delimiter=%2F&limit=1`,
    expect: 200,
  },
  {
    operationId: 'searchProject',
    method: 'POST',
    path: (s) => `${project(s)}/search`,
    body: json({ query: 'moved OR doc', filter: { field: 'size_bytes', op: 'gt', value: 0 }, limit: 1 }),
    expect: 200,
  },
  {
    operationId: 'searchProject',
    method: 'POST',
    path: (s) => `${project(s)}/search`,
    body: json({ sort: 'relevance' }),
    expect: 422,
  },
  {
    operationId: 'searchProject',
    method: 'POST',
    path: () => `/api/projects/${MISSING}/search`,
    body: json({}),
    expect: 404,
  },
  {
    operationId: 'searchAll',
    method: 'POST',
    path: () => '/api/search',
    body: json({ query: 'doc', sort: 'filename', order: 'desc' }),
    expect: 200,
  },
  {
    operationId: 'searchAll',
    method: 'POST',
    path: () => '/api/search',
    body: json({ project_ids: [MISSING] }),
    expect: 404,
  },
  // Extensions §15 (embeddings are off on this server: enabled false, semantic refused).
  {
    operationId: 'searchStatus',
    method: 'GET',
    path: (s) => `${project(s)}/search/status`,
    expect: 200,
  },
  {
    operationId: 'searchStatus',
    method: 'GET',
    path: () => `/api/projects/${MISSING}/search/status`,
    expect: 404,
  },
  {
    operationId: 'searchProject',
    method: 'POST',
    path: (s) => `${project(s)}/search`,
    body: json({ query: 'doc', mode: 'semantic' }),
    expect: 422,
  },
  {
    operationId: 'listFiles',
    method: 'GET',
    path: (s) => `${project(s)}/files?sort=size_bytes&order=desc&prefix=doc`,
    expect: 200,
  },
  { operationId: 'listFiles', method: 'GET', path: (s) => `${project(s)}/files?sort=nope`, expect: 422 },
  // Extensions §10.
  { operationId: 'exportProject', method: 'GET', path: (s) => `${project(s)}/export`, expect: 200 },
  {
    operationId: 'exportProject',
    method: 'GET',
    path: (s) => `${project(s)}/export?format=tar.gz&prefix=doc`,
    expect: 200,
  },
  {
    operationId: 'exportProject',
    method: 'GET',
    path: (s) => `${project(s)}/export?format=rar`,
    expect: 422,
  },
  {
    operationId: 'importProject',
    method: 'POST',
    path: (s) => `${project(s)}/import?dry_run=true`,
    body: () => ({ type: 'application/zip', data: craftZip([{ name: 'imported.md', data: '# i\n' }]) }),
    expect: 200,
  },
  {
    operationId: 'importProject',
    method: 'POST',
    path: (s) => `${project(s)}/import`,
    body: () => ({ type: 'application/zip', data: Buffer.from('not a zip') }),
    expect: 422,
  },
  {
    operationId: 'importProject',
    method: 'POST',
    path: (s) => `${project(s)}/import`,
    body: () => ({ type: 'text/plain', data: 'x' }),
    expect: 415,
  },
  // Extensions §5: the trash (the project keeps deleted files for a day from here on).
  {
    operationId: 'updateProject',
    method: 'PUT',
    path: project,
    body: json({ settings: { trash_retention_days: 1 } }),
    expect: 200,
  },
  {
    operationId: 'deleteFile',
    method: 'DELETE',
    path: (s) => file(s),
    headers: (s) => ({ 'If-Match': s.etag }),
    expect: 204,
  },
  {
    operationId: 'listTrash',
    method: 'GET',
    path: (s) => `${project(s)}/trash?limit=1`,
    expect: 200,
    keep: (s, body) => {
      s.trashId = JSON.parse(body.toString()).trash[0].trash_id;
    },
  },
  { operationId: 'listTrash', method: 'GET', path: (s) => `${project(s)}/trash?limit=0`, expect: 422 },
  {
    operationId: 'restoreTrashItem',
    method: 'POST',
    path: (s) => `${project(s)}/trash/${s.trashId}/restore`,
    body: json({ to: 'back.md' }),
    expect: 201,
    keep: (s, _b, h) => {
      s.etag = h.get('etag')!;
    },
  },
  {
    operationId: 'restoreTrashItem',
    method: 'POST',
    path: (s) => `${project(s)}/trash/${s.trashId}/restore`,
    body: json({}),
    expect: 404,
  },
  {
    operationId: 'deleteFile',
    method: 'DELETE',
    path: (s) => file(s, 'back.md'),
    headers: (s) => ({ 'If-Match': s.etag }),
    expect: 204,
  },
  {
    operationId: 'listTrash',
    method: 'GET',
    path: (s) => `${project(s)}/trash`,
    expect: 200,
    keep: (s, body) => {
      s.trashId = JSON.parse(body.toString()).trash[0].trash_id;
    },
  },
  {
    operationId: 'deleteTrashItem',
    method: 'DELETE',
    path: (s) => `${project(s)}/trash/${s.trashId}`,
    expect: 204,
  },
  {
    operationId: 'deleteTrashItem',
    method: 'DELETE',
    path: (s) => `${project(s)}/trash/${s.trashId}`,
    expect: 404,
  },
  // Extensions §16: a project as it was (as of now: nothing to change).
  {
    operationId: 'restoreProject',
    method: 'POST',
    path: (s) => `${project(s)}/restore`,
    body: () => json({ as_of: new Date().toISOString(), dry_run: true })(),
    expect: 200,
  },
  {
    operationId: 'restoreProject',
    method: 'POST',
    path: (s) => `${project(s)}/restore`,
    body: () => json({ as_of: new Date().toISOString() })(),
    expect: 200,
  },
  {
    operationId: 'restoreProject',
    method: 'POST',
    path: (s) => `${project(s)}/restore`,
    body: json({ as_of: 'last tuesday' }),
    expect: 422,
  },
  // Extensions §8: keys.
  {
    operationId: 'createKey',
    method: 'POST',
    path: () => '/api/keys',
    body: (s) =>
      json({
        name: 'CI publisher',
        role: 'write',
        project_ids: [s.projectId],
        expires_date: new Date(Date.now() + 86_400_000).toISOString(),
      })(),
    expect: 201,
    keep: (s, body) => {
      s.keyId = JSON.parse(body.toString()).id;
    },
  },
  {
    operationId: 'createKey',
    method: 'POST',
    path: () => '/api/keys',
    body: json({ name: 'late', role: 'read', expires_date: '2001-01-01T00:00:00Z' }),
    expect: 422,
  },
  { operationId: 'listKeys', method: 'GET', path: () => '/api/keys', expect: 200 },
  { operationId: 'currentKey', method: 'GET', path: () => '/api/keys/current', expect: 200 },
  { operationId: 'listAudit', method: 'GET', path: () => '/api/audit?limit=5', expect: 200 },
  { operationId: 'listAudit', method: 'GET', path: () => '/api/audit?status=abc', expect: 422 },
  { operationId: 'listChanges', method: 'GET', path: () => '/api/changes?since=0&limit=5', expect: 200 },
  { operationId: 'listChanges', method: 'GET', path: () => '/api/changes?wait=99', expect: 422 },
  { operationId: 'revokeKey', method: 'DELETE', path: (s) => `/api/keys/${s.keyId}`, expect: 204 },
  { operationId: 'revokeKey', method: 'DELETE', path: (s) => `/api/keys/${s.keyId}`, expect: 404 },
  // Extensions §13: drafts.
  {
    operationId: 'createDraft',
    method: 'POST',
    path: (s) => `${project(s)}/drafts`,
    body: json({
      title: 'conformance',
      operations: [{ op: 'put', filename: 'drafted.md', content: '# d\n' }],
    }),
    expect: 201,
    keep: (s, body) => {
      s.draftId = JSON.parse(body.toString()).id;
    },
  },
  {
    operationId: 'createDraft',
    method: 'POST',
    path: (s) => `${project(s)}/drafts`,
    body: json({ title: '' }),
    expect: 422,
  },
  {
    operationId: 'listDrafts',
    method: 'GET',
    path: (s) => `${project(s)}/drafts?state=open&limit=5`,
    expect: 200,
  },
  { operationId: 'listDrafts', method: 'GET', path: (s) => `${project(s)}/drafts?state=nope`, expect: 422 },
  { operationId: 'getDraft', method: 'GET', path: (s) => `${project(s)}/drafts/${s.draftId}`, expect: 200 },
  {
    operationId: 'getDraft',
    method: 'GET',
    path: (s) => `${project(s)}/drafts/00000000-0000-4000-8000-000000000000`,
    expect: 404,
  },
  {
    operationId: 'addDraftOperations',
    method: 'POST',
    path: (s) => `${project(s)}/drafts/${s.draftId}/operations`,
    body: json({
      operations: [{ op: 'edit', filename: 'drafted.md', edits: [{ op: 'append', text: 'x\n' }] }],
    }),
    expect: 200,
  },
  {
    operationId: 'addDraftOperations',
    method: 'POST',
    path: (s) => `${project(s)}/drafts/${s.draftId}/operations`,
    body: json({ operations: [{ op: 'delete', filename: 'nowhere.md' }] }),
    expect: 409,
  },
  {
    operationId: 'readDraftFile',
    method: 'GET',
    path: (s) => `${project(s)}/drafts/${s.draftId}/files/drafted.md`,
    expect: 200,
  },
  {
    operationId: 'readDraftFile',
    method: 'GET',
    path: (s) => `${project(s)}/drafts/${s.draftId}/files/other.md`,
    expect: 404,
  },
  {
    operationId: 'diffDraft',
    method: 'GET',
    path: (s) => `${project(s)}/drafts/${s.draftId}/diff`,
    expect: 200,
  },
  {
    operationId: 'reviewDraft',
    method: 'POST',
    path: (s) => `${project(s)}/drafts/${s.draftId}/reviews`,
    body: json({ verdict: 'approve', comment: 'fine' }),
    expect: 200,
  },
  {
    operationId: 'reviewDraft',
    method: 'POST',
    path: (s) => `${project(s)}/drafts/${s.draftId}/reviews`,
    body: json({ verdict: 'maybe' }),
    expect: 422,
  },
  {
    operationId: 'publishDraft',
    method: 'POST',
    path: (s) => `${project(s)}/drafts/${s.draftId}/publish`,
    expect: 200,
  },
  {
    operationId: 'publishDraft',
    method: 'POST',
    path: (s) => `${project(s)}/drafts/${s.draftId}/publish`,
    expect: 409,
  },
  {
    operationId: 'closeDraft',
    method: 'POST',
    path: (s) => `${project(s)}/drafts/${s.draftId}/close`,
    expect: 409,
  },
  // Extensions §11: share links.
  {
    operationId: 'createShare',
    method: 'POST',
    path: (s) => `${project(s)}/shares`,
    body: json({ prefix: 'docs/', expires_in_seconds: 600 }),
    expect: 201,
    keep: (s, body) => {
      s.shareId = JSON.parse(body.toString()).id;
    },
  },
  {
    operationId: 'createShare',
    method: 'POST',
    path: (s) => `${project(s)}/shares`,
    body: json({ prefix: 'no-slash' }),
    expect: 422,
  },
  { operationId: 'listShares', method: 'GET', path: (s) => `${project(s)}/shares`, expect: 200 },
  {
    operationId: 'revokeShare',
    method: 'DELETE',
    path: (s) => `${project(s)}/shares/${s.shareId}`,
    expect: 204,
  },
  {
    operationId: 'revokeShare',
    method: 'DELETE',
    path: (s) => `${project(s)}/shares/${s.shareId}`,
    expect: 404,
  },
  // Extensions §7: webhooks.
  {
    operationId: 'createWebhook',
    method: 'POST',
    path: () => '/api/webhooks',
    body: (s) =>
      json({ url: 'https://hooks.example.com/mdstore', events: ['file.*'], project_id: s.projectId })(),
    expect: 201,
    keep: (s, body) => {
      s.webhookId = JSON.parse(body.toString()).id;
    },
  },
  {
    operationId: 'createWebhook',
    method: 'POST',
    path: () => '/api/webhooks',
    body: json({ url: 'ftp://hooks.example.com/' }),
    expect: 422,
  },
  { operationId: 'listWebhooks', method: 'GET', path: () => '/api/webhooks', expect: 200 },
  { operationId: 'getWebhook', method: 'GET', path: (s) => `/api/webhooks/${s.webhookId}`, expect: 200 },
  {
    operationId: 'enableWebhook',
    method: 'POST',
    path: (s) => `/api/webhooks/${s.webhookId}/enable`,
    expect: 200,
  },
  {
    operationId: 'listWebhookDeliveries',
    method: 'GET',
    path: (s) => `/api/webhooks/${s.webhookId}/deliveries?limit=10`,
    expect: 200,
  },
  {
    operationId: 'deleteWebhook',
    method: 'DELETE',
    path: (s) => `/api/webhooks/${s.webhookId}`,
    expect: 204,
  },
  { operationId: 'getWebhook', method: 'GET', path: (s) => `/api/webhooks/${s.webhookId}`, expect: 404 },
  { operationId: 'deleteProject', method: 'DELETE', path: project, expect: 200 },
  { operationId: 'deleteProject', method: 'DELETE', path: project, expect: 404 },
];

let harness: HttpHarness;
let checker: DocumentChecker;
const exercised = new Set<string>();

beforeAll(async () => {
  harness = await HttpHarness.start({ adapters: sqliteFsAdapters });
  checker = new DocumentChecker(
    (await (await harness.fetch('/openapi.json')).json()) as Record<string, unknown>,
  );
});
afterAll(async () => {
  await harness?.close();
});

describe('every documented operation answers as the document says (sqlite-fs)', () => {
  it('each call: documented status, body matching its schema, documented headers present', async () => {
    const state: State = { key: (await harness.account()).apiKey, projectId: '', etag: '' };
    const problems: string[] = [];
    for (const call of CALLS) {
      const body = call.body?.(state);
      const response = await harness.fetch(call.path(state), {
        method: call.method,
        ...(call.key !== false && { key: state.key }),
        headers: { ...call.headers?.(state), ...(body && { 'Content-Type': body.type }) },
        ...(body && { body: body.data }),
      });
      const bytes = Buffer.from(await response.arrayBuffer());
      const label = `${call.method} ${call.path(state)} (${call.operationId})`;
      expect(response.status, `${label}: ${bytes.toString()}`).toBe(call.expect);
      problems.push(...checker.check(call.operationId, response.status, response.headers, bytes));
      call.keep?.(state, bytes, response.headers);
      exercised.add(call.operationId);
    }
    expect(problems).toEqual([]);
  });

  it('the checker does find an answer that does not conform (the check above can fail)', () => {
    const headers = new Headers({ 'content-type': 'application/json', 'x-request-id': 'r' });
    const wrong = Buffer.from(JSON.stringify({ projects: 'none' }));
    expect(checker.check('listProjects', 200, headers, wrong).join('\n')).toMatch(/body.*must be array/);
    expect(checker.check('listProjects', 200, headers, wrong).join('\n')).toMatch(
      /X-RateLimit-Limit missing/,
    );
    expect(checker.check('listProjects', 418, headers, wrong)).toEqual([
      'listProjects: status 418 is not documented',
    ]);
  });

  it('no operation of the document is left out', () => {
    expect([...exercised].sort()).toEqual(checker.operationIds.sort());
  });
});
