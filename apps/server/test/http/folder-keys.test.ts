import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect } from 'vitest';
import { ROUTES } from '../../src/http/api/routes-table.js';
import { type HttpHarness, serverTest } from '../support/http-harness.js';

/**
 * Extensions §14 over HTTP and MCP, on whichever adapter set runs the suite: keys confined to folders
 * (`path_prefixes`). A matrix generated from the route table: every keyed route, called by an admin key
 * confined to `memories/`, on a name outside its folder, answers as its row below says; a route with no
 * row fails the test, so a new route cannot ship without deciding what a folder key gets from it.
 */

const test = serverTest();
const NOT_ALLOWED = { detail: 'API key does not allow this operation' };
const RANDOM_ID = '0f0e0d0c-0b0a-4009-8807-060504030201';

/**
 * What a folder key gets from each route on a name outside its folders:
 * - `file`: 404 "File not found", the same as for a file that does not exist;
 * - `attachment`: 404 "Attachment not found";
 * - `refused`: 403 before anything is read (the operation spans the project, or does not keep to
 *   folders yet: it would show or change files outside them);
 * - `reached`: neither (the route names no file, or keeps to the folders in what it lists and writes).
 */
const FOLDER_KEY_ANSWER: Readonly<Record<string, 'file' | 'attachment' | 'refused' | 'reached'>> = {
  listProjects: 'reached',
  createProject: 'refused',
  getProject: 'reached',
  updateProject: 'refused',
  deleteProject: 'refused',
  listFiles: 'reached',
  uploadFile: 'reached',
  updateFileMetadata: 'file',
  deleteFile: 'file',
  updateFileContent: 'file',
  downloadFile: 'file',
  listAttachments: 'reached',
  writeAttachment: 'attachment',
  readAttachment: 'attachment',
  deleteAttachment: 'attachment',
  moveAttachment: 'attachment',
  editFile: 'file',
  getOutline: 'file',
  renderText: 'reached',
  listRevisions: 'file',
  downloadRevision: 'file',
  diffRevisions: 'file',
  restoreRevision: 'file',
  moveFile: 'file',
  copyFile: 'file',
  applyChangeset: 'reached',
  createDraft: 'refused',
  listDrafts: 'refused',
  getDraft: 'refused',
  addDraftOperations: 'refused',
  readDraftFile: 'refused',
  diffDraft: 'refused',
  reviewDraft: 'refused',
  closeDraft: 'refused',
  publishDraft: 'refused',
  searchProject: 'reached',
  searchAll: 'reached',
  searchStatus: 'reached',
  getFileLinks: 'file',
  listBrokenLinks: 'reached',
  listOrphans: 'reached',
  listTrash: 'refused',
  restoreTrashItem: 'refused',
  deleteTrashItem: 'refused',
  restoreProject: 'refused',
  exportProject: 'reached',
  importProject: 'reached',
  createKey: 'reached',
  listKeys: 'reached',
  currentKey: 'reached',
  revokeKey: 'reached',
  createShare: 'refused',
  listShares: 'refused',
  revokeShare: 'refused',
  listAudit: 'refused',
  listChanges: 'reached',
  createWebhook: 'refused',
  listWebhooks: 'refused',
  getWebhook: 'refused',
  deleteWebhook: 'refused',
  enableWebhook: 'refused',
  listWebhookDeliveries: 'refused',
  runMemoryCommand: 'reached',
};

const KEYED_ROUTES = ROUTES.map((route) => route.description).filter((route) => route.auth === 'apiKey');

/** A concrete path for a route template: a real project, names outside `memories/`. */
const concretePath = (template: string, projectId: string, folder = '') =>
  template
    .replace(':project_id', projectId)
    .replace(':filename', encodeURIComponent(`${folder}matrix.md`))
    .replace(':path', encodeURIComponent(`${folder}matrix.png`))
    .replace(':revision', '1')
    .replace(':trash_id', 'no-such-item')
    .replace(/:(key_id|draft_id|share_id|webhook_id)/, RANDOM_ID);

