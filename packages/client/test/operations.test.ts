import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_INPUT } from '../scripts/generate.js';
import { createClient, type MdStoreClient } from '../src/index.js';
import { type RealServer, startRealServer } from './support/server.js';

/**
 * One SDK call per operation of the OpenAPI document, run against a real server in this order. A new
 * operation in the document without an entry here fails the first test: the SDK must cover it.
 */
const CALLS: Record<
  string,
  (
    client: MdStoreClient,
    s: {
      projectId: string;
      trashId: string;
      keyId: string;
      shareId: string;
      webhookId?: string;
      draftId?: string;
    },
  ) => Promise<unknown>
> = {
  getHealth: (c) => c.health(),
  getReadiness: (c) => c.ready(),
  createProject: async (c, s) => {
    s.projectId = (await c.projects.create({ name: 'Every operation' })).id;
  },
  listProjects: (c) => c.projects.list(),
  getProject: (c, s) => c.projects.get(s.projectId),
  updateProject: (c, s) => c.projects.update(s.projectId, { description: 'all of them' }),
  uploadFile: (c, s) => c.files.upload(s.projectId, 'op.md', '# op\n', { metadata: { n: 1 } }),
  listFiles: (c, s) => c.files.list(s.projectId),
  exportProject: async (c, s) => (await c.projects.export(s.projectId, { format: 'tar.gz' })).arrayBuffer(),
  importProject: async (c, s) => {
    const archive = await (await c.projects.export(s.projectId, { format: 'tar.gz' })).arrayBuffer();
    return c.projects.import(s.projectId, new Uint8Array(archive), { format: 'tar.gz', dryRun: true });
  },
  // Extensions §12.
  writeAttachment: (c, s) => c.attachments.write(s.projectId, 'img/op.pdf', '%PDF-1.4\n', 'application/pdf'),
  listAttachments: (c, s) => c.attachments.list(s.projectId, { prefix: 'img/' }),
  readAttachment: async (c, s) => (await c.attachments.read(s.projectId, 'img/op.pdf')).arrayBuffer(),
  headAttachment: (c, s) => c.attachments.head(s.projectId, 'img/op.pdf'),
  moveAttachment: async (c, s) => {
    await c.attachments.move(s.projectId, 'img/op.pdf', 'docs/op.pdf', { rewriteLinks: true, dryRun: true });
    await c.attachments.move(s.projectId, 'img/op.pdf', 'docs/op.pdf');
    return c.attachments.move(s.projectId, 'docs/op.pdf', 'img/op.pdf');
  },
  deleteAttachment: (c, s) => c.attachments.delete(s.projectId, 'img/op.pdf'),
  downloadFile: (c, s) => c.files.readText(s.projectId, 'op.md'),
  headFile: (c, s) => c.files.head(s.projectId, 'op.md'),
  updateFileMetadata: (c, s) => c.files.updateMetadata(s.projectId, 'op.md', { n: 2 }),
  updateFileContent: (c, s) => c.files.updateContent(s.projectId, 'op.md', '# op 2\n'),
  listRevisions: (c, s) => c.history.listRevisions(s.projectId, 'op.md', { limit: 2 }),
  downloadRevision: async (c, s) => (await c.history.downloadRevision(s.projectId, 'op.md', 1)).text(),
  diffRevisions: (c, s) => c.history.diff(s.projectId, 'op.md', 1),
  restoreRevision: (c, s) => c.history.restore(s.projectId, 'op.md', 1),
  copyFile: (c, s) => c.history.copy(s.projectId, 'op.md', 'op-copy.md'),
  moveFile: (c, s) => c.history.move(s.projectId, 'op-copy.md', 'op-moved.md'),
  // Extensions §9.
  applyChangeset: async (c, s) => {
    const result = await c.changesets.apply(
      s.projectId,
      [
        { op: 'put', filename: 'op-set.md', content: '# set\n' },
        { op: 'move', filename: 'op-set.md', to: 'op-set-moved.md' },
        { op: 'delete', filename: 'op-set-moved.md' },
      ],
      { message: 'every op' },
    );
    if (result.files.length !== 3) throw new Error('changeset: one result per operation');
  },
  // Extensions §14.
  runMemoryCommand: async (c, s) => {
    await c.memory.run(s.projectId, { command: 'create', path: '/memories/op.txt', file_text: 'op\n' });
    const seen = await c.memory.run(s.projectId, { command: 'view', path: '/memories/op.txt' });
    if (!seen.result.includes('\top')) throw new Error('memory: the file created is the file viewed');
  },
  // Extensions §13.
  createDraft: async (c, s) => {
    const draft = await c.drafts.create(s.projectId, {
      title: 'every op',
      operations: [{ op: 'put', filename: 'op-draft.md', content: '# draft\n' }],
    });
    if (draft.files[0]?.base_etag !== null) throw new Error('a new file has no base');
    s.draftId = draft.id;
  },
  listDrafts: async (c, s) => {
    if (!(await c.drafts.list(s.projectId, { state: 'open' })).drafts.some((d) => d.id === s.draftId))
      throw new Error('draft not listed');
  },
  getDraft: (c, s) => c.drafts.get(s.projectId, s.draftId!),
  addDraftOperations: (c, s) =>
    c.drafts.addOperations(s.projectId, s.draftId!, [
      { op: 'edit', filename: 'op-draft.md', edits: [{ op: 'append', text: 'more\n' }] },
    ]),
  readDraftFile: async (c, s) => {
    if ((await c.drafts.readFile(s.projectId, s.draftId!, 'op-draft.md')) !== '# draft\nmore\n')
      throw new Error('draft text');
  },
  diffDraft: (c, s) => c.drafts.diff(s.projectId, s.draftId!, { limit: 5 }),
  reviewDraft: (c, s) => c.drafts.review(s.projectId, s.draftId!, { verdict: 'approve', comment: 'ok' }),
  publishDraft: async (c, s) => {
    if ((await c.drafts.publish(s.projectId, s.draftId!)).draft.state !== 'published')
      throw new Error('not published');
  },
  closeDraft: async (c, s) => {
    const other = await c.drafts.create(s.projectId, { title: 'closed' });
    if ((await c.drafts.close(s.projectId, other.id)).state !== 'closed') throw new Error('not closed');
  },
  editFile: (c, s) => c.files.edit(s.projectId, 'op.md', { edits: [{ op: 'append', text: 'more\n' }] }),
  getOutline: (c, s) => c.files.outline(s.projectId, 'op.md'),
  renderText: async (c, s) => {
    if (!(await c.files.render(s.projectId, '# Hi\n', { filename: 'op.md' })).includes('<h1'))
      throw new Error('not rendered');
  },
  // Extensions §9.
  getFileLinks: (c, s) => c.links.ofFile(s.projectId, 'op.md'),
  listBrokenLinks: (c, s) => c.links.broken(s.projectId, { limit: 10 }),
  listOrphans: (c, s) => c.links.orphans(s.projectId, { limit: 10 }),
  searchProject: async (c, s) => {
    const answer = await c.search(s.projectId, {
      query: 'op',
      // Revision 1 (restored above) has the metadata {n: 1}.
      filter: { field: 'metadata.n', op: 'eq', value: 1 },
    });
    if (!answer.results.some((r) => r.file.filename === 'op.md'))
      throw new Error('search did not find op.md');
  },
  searchStatus: async (c, s) => {
    const status = await c.searching.status(s.projectId);
    if (status.enabled !== false || status.pending !== 0) throw new Error('embeddings should be off');
  },
  searchAll: async (c, s) => {
    const found = [];
    for await (const result of c.searching.iterate(null, {
      query: 'op',
      project_ids: [s.projectId],
      limit: 1,
    }))
      found.push(result.file.filename);
    if (!found.includes('op.md')) throw new Error('search did not find op.md');
  },
  // Extensions §5: the file just deleted is in the trash (the project keeps it for a day).
  deleteFile: async (c, s) => {
    await c.projects.update(s.projectId, { settings: { trash_retention_days: 1 } });
    await c.files.delete(s.projectId, 'op.md');
  },
  listTrash: async (c, s) => {
    const [item] = (await c.trash.list(s.projectId)).trash;
    s.trashId = item!.trash_id;
  },
  restoreTrashItem: async (c, s) => {
    await c.trash.restore(s.projectId, s.trashId, { to: 'restored.md' });
    await c.files.delete(s.projectId, 'restored.md');
    s.trashId = (await c.trash.list(s.projectId)).trash[0]!.trash_id;
  },
  deleteTrashItem: (c, s) => c.trash.delete(s.projectId, s.trashId),
  // Extensions §16 (a dry run: the project as it is now changes nothing).
  restoreProject: async (c, s) => {
    const result = await c.projects.restore(s.projectId, new Date(), { dryRun: true });
    if (!result.dry_run || result.changeset_id !== null) throw new Error('a dry run wrote');
  },
  // Extensions §8.
  createKey: async (c, s) => {
    const key = await c.access.createKey({ name: 'reader', role: 'read', project_ids: [s.projectId] });
    s.keyId = key.id;
  },
  listKeys: async (c, s) => {
    if (!(await c.access.listKeys()).some((k) => k.id === s.keyId)) throw new Error('key not listed');
  },
  currentKey: async (c) => {
    if ((await c.access.currentKey()).role !== 'admin') throw new Error('the account key is not admin');
  },
  revokeKey: (c, s) => c.access.revokeKey(s.keyId),
  // Extensions §11.
  createShare: async (c, s) => {
    const share = await c.shares.create(s.projectId, { prefix: 'docs/', expires_in_seconds: 3600 });
    if (!share.url.includes('/s/')) throw new Error('no link');
    s.shareId = share.id;
  },
  listShares: async (c, s) => {
    if (!(await c.shares.list(s.projectId)).some((share) => share.id === s.shareId))
      throw new Error('not listed');
  },
  revokeShare: (c, s) => c.shares.revoke(s.projectId, s.shareId),
  listAudit: (c) => c.access.audit({ limit: 10 }),
  listChanges: (c) => c.changes.list({ since: 0, limit: 10 }),
  // Extensions §7 (a public address literal: the server checks the host without DNS).
  createWebhook: async (c, s) => {
    s.webhookId = (await c.webhooks.create({ url: 'https://93.184.215.14/hook', events: ['file.*'] })).id;
  },
  listWebhooks: async (c, s) => {
    if (!(await c.webhooks.list()).some((w) => w.id === s.webhookId)) throw new Error('webhook not listed');
  },
  getWebhook: (c, s) => c.webhooks.get(s.webhookId!),
  enableWebhook: (c, s) => c.webhooks.enable(s.webhookId!),
  listWebhookDeliveries: (c, s) => c.webhooks.deliveries(s.webhookId!, { limit: 5 }),
  deleteWebhook: (c, s) => c.webhooks.delete(s.webhookId!),
  deleteProject: (c, s) => c.projects.delete(s.projectId),
};

