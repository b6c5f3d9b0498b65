import { FILE_LINK_LIMITS } from '@mdstore/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect } from 'vitest';
import { TOOLS } from '../../src/mcp/tools.js';
import { type HttpHarness, serverTest } from '../support/http-harness.js';

/**
 * The MCP endpoint (extensions §4) through the official SDK's own client over Streamable HTTP, against
 * a real server on whichever adapter set runs the suite: the tools, their schemas and annotations,
 * each tool called, errors as tool errors with the API's detail, and the API's authentication, rate
 * limit and Origin rules on the endpoint itself.
 */

const test = serverTest();

// ajv-formats is CommonJS: its default export is the plugin function.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** What a tool error says to the agent: its text, JSON with the API's status and detail. */
type ToolError = { status: number; detail: unknown; etag?: string };

const PRECONDITION_REQUIRED: ToolError = {
  status: 428,
  detail:
    "Precondition required: pass `if_match` with the file's etag (as read_file, outline or list_files gave it)",
};

async function connect(h: HttpHarness, apiKey: string): Promise<Client> {
  const client = new Client({ name: 'mdstore-tests', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
    }),
  );
  return client;
}

async function scene(h: HttpHarness) {
  const { apiKey, defaultProjectId } = await h.account();
  const { id: projectId } = await h.createProject(apiKey, 'Agents');
  await h.uploadFile(apiKey, projectId, 'notes.md', '# Notes\n\n## Todo\n\n- one\n', { kind: 'notes' });
  const client = await connect(h, apiKey);
  // Every answer is checked against the outputSchema tools/list advertises, with ajv 2020 (the dialect
  // of the conversion), besides the official client's own check.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const validators = new Map(
    (await client.listTools()).tools.map((tool) => [tool.name, ajv.compile(tool.outputSchema ?? {})]),
  );
  const called = new Set<string>();
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  /** The structured answer of a call that must succeed. */
  const ok = async (name: string, args: Record<string, unknown>) => {
    const result = await call(name, args);
    expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
    // The text block carries the same JSON, for clients that only read text.
    const [block] = result.content as Array<{ type: string; text: string }>;
    expect(JSON.parse(block!.text)).toEqual(result.structuredContent);
    const validate = validators.get(name)!;
    expect(validate(result.structuredContent), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
    called.add(name);
    return result.structuredContent as Record<string, unknown>;
  };
  /** What a call that must fail as a tool error says: JSON text, and no structuredContent. */
  const fails = async (name: string, args: Record<string, unknown>) => {
    const result = await call(name, args);
    expect(result.isError, `${name} should fail`).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    const [block] = result.content as Array<{ type: string; text: string }>;
    return JSON.parse(block!.text) as ToolError;
  };
  const file = { project_id: projectId, filename: 'notes.md' };
  return { apiKey, defaultProjectId, projectId, client, call, ok, fails, file, called };
}

const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

describe('MCP attachment tools (extensions §12)', () => {
  test('an image comes back as MCP image content, a PDF as a resource link; writes are checked', async (h) => {
    const s = await scene(h);
    const project_id = s.projectId;
    const written = await s.ok('write_attachment', {
      project_id,
      path: 'img/p.png',
      content_type: 'image/png',
      content_base64: PNG_BASE64,
    });
    expect(written).toMatchObject({ path: 'img/p.png', content_type: 'image/png', created: true });
    const image = await s.call('read_attachment', { project_id, path: 'img/p.png' });
    expect(image.structuredContent).toMatchObject({ path: 'img/p.png', delivered: 'image' });
    expect(image.content[1]).toEqual({ type: 'image', data: PNG_BASE64, mimeType: 'image/png' });

    const pdf = Buffer.from('%PDF-1.4\n%%EOF\n').toString('base64');
    await s.ok('write_attachment', {
      project_id,
      path: 'doc.pdf',
      content_type: 'application/pdf',
      content_base64: pdf,
    });
    const linked = await s.call('read_attachment', { project_id, path: 'doc.pdf' });
    expect(linked.structuredContent).toMatchObject({ delivered: 'resource_link' });
    expect(linked.content[1]).toMatchObject({
      type: 'resource_link',
      uri: `mdstore://projects/${project_id}/attachments/doc.pdf`,
      name: 'doc.pdf',
      mimeType: 'application/pdf',
    });
    const listed = await s.ok('list_attachments', { project_id });
    expect((listed.attachments as { path: string }[]).map((a) => a.path)).toEqual(['doc.pdf', 'img/p.png']);

    // The same rules as over HTTP: the type against the bytes, .md paths, preconditions, base64 itself.
    const args = { project_id, path: 'x.jpg', content_type: 'image/jpeg', content_base64: PNG_BASE64 };
    expect((await s.fails('write_attachment', args)).status).toBe(415);
    expect(
      (await s.fails('write_attachment', { ...args, path: 'x.md', content_type: 'text/markdown' })).status,
    ).toBe(409);
    expect((await s.fails('write_attachment', { ...args, content_base64: 'not base64!' })).status).toBe(422);
    const stale = { ...args, path: 'img/p.png', content_type: 'image/png', if_match: '"stale"' };
    expect((await s.fails('write_attachment', stale)).status).toBe(412);
    expect((await s.fails('read_attachment', { project_id, path: 'missing.png' })).status).toBe(404);
  });
});