/** One request with a `{}` JSON body on the methods that carry one. */
function call(h: HttpHarness, method: string, path: string, apiKey: string) {
  const withBody = method === 'POST' || method === 'PUT' || method === 'PATCH';
  const body = Buffer.from('{}');
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(`${h.url}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${apiKey}`,
        ...(withBody && { 'Content-Type': 'application/json', 'Content-Length': String(body.length) }),
      },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(withBody ? body : undefined);
  });
}

async function scene(h: HttpHarness) {
  const account = await h.account();
  const folderKey = async (role: 'read' | 'write' | 'admin', folders: string[]) => {
    const made = await h.json('/api/keys', 'POST', account.apiKey, {
      name: 'agent',
      role,
      path_prefixes: folders,
    });
    expect(made.status).toBe(201);
    return ((await made.json()) as { api_key: string; path_prefixes: string[] }).api_key;
  };
  const upload = async (apiKey: string, filename: string, text: string) =>
    h.json(`/api/projects/${account.defaultProjectId}/changesets`, 'POST', apiKey, {
      operations: [{ op: 'put', filename, content: text }],
    });
  return { ...account, folderKey, upload };
}

describe('keys confined to folders (extensions §14)', () => {
  test('every keyed route of the table, called outside the key’s folder, answers as its row says', async (h) => {
    const s = await scene(h);
    await s.upload(s.apiKey, 'matrix.md', '# outside\n');
    const agent = await s.folderKey('admin', ['memories/']);
    const missing = KEYED_ROUTES.filter((route) => !(route.operationId in FOLDER_KEY_ANSWER));
    expect(missing.map((route) => route.operationId)).toEqual([]);
    // The rows that say `refused` are the routes whose description says so (what MCP's tools/list reads).
    expect(KEYED_ROUTES.filter((route) => route.folderKeys === 'refused').map((r) => r.operationId)).toEqual(
      KEYED_ROUTES.filter((route) => FOLDER_KEY_ANSWER[route.operationId] === 'refused').map(
        (r) => r.operationId,
      ),
    );
    for (const route of KEYED_ROUTES) {
      const answer = await call(h, route.method, concretePath(route.path, s.defaultProjectId), agent);
      const label = `${route.method} ${route.path}: ${answer.status} ${answer.body.slice(0, 200)}`;
      const expected = FOLDER_KEY_ANSWER[route.operationId];
      if (expected === 'file') {
        expect(answer.status, label).toBe(404);
        expect(JSON.parse(answer.body), label).toEqual({ detail: 'File not found' });
      } else if (expected === 'attachment') {
        expect(answer.status, label).toBe(404);
        expect(JSON.parse(answer.body), label).toEqual({ detail: 'Attachment not found' });
      } else if (expected === 'refused') {
        expect(answer.status, label).toBe(403);
        expect(JSON.parse(answer.body), label).toEqual(NOT_ALLOWED);
      } else {
        expect(answer.status, label).not.toBe(401);
        expect(answer.body, label).not.toBe(JSON.stringify(NOT_ALLOWED));
        expect(answer.body, label).not.toContain('# outside');
      }
    }
    // Nothing outside changed: the one file is there with its one revision.
    const listed = await h.fetch(`/api/projects/${s.defaultProjectId}/files`, { key: s.apiKey });
    const files = ((await listed.json()) as { files: Array<{ filename: string; revision: number }> }).files;
    expect(files.map((file) => [file.filename, file.revision])).toEqual([['matrix.md', 1]]);
  });

  test('inside its folder the same key reads and writes as any key of its role', async (h) => {
    const s = await scene(h);
    const agent = await s.folderKey('write', ['memories']);
    expect((await s.upload(agent, 'memories/matrix.md', '# inside\n')).status).toBe(200);
    expect((await s.upload(agent, 'elsewhere.md', '# no\n')).status).toBe(404);
    for (const route of KEYED_ROUTES.filter(
      (r) => FOLDER_KEY_ANSWER[r.operationId] === 'file' && r.method === 'GET',
    )) {
      const query = route.operationId === 'diffRevisions' ? '?from=1' : '';
      const path = `${concretePath(route.path, s.defaultProjectId, 'memories/')}${query}`;
      const answer = await call(h, route.method, path, agent);
      expect(answer.status, `${route.path}: ${answer.body.slice(0, 200)}`).toBe(200);
    }
    const listed = await h.fetch(`/api/projects/${s.defaultProjectId}/files`, { key: agent });
    expect(
      ((await listed.json()) as { files: Array<{ filename: string }> }).files.map((f) => f.filename),
    ).toEqual(['memories/matrix.md']);
    // The key is shown with its folders; a key it makes stays inside them.
    const current = (await (await h.fetch('/api/keys/current', { key: agent })).json()) as Record<
      string,
      unknown
    >;
    expect(current.path_prefixes).toEqual(['memories/']);
  });

  test('a held read of the feed goes past the events it does not show', async (h) => {
    const s = await scene(h);
    const agent = await s.folderKey('read', ['memories/']);
    const head = (await (await h.fetch('/api/changes?limit=1000', { key: s.apiKey })).json()) as {
      next_since: number;
    };
    // limit=1: each read takes one event; the first events are outside the key's folder.
    const held = h.fetch(`/api/changes?since=${head.next_since}&limit=1&wait=10`, { key: agent });
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const name of ['outside-1.md', 'outside-2.md', 'memories/seen.md'])
      expect((await s.upload(s.apiKey, name, `# ${name}\n`)).status).toBe(200);
    const answer = (await (await held).json()) as { changes: Array<{ filename: string }> };
    expect(answer.changes.map((event) => event.filename)).toEqual(['memories/seen.md']);
  });

  test('MCP: tools keep to the folder the same way', async (h) => {
    const s = await scene(h);
    await s.upload(s.apiKey, 'outside.md', '# outside\n');
    const agent = await s.folderKey('write', ['memories/']);
    const client = new Client({ name: 'mdstore-folder-keys', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${agent}` } },
      }),
    );
    try {
      const tool = (name: string, args: Record<string, unknown>) =>
        client.callTool({
          name,
          arguments: { project_id: s.defaultProjectId, ...args },
        }) as Promise<CallToolResult>;
      const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;
      const read = await tool('read_file', { filename: 'outside.md' });
      expect(read.isError).toBe(true);
      expect(text(read)).toContain('File not found');
      const search = await tool('search', { query: 'outside' });
      expect(search.isError).not.toBe(true);
      expect(JSON.stringify(search.structuredContent ?? search.content)).not.toContain('outside.md');
      const changes = await tool('recent_changes', {});
      expect(JSON.stringify(changes.structuredContent ?? changes.content)).not.toContain('outside.md');
      const memory = await tool('memory', {
        command: 'create',
        path: '/memories/note.md',
        file_text: 'hello',
      });
      expect(memory.isError).not.toBe(true);
      const listed = await tool('list_files', {});
      expect(JSON.stringify(listed.structuredContent ?? listed.content)).not.toContain('outside.md');
      // tools/list shows only what the key may call: not the drafts' tools, refused to a folder key.
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['read_file', 'memory', 'apply_changeset']));
      for (const refused of ['propose_changes', 'list_drafts', 'read_draft'])
        expect(names, refused).not.toContain(refused);
      // A key of the same role without folders is shown them.
      const whole = new Client({ name: 'mdstore-whole', version: '1.0.0' });
      await whole.connect(
        new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${s.apiKey}` } },
        }),
      );
      try {
        expect((await whole.listTools()).tools.map((t) => t.name)).toContain('list_drafts');
      } finally {
        await whole.close();
      }
    } finally {
      await client.close();
    }
  });
});