let server: RealServer;
beforeAll(async () => {
  server = await startRealServer();
});
afterAll(async () => {
  await server?.stop();
});

describe('the SDK covers every operation of the document', () => {
  it('one call per operationId, no more, no less', async () => {
    const document = JSON.parse(await readFile(DEFAULT_INPUT, 'utf8'));
    const ids: string[] = [];
    for (const item of Object.values(document.paths) as Array<Record<string, { operationId?: string }>>) {
      for (const operation of Object.values(item)) if (operation.operationId) ids.push(operation.operationId);
    }
    expect(Object.keys(CALLS).sort()).toEqual(ids.sort());
  });

  it('each call succeeds against a real server', async () => {
    const account = await server.account();
    const client = createClient({ baseUrl: server.url, apiKey: account.apiKey });
    const state = { projectId: '', trashId: '', keyId: '', shareId: '' };
    for (const [id, call] of Object.entries(CALLS)) {
      await expect(call(client, state), id).resolves.not.toThrow();
    }
  });

  it('the typed layer checks calls against the document', async () => {
    const project_id = '00000000-0000-4000-8000-000000000000';
    const sent: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      sent.push(`${init?.method} ${String(input)}`);
      return Response.json({ id: project_id });
    };
    const typed = createClient({ baseUrl: 'http://127.0.0.1:1', fetch: recording }).api;
    // These compile because the document declares these parameters and bodies.
    await typed.json('get', '/api/projects/{project_id}', {
      path: { project_id },
      headers: { 'If-Match': '*' },
    });
    await typed.json('put', '/api/projects/{project_id}', { path: { project_id }, json: { name: 'x' } });
    expect(sent).toEqual([
      `GET http://127.0.0.1:1/api/projects/${project_id}`,
      `PUT http://127.0.0.1:1/api/projects/${project_id}`,
    ]);
    // Never called: tsc (npm run typecheck) fails if one of these lines compiles.
    const withIfMatch = { path: { project_id }, headers: { 'If-Match': '*' } };
    const wrongCalls = () => [
      // @ts-expect-error: List Files takes no If-Match
      typed.json('get', '/api/projects/{project_id}/files', withIfMatch),
      // @ts-expect-error: the document has no PATCH on projects
      typed.json('patch', '/api/projects/{project_id}', { path: { project_id } }),
      // @ts-expect-error: Update Project has no field `title`
      typed.json('put', '/api/projects/{project_id}', { path: { project_id }, json: { title: 'x' } }),
      // @ts-expect-error: the path parameter is required
      typed.json('get', '/api/projects/{project_id}', {}),
    ];
    expect(typeof wrongCalls).toBe('function');
  });
});