describe('MCP tools', () => {
  test('tools/list: every tool with a JSON schema and annotations; the server explains the discipline', async (h) => {
    const s = await scene(h);
    const { tools } = await s.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS.map((tool) => tool.name).sort());
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining([
        'list_projects',
        'list_files',
        'read_file',
        'outline',
        'create_file',
        'edit_file',
        'write_file',
        'set_metadata',
        'delete_file',
        'search',
      ]),
    );
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.description, tool.name).toBeTruthy();
      expect(typeof tool.annotations?.readOnlyHint, tool.name).toBe('boolean');
      expect(typeof tool.annotations?.destructiveHint, tool.name).toBe('boolean');
      expect(typeof tool.annotations?.idempotentHint, tool.name).toBe('boolean');
    }
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get('read_file')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get('edit_file')!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    });
    expect(byName.get('create_file')!.annotations).toMatchObject({ destructiveHint: false });
    // write_file needs one of if_match and merge_base (the tool refuses neither: 428).
    expect(Object.keys(byName.get('write_file')!.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['if_match', 'merge_base']),
    );
    expect(byName.get('delete_file')!.inputSchema.required).toContain('if_match');
    for (const name of ['edit_file', 'set_metadata', 'write_file', 'delete_file']) {
      expect(Object.keys(byName.get(name)!.inputSchema.properties ?? {}), name).toContain('if_match');
    }
    expect(s.client.getInstructions()).toContain('if_match');
    expect(s.client.getServerVersion()?.name).toBe('mdstore');
  });

  test('every tool advertises an outputSchema; every answer validates against it, without storage details', async (h) => {
    const s = await scene(h);
    const { tools } = await s.client.listTools();
    for (const tool of tools) {
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.outputSchema, tool.name).not.toHaveProperty('$schema');
      expect(JSON.stringify(tool.outputSchema), tool.name).not.toMatch(/bucket_name|storage_path/);
    }
    const { etag } = await s.ok('read_file', s.file);
    await s.ok('read_file', { ...s.file, lines: '1-2' });
    await s.ok('list_projects', {});
    await s.ok('list_files', { project_id: s.projectId, limit: 1 });
    await s.ok('outline', s.file);
    await s.ok('search', { query: 'one' });
    const edited = await s.ok('edit_file', {
      ...s.file,
      edits: [{ op: 'append', text: 'x\n' }],
      if_match: etag,
    });
    const written = await s.ok('write_file', { ...s.file, content: '# W\n', if_match: edited.etag });
    const meta = await s.ok('set_metadata', { ...s.file, metadata: { a: 1 }, if_match: written.etag });
    await s.ok('list_revisions', s.file);
    await s.ok('read_revision', { ...s.file, revision: 1 });
    await s.ok('links', s.file);
    await s.ok('broken_links', { project_id: s.projectId, limit: 5 });
    const restored = await s.ok('restore_revision', { ...s.file, revision: 1, if_match: meta.etag });
    const moved = await s.ok('move_file', { ...s.file, to: 'moved.md', if_match: restored.etag });
    const file = { project_id: s.projectId, filename: 'moved.md' };
    await s.ok('delete_file', { ...file, if_match: moved.etag });
    const created = await s.ok('create_file', { ...file, content: '# C\n' });
    // Extensions §7: what changed, and only after next_since on the next call.
    const recent = (await s.ok('recent_changes', { project_id: s.projectId })) as {
      changes: Array<{ type: string; filename: string | null; from: string | null }>;
      next_since: number;
    };
    expect(recent.changes.slice(-3).map((e) => [e.type, e.filename, e.from])).toEqual([
      ['file.moved', 'moved.md', 'notes.md'],
      ['file.deleted', 'moved.md', null],
      ['file.created', 'moved.md', null],
    ]);
    expect(await s.ok('recent_changes', { since: recent.next_since, limit: 10 })).toEqual({
      changes: [],
      next_since: recent.next_since,
    });
    await s.ok('apply_changeset', {
      project_id: s.projectId,
      operations: [{ op: 'put', filename: 'set.md', content: '# S\n' }],
    });
    expect(
      await s.ok('memory', {
        project_id: s.projectId,
        command: 'create',
        path: '/memories/m.txt',
        file_text: 'm',
      }),
    ).toEqual({ result: 'File created successfully at: /memories/m.txt', is_error: false });
    // Extensions §13: propose, add, list, read (with the diff), publish.
    const proposed = await s.ok('propose_changes', {
      project_id: s.projectId,
      title: 'Proposal',
      operations: [{ op: 'edit', filename: 'set.md', edits: [{ op: 'append', text: 'p\n' }] }],
    });
    await s.ok('propose_changes', {
      project_id: s.projectId,
      draft_id: proposed.id,
      operations: [{ op: 'put', filename: 'proposed.md', content: '# P\n' }],
    });
    const drafts = await s.ok('list_drafts', { project_id: s.projectId, state: 'open' });
    expect((drafts.drafts as { id: string }[]).map((d) => d.id)).toEqual([proposed.id]);
    const read = (await s.ok('read_draft', { project_id: s.projectId, draft_id: proposed.id })) as {
      diff: { files: { filename: string; stale: boolean }[] };
    };
    expect(read.diff.files.map((f) => [f.filename, f.stale])).toEqual([
      ['set.md', false],
      ['proposed.md', false],
    ]);
    const published = await s.ok('publish_draft', { project_id: s.projectId, draft_id: proposed.id });
    expect(published).toMatchObject({ merged: [], draft: { state: 'published' } });
    // Extensions §12.
    await s.ok('write_attachment', {
      project_id: s.projectId,
      path: 'img/p.png',
      content_type: 'image/png',
      content_base64: PNG_BASE64,
    });
    await s.ok('list_attachments', { project_id: s.projectId, prefix: 'img/' });
    await s.ok('read_attachment', { project_id: s.projectId, path: 'img/p.png' });
    expect([...s.called].sort()).toEqual(TOOLS.map((tool) => tool.name).sort());
    // The HTTP API keeps them; the tools leave them out.
    const listed = await h.fetch(`/api/projects/${s.projectId}/files`, { key: s.apiKey });
    expect(JSON.stringify(await listed.json())).toContain('storage_path');
    expect(created).not.toHaveProperty('storage_path');
    const projects = await s.ok('list_projects', {});
    expect((projects.projects as object[])[0]).not.toHaveProperty('bucket_name');
    expect(JSON.stringify(await s.ok('search', { query: 'c' }))).not.toContain('storage_path');
  });

  test('list_projects, list_files, read_file (whole, lines, section) and outline; reads return etag', async (h) => {
    const s = await scene(h);
    const projects = await s.ok('list_projects', {});
    expect((projects.projects as Array<{ name: string }>).map((p) => p.name).sort()).toEqual([
      'Agents',
      'Default',
    ]);
    const files = await s.ok('list_files', { project_id: s.projectId });
    expect(files).toMatchObject({
      total_count: 1,
      files: [{ filename: 'notes.md', metadata: { kind: 'notes' } }],
    });
    const etag = (files.files as Array<{ etag: string }>)[0]!.etag;
    // Paging and a prefix (extensions §3).
    await h.uploadFile(s.apiKey, s.projectId, 'guides/a.md', '# a');
    await h.uploadFile(s.apiKey, s.projectId, 'guides/b.md', '# b');
    const first = await s.ok('list_files', { project_id: s.projectId, prefix: 'guides/', limit: 1 });
    expect(first).toMatchObject({ total_count: 2, files: [{ filename: 'guides/a.md' }] });
    const second = await s.ok('list_files', {
      project_id: s.projectId,
      prefix: 'guides/',
      limit: 1,
      cursor: first.next_cursor,
    });
    expect(second).toMatchObject({ files: [{ filename: 'guides/b.md' }], next_cursor: null });
    expect((await s.fails('list_files', { project_id: s.projectId, limit: 0 })).status).toBe(422);
    const forged = await s.fails('list_files', { project_id: s.projectId, limit: 1, cursor: 'forged' });
    expect(forged.status).toBe(422);
    for (const name of ['guides/a.md', 'guides/b.md'])
      await h.fetch(`/api/projects/${s.projectId}/files/${encodeURIComponent(name)}`, {
        method: 'DELETE',
        key: s.apiKey,
      });
    expect(await s.ok('read_file', s.file)).toEqual({
      filename: 'notes.md',
      content: '# Notes\n\n## Todo\n\n- one\n',
      etag,
      revision: 1,
    });
    expect(await s.ok('read_file', { ...s.file, lines: '3-5' })).toMatchObject({
      content: '## Todo\n\n- one\n',
      lines: '3-5/5',
      etag,
    });
    expect(await s.ok('read_file', { ...s.file, section: ['Notes', 'Todo'] })).toMatchObject({
      content: '## Todo\n\n- one\n',
      etag,
    });
    expect(await s.ok('outline', s.file)).toEqual({
      headings: [
        { level: 1, text: 'Notes', line: 1, path: ['Notes'] },
        { level: 2, text: 'Todo', line: 3, path: ['Notes', 'Todo'] },
      ],
      links: [],
      etag,
    });
  });

  test('edit_file with if_match; a stale if_match is a tool error with 412 and the current etag', async (h) => {
    const s = await scene(h);
    const { etag } = await s.ok('read_file', s.file);
    const dry = await s.ok('edit_file', {
      ...s.file,
      edits: [{ op: 'append', section: 'Todo', text: '- two\n' }],
      dry_run: true,
      if_match: etag,
    });
    expect(dry).toMatchObject({ dry_run: true, etag, revision: 1 });
    expect(dry.diff).toContain('+- two');
    const edited = await s.ok('edit_file', {
      ...s.file,
      edits: [{ op: 'append', section: 'Todo', text: '- two\n' }],
      if_match: etag,
    });
    expect(edited).toMatchObject({ dry_run: false, revision: 2 });
    expect(edited.etag).not.toBe(etag);
    expect((await s.ok('read_file', s.file)).content).toBe('# Notes\n\n## Todo\n\n- one\n- two\n');
    const stale = await s.fails('edit_file', {
      ...s.file,
      edits: [{ op: 'append', text: 'x' }],
      if_match: etag,
    });
    expect(stale).toEqual({ status: 412, detail: 'Precondition failed', etag: edited.etag });
    // An etag without its quotes is taken as the same etag.
    const bare = String(edited.etag).replace(/"/g, '');
    expect(
      await s.ok('edit_file', { ...s.file, edits: [{ op: 'append', text: 'x' }], if_match: bare }),
    ).toMatchObject({
      revision: 3,
    });
  });

  test('read_file section: the outline path names a top-level heading; a string must be unique', async (h) => {
    const s = await scene(h);
    await h.uploadFile(s.apiKey, s.projectId, 'top.md', '# Todo\nx\n# Notes\n## Todo\ny\n');
    const file = { project_id: s.projectId, filename: 'top.md' };
    const text = await s.fails('read_file', { ...file, section: 'Todo' });
    expect(text).toMatchObject({ status: 409, detail: [{ type: 'section_ambiguous' }] });
    expect(await s.ok('read_file', { ...file, section: ['Todo'] })).toMatchObject({ content: '# Todo\nx\n' });
    expect(await s.ok('read_file', { ...file, section: ['Notes', 'Todo'] })).toMatchObject({
      content: '## Todo\ny\n',
    });
  });

  test('edit errors carry the API detail: 409 match_count and section candidates, 422 locs', async (h) => {
    const s = await scene(h);
    const twice = await s.fails('edit_file', { ...s.file, edits: [{ op: 'replace', old: 'e', new: '3' }] });
    expect(twice).toEqual({
      status: 409,
      detail: [
        {
          loc: ['arguments', 'edits', 0, 'old'],
          msg: 'The old text was found 2 times (expected 1), on lines 1, 5',
          type: 'match_count',
        },
      ],
    });
    const missing = await s.fails('edit_file', {
      ...s.file,
      edits: [{ op: 'append', section: 'Done', text: 'x' }],
    });
    expect(missing).toMatchObject({ status: 409, detail: [{ type: 'section_not_found' }] });
    expect((missing.detail as Array<{ msg: string }>)[0]!.msg).toContain('["Notes","Todo"] (line 3)');
    const invalid = await s.fails('edit_file', { ...s.file, edits: [{ op: 'delete' }] });
    expect(invalid).toMatchObject({ status: 422, detail: [{ loc: ['arguments', 'edits', 0, 'op'] }] });
    const noFile = await s.fails('read_file', { ...s.file, filename: 'none.md' });
    expect(noFile).toEqual({ status: 404, detail: 'File not found' });
    const badProject = await s.fails('list_files', { project_id: 'not-a-uuid' });
    expect(badProject).toMatchObject({ status: 422, detail: [{ loc: ['arguments', 'project_id'] }] });
    const missingArgument = await s.fails('read_file', { project_id: s.projectId });
    expect(missingArgument).toEqual({
      status: 422,
      detail: [{ loc: ['arguments', 'filename'], msg: 'Field required', type: 'missing' }],
    });
    const lines = await s.fails('read_file', { ...s.file, lines: '9-10' });
    expect(lines).toMatchObject({ status: 422, detail: [{ loc: ['arguments', 'lines'] }] });
  });

  test('create_file refuses an existing name; write_file and delete_file require if_match', async (h) => {
    const s = await scene(h);
    const created = await s.ok('create_file', {
      project_id: s.projectId,
      filename: 'new.md',
      content: '# New\n',
      metadata: { by: 'agent' },
    });
    expect(created).toMatchObject({ filename: 'new.md', revision: 1, metadata: { by: 'agent' } });
    const again = await s.fails('create_file', { project_id: s.projectId, filename: 'new.md', content: 'x' });
    expect(again.status).toBe(409);
    const target = { project_id: s.projectId, filename: 'new.md' };
    const required = PRECONDITION_REQUIRED;
    expect(await s.fails('write_file', { ...target, content: '# Replaced\n' })).toEqual(required);
    const written = await s.ok('write_file', { ...target, content: '# Replaced\n', if_match: created.etag });
    expect(written).toMatchObject({ revision: 2 });
    expect((await s.ok('read_file', target)).content).toBe('# Replaced\n');
    const meta = await s.ok('set_metadata', { ...target, metadata: { done: true }, if_match: written.etag });
    expect(meta).toMatchObject({ revision: 3, metadata: { done: true } });
    expect(await s.fails('delete_file', target)).toEqual(required);
    expect((await s.fails('delete_file', { ...target, if_match: written.etag })).status).toBe(412);
    expect(await s.ok('delete_file', { ...target, if_match: meta.etag })).toEqual({
      deleted: true,
      filename: 'new.md',
    });
    expect((await s.fails('read_file', target)).status).toBe(404);
    expect((await s.fails('create_file', { ...target, filename: 'bad.txt', content: 'x' })).status).toBe(415);
  });

  test('search: words and filters in one project or across the account, paged like the API', async (h) => {
    const s = await scene(h);
    await h.uploadFile(s.apiKey, s.projectId, 'alpha.md', '---\ntitle: Kiwi plan\n---\nripe kiwi\n', {
      team: 'a',
    });
    await h.uploadFile(s.apiKey, s.defaultProjectId, 'beta.md', 'kiwi too\n');
    const here = await s.ok('search', { project_id: s.projectId, query: 'kiwi' });
    expect(here).toMatchObject({ total_count: 1, next_cursor: null });
    const [result] = here.results as { file: Record<string, unknown>; snippets: unknown[] }[];
    expect(result!.file).toMatchObject({ filename: 'alpha.md', frontmatter: { title: 'Kiwi plan' } });
    expect(result!.snippets).toHaveLength(1);
    const everywhere = await s.ok('search', { query: 'kiwi', sort: 'filename', limit: 1 });
    expect(everywhere).toMatchObject({ total_count: 2 });
    const next = await s.ok('search', {
      query: 'kiwi',
      sort: 'filename',
      limit: 1,
      cursor: everywhere.next_cursor,
    });
    expect((next.results as { file: { filename: string } }[])[0]!.file.filename).toBe('beta.md');
    const filtered = await s.ok('search', { filter: { field: 'metadata.team', op: 'eq', value: 'a' } });
    expect((filtered.results as unknown[]).length).toBe(1);
    expect((await s.fails('search', { project_id: s.projectId, query: '-only' })).status).toBe(422);
  });

  test('links is paged like the API: at most limit links, outgoing first, then next_cursor (issue 34)', async (h) => {
    const s = await scene(h);
    await h.uploadFile(s.apiKey, s.projectId, 'from.md', '[[notes]]\n[[notes]]\n[[notes]]\n');
    await h.uploadFile(s.apiKey, s.projectId, 'notes-out.md', '[a](notes.md)\n');
    const file = { project_id: s.projectId, filename: 'notes.md' };
    const pages: Array<{ incoming: Array<{ source: string; line: number }>; next_cursor: string | null }> =
      [];
    let cursor: string | null = null;
    do {
      const page = (await s.ok('links', {
        ...file,
        limit: 2,
        ...(cursor && { cursor }),
      })) as (typeof pages)[0];
      pages.push(page);
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(pages.map((page) => page.incoming.map((link) => `${link.source}:${link.line}`))).toEqual([
      ['from.md:1', 'from.md:2'],
      ['from.md:3', 'notes-out.md:1'],
    ]);
    expect(await s.ok('links', file)).toMatchObject({ next_cursor: null });
    expect((await s.fails('links', { ...file, limit: FILE_LINK_LIMITS.pageMax + 1 })).status).toBe(422);
  });

  test('require_if_match: every tool that changes a file refuses without if_match (428)', async (h) => {
    const s = await scene(h);
    const updated = await h.json(`/api/projects/${s.projectId}`, 'PUT', s.apiKey, {
      settings: { require_if_match: true },
    });
    expect(updated.status).toBe(200);
    const required = PRECONDITION_REQUIRED;
    expect(await s.fails('edit_file', { ...s.file, edits: [{ op: 'append', text: 'x' }] })).toEqual(required);
    expect(await s.fails('set_metadata', { ...s.file, metadata: null })).toEqual(required);
    // A dry run is never 428; a new file needs no etag.
    expect(
      await s.ok('edit_file', { ...s.file, edits: [{ op: 'append', text: 'x' }], dry_run: true }),
    ).toMatchObject({
      dry_run: true,
    });
    expect(
      await s.ok('create_file', { project_id: s.projectId, filename: 'b.md', content: 'b' }),
    ).toMatchObject({
      revision: 1,
    });
  });

  test('another account is 403, a stateless server answers without initialize, unknown tools fail', async (h) => {
    const s = await scene(h);
    const other = await h.account('other');
    const otherClient = await connect(h, other.apiKey);
    const result = (await otherClient.callTool({ name: 'read_file', arguments: s.file })) as CallToolResult;
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text' }] });
    expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toMatchObject({ status: 403 });
    // The change feed of another account's project too (issue 34, finding 12), with the interface's detail.
    const feed = (await otherClient.callTool({
      name: 'recent_changes',
      arguments: { project_id: s.projectId },
    })) as CallToolResult;
    expect(feed.isError).toBe(true);
    expect(JSON.parse((feed.content as Array<{ text: string }>)[0]!.text)).toEqual({
      status: 403,
      detail: 'You do not have permission to access this resource',
    });
    // Stateless: a tools/call with no session and no initialize before it.
    const raw = await mcpPost(h, s.apiKey, {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'list_projects', arguments: {} },
    });
    expect(raw.status).toBe(200);
    expect(raw.headers.get('mcp-session-id')).toBeNull();
    const answer = (await raw.json()) as {
      id: number;
      result: { structuredContent: { total_count: number } };
    };
    expect(answer).toMatchObject({ id: 7, result: { structuredContent: { total_count: 2 } } });
    // The client prefixes "MCP error <code>: " to the message it receives: exactly once.
    const unknown = await s.client.callTool({ name: 'nope', arguments: {} }).catch((error: unknown) => error);
    expect(unknown).toMatchObject({ code: -32602, message: 'MCP error -32602: Unknown tool: nope' });
  });
});

const ACCEPT = 'application/json, text/event-stream';

function mcpPost(
  h: HttpHarness,
  apiKey: string | undefined,
  body: unknown,
  headers: Record<string, string> = {},
) {
  return h.fetch('/mcp', {
    method: 'POST',
    ...(apiKey !== undefined && { key: apiKey }),
    headers: { 'Content-Type': 'application/json', Accept: ACCEPT, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

describe('the /mcp endpoint', () => {
  test('a missing or bad key is the API 401; the SDK client fails to connect', async (h) => {
    const missing = await mcpPost(h, undefined, INITIALIZE);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    expect(await missing.json()).toEqual({ detail: 'Invalid authentication credentials' });
    expect((await mcpPost(h, 'not-a-key', INITIALIZE)).status).toBe(401);
    await expect(connect(h, 'not-a-key')).rejects.toThrow();
  });

  test('GET and DELETE are 405 (stateless: no stream, no session); a body that is not JSON is 400', async (h) => {
    const { apiKey } = await h.account();
    for (const method of ['GET', 'DELETE']) {
      const response = await h.fetch('/mcp', { method, key: apiKey, headers: { Accept: ACCEPT } });
      expect(response.status, method).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      // Behind the key and the budget, as under /api.
      expect(response.headers.get('x-ratelimit-limit')).not.toBeNull();
      expect((await h.fetch('/mcp', { method, headers: { Accept: ACCEPT } })).status).toBe(401);
      const foreign = await h.fetch('/mcp', {
        method,
        key: apiKey,
        headers: { Origin: 'http://evil.example' },
      });
      expect(foreign.status).toBe(403);
    }
    const broken = await mcpPost(h, apiKey, '{"jsonrpc":');
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ error: { code: -32700 } });
    const text = await mcpPost(h, apiKey, 'x', { 'Content-Type': 'text/plain' });
    expect(text.status).toBe(415);
  });

  test('an Origin naming another origin is 403; the own origin passes', async (h) => {
    const { apiKey } = await h.account();
    const foreign = await mcpPost(h, apiKey, INITIALIZE, { Origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toEqual({ detail: 'Forbidden: the Origin header names another origin' });
    expect((await mcpPost(h, apiKey, INITIALIZE, { Origin: 'null' })).status).toBe(403);
    const own = await mcpPost(h, apiKey, INITIALIZE, { Origin: h.url });
    expect(own.status).toBe(200);
    expect(await own.json()).toMatchObject({ id: 1, result: { serverInfo: { name: 'mdstore' } } });
  });

  serverTest({ settings: { rateLimits: { standard: 4, premium: 10 } } })(
    'each JSON-RPC request counts once against the key budget; a spent budget is the API 429',
    async (h) => {
      const { apiKey } = await h.account();
      const first = await mcpPost(h, apiKey, INITIALIZE);
      expect(first.status).toBe(200);
      expect(first.headers.get('x-ratelimit-limit')).toBe('4');
      expect(first.headers.get('x-ratelimit-remaining')).toBe('3');
      // A batch of two requests and a notification: two units.
      const batch = await mcpPost(h, apiKey, [
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 3, method: 'ping' },
      ]);
      expect(batch.headers.get('x-ratelimit-remaining')).toBe('1');
      const last = await mcpPost(h, apiKey, { jsonrpc: '2.0', id: 4, method: 'ping' });
      expect(last.status).toBe(200);
      const spent = await mcpPost(h, apiKey, { jsonrpc: '2.0', id: 5, method: 'ping' });
      expect(spent.status).toBe(429);
      expect(spent.headers.get('retry-after')).not.toBeNull();
      expect(spent.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(((await spent.json()) as { detail: string }).detail).toMatch(/^Rate limit exceeded/);
      // The SDK client sees the refusal as a failed connection.
      await expect(connect(h, apiKey)).rejects.toThrow();
    },
  );
});

describe('MCP merge_base (extensions §13)', () => {
  test('write_file and edit_file merge a change made from an older version; overlaps are 409 with conflicts', async (h) => {
    const s = await scene(h);
    const target = { project_id: s.projectId, filename: 'merge.md' };
    const base = await s.ok('create_file', { ...target, content: 'one\ntwo\nthree\nfour\nfive\n' });
    // Someone else changes the last line meanwhile.
    await s.ok('write_file', { ...target, content: 'one\ntwo\nthree\nfour\nFIVE\n', if_match: base.etag });
    // Changes made from the first version land beside it.
    const written = await s.ok('write_file', {
      ...target,
      content: 'ONE\ntwo\nthree\nfour\nfive\n',
      merge_base: base.etag,
    });
    expect(written).toMatchObject({ revision: 3, merged: true });
    const edited = await s.ok('edit_file', {
      ...target,
      edits: [{ op: 'replace', old: 'three', new: 'THREE' }],
      merge_base: String(base.etag).replaceAll('"', ''),
    });
    expect(edited).toMatchObject({ revision: 4, merged: true });
    expect((await s.ok('read_file', target)).content).toBe('ONE\ntwo\nTHREE\nfour\nFIVE\n');
    // From the current version there is nothing to merge: no `merged`.
    const plain = await s.ok('edit_file', {
      ...target,
      edits: [{ op: 'append', text: 'six\n' }],
      merge_base: edited.etag,
    });
    expect(plain).toMatchObject({ revision: 5 });
    expect(plain.merged).toBeUndefined();
    // The first line changed on both sides: refused, nothing written.
    const conflict = await s.fails('write_file', {
      ...target,
      content: 'uno\ntwo\nthree\nfour\nfive\n',
      merge_base: base.etag,
    });
    expect(conflict.status).toBe(409);
    expect((conflict as unknown as { conflicts: unknown[] }).conflicts.length).toBeGreaterThan(0);
    expect((await s.ok('read_file', target)).revision).toBe(5);
    // Both conditions at once, or a base that is no ETag: 422 at the argument.
    const both = await s.fails('write_file', {
      ...target,
      content: 'x\n',
      if_match: plain.etag,
      merge_base: plain.etag,
    });
    expect(both.status).toBe(422);
    expect(JSON.stringify(both.detail)).toContain('"arguments","merge_base"');
    expect((await s.fails('edit_file', { ...target, edits: [], merge_base: 'nope' })).status).toBe(422);
  });
});

describe('MCP memory (extensions §14)', () => {
  test('memory: the tool input and texts of the HTTP route; view with a read key, changes audited', async (h) => {
    const s = await scene(h);
    const args = (input: Record<string, unknown>) => ({ project_id: s.projectId, ...input });
    await s.ok('memory', args({ command: 'create', path: '/memories/a.txt', file_text: 'one\ntwo\n' }));
    expect(
      await s.ok(
        'memory',
        args({ command: 'str_replace', path: '/memories/a.txt', old_str: 'two', new_str: '2' }),
      ),
    ).toEqual({
      result:
        'The memory file has been edited. Here is the snippet showing the change (with line numbers):\n' +
        '     1\tone\n     2\t2\n     3\t',
      is_error: false,
    });
    expect(
      await s.ok('memory', args({ command: 'view', path: '/memories/a.txt', view_range: [2, 2] })),
    ).toEqual({
      result: "Here's the content of /memories/a.txt with line numbers:\n     2\t2",
      is_error: false,
    });
    expect(await s.ok('memory', args({ command: 'view', path: '/memories/../x' }))).toEqual({
      result: 'Path /memories/../x would escape /memories directory',
      is_error: true,
    });
    expect((await s.fails('memory', args({ command: 'view' }))).status).toBe(422);
    const account = await h.store.accounts.find({
      account: (await h.store.authenticate({ apiKey: s.apiKey })).accountId,
    });
    const reader = await h.store.apiKeys.create({ account: account!.id, role: 'read' });
    const readClient = await connect(h, reader.apiKey);
    const listed = await readClient.listTools();
    expect(listed.tools.map((tool) => tool.name)).toContain('memory');
    const viewed = (await readClient.callTool({
      name: 'memory',
      arguments: args({ command: 'view', path: '/memories' }),
    })) as CallToolResult;
    expect(viewed.isError).toBeFalsy();
    const refused = (await readClient.callTool({
      name: 'memory',
      arguments: args({ command: 'delete', path: '/memories/a.txt' }),
    })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(JSON.parse((refused.content as Array<{ text: string }>)[0]!.text).status).toBe(403);
    await h.audit.flush();
    const audit = await h.fetch(`/api/audit?project_id=${s.projectId}`, { key: s.apiKey });
    const entries = (
      (await audit.json()) as { entries: Array<{ action: string; filename: string | null; status: number }> }
    ).entries.filter((e) => e.action === 'POST /mcp memory');
    // The create and the str_replace (changes), the read key's refusal (naming the file as stored, like
    // the changes); not the views or the error text.
    expect(entries.map((e) => `${e.status} ${e.filename}`).sort()).toEqual(
      ['200 memories/a.txt.md', '200 memories/a.txt.md', '403 memories/a.txt.md'].sort(),
    );
  });
});

describe('MCP changesets (extensions §9)', () => {
  test('apply_changeset: all operations or none; an error names the failing operation', async (h) => {
    const s = await scene(h);
    const { etag } = await s.ok('read_file', s.file);
    const applied = await s.ok('apply_changeset', {
      project_id: s.projectId,
      message: 'Restructure notes',
      operations: [
        { op: 'move', filename: 'notes.md', to: 'archive/notes.md', if_match: etag },
        {
          op: 'put',
          filename: 'index.md',
          content: '# Index\n\n- [Notes](archive/notes.md)\n',
          if_match: null,
        },
      ],
    });
    expect(applied).toMatchObject({
      dry_run: false,
      files: [
        { filename: 'archive/notes.md', revision: 2 },
        { filename: 'index.md', revision: 1 },
      ],
    });
    const revisions = await s.ok('list_revisions', { project_id: s.projectId, filename: 'archive/notes.md' });
    expect((revisions.revisions as Array<Record<string, unknown>>)[0]).toMatchObject({
      change: 'move',
      changeset_id: applied.changeset_id,
      message: 'Restructure notes',
    });
    const failed = await s.fails('apply_changeset', {
      project_id: s.projectId,
      operations: [
        { op: 'delete', filename: 'index.md' },
        { op: 'delete', filename: 'archive/notes.md', if_match: etag },
      ],
    });
    expect(failed.status).toBe(412);
    // As every tool error: the API's loc, with "arguments" for "body".
    expect(failed.detail).toMatchObject([
      { loc: ['arguments', 'operations', 1], type: 'precondition_failed' },
    ]);
    expect((await s.ok('read_file', { project_id: s.projectId, filename: 'index.md' })).revision).toBe(1);
    const dry = await s.ok('apply_changeset', {
      project_id: s.projectId,
      dry_run: true,
      operations: [{ op: 'delete', filename: 'index.md' }],
    });
    expect(dry).toEqual({
      changeset_id: null,
      dry_run: true,
      files: [{ filename: 'index.md', deleted: true }],
    });
    expect((await s.ok('read_file', { project_id: s.projectId, filename: 'index.md' })).revision).toBe(1);
  });

  test('apply_changeset takes attach and detach (extensions §12): a note and its image together', async (h) => {
    const s = await scene(h);
    const png =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    const applied = await s.ok('apply_changeset', {
      project_id: s.projectId,
      operations: [
        { op: 'put', filename: 'pic.md', content: '![](img/a.png)\n' },
        { op: 'attach', path: 'img/a.png', content_base64: png, content_type: 'image/png' },
      ],
    });
    expect(applied.files).toMatchObject([
      { filename: 'pic.md', revision: 1 },
      { path: 'img/a.png', content_type: 'image/png', size_bytes: 70 },
    ]);
    const detached = await s.ok('apply_changeset', {
      project_id: s.projectId,
      operations: [{ op: 'detach', path: 'img/a.png' }],
    });
    expect(detached.files).toEqual([{ path: 'img/a.png', deleted: true }]);
    const refused = await s.fails('apply_changeset', {
      project_id: s.projectId,
      operations: [{ op: 'attach', path: 'img/b.png', content_base64: png, content_type: 'image/jpeg' }],
    });
    expect(refused.status).toBe(415);
  });
});

describe('MCP history tools (extensions §5)', () => {
  test('list_revisions, read_revision, restore_revision and move_file; the writes require if_match', async (h) => {
    const s = await scene(h);
    const first = await s.ok('read_file', s.file);
    const written = await s.ok('write_file', { ...s.file, content: '# Changed\n', if_match: first.etag });
    const list = await s.ok('list_revisions', s.file);
    expect(list).toMatchObject({
      revisions: [
        { revision: 2, change: 'content', etag: written.etag },
        { revision: 1, change: 'created', etag: first.etag },
      ],
      next_cursor: null,
    });
    const page = await s.ok('list_revisions', { ...s.file, limit: 1 });
    expect((page.revisions as unknown[]).length).toBe(1);
    expect(typeof page.next_cursor).toBe('string');
    expect(await s.ok('read_revision', { ...s.file, revision: 1 })).toEqual({
      filename: 'notes.md',
      revision: 1,
      content: first.content,
      etag: first.etag,
    });
    expect(await s.fails('read_revision', { ...s.file, revision: 7 })).toEqual({
      status: 404,
      detail: 'Revision not found',
    });
    const required = PRECONDITION_REQUIRED;
    expect(await s.fails('restore_revision', { ...s.file, revision: 1 })).toEqual(required);
    expect((await s.fails('restore_revision', { ...s.file, revision: 1, if_match: first.etag })).status).toBe(
      412,
    );
    const restored = await s.ok('restore_revision', { ...s.file, revision: 1, if_match: written.etag });
    expect(restored).toMatchObject({ revision: 3, metadata: { kind: 'notes' } });
    expect((await s.ok('read_file', s.file)).content).toBe(first.content);
    expect(await s.fails('move_file', { ...s.file, to: 'moved.md' })).toEqual(required);
    const moved = await s.ok('move_file', { ...s.file, to: 'archive-moved.md', if_match: restored.etag });
    expect(moved).toMatchObject({ filename: 'archive-moved.md', revision: 4 });
    expect((await s.fails('read_file', s.file)).status).toBe(404);
    const history = await s.ok('list_revisions', { project_id: s.projectId, filename: 'archive-moved.md' });
    expect((history.revisions as Array<{ change: string }>).map((r) => r.change)).toEqual([
      'move',
      'restore',
      'content',
      'created',
    ]);
  });
});
