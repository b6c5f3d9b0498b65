import { request } from 'node:http';
import { ROLES, type Role, roleCovers } from '@mdstore/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { mountRoutes } from '../../src/http/api/mount.js';
import { defineRoute, type RouteDescription } from '../../src/http/api/route.js';
import { ROUTES } from '../../src/http/api/routes-table.js';
import { TOOL_ROLES } from '../../src/mcp/tool-roles.js';
import { TOOLS } from '../../src/mcp/tools.js';
import { type HttpHarness, serverTest } from '../support/http-harness.js';

/**
 * Extensions §8 over HTTP and MCP, on whichever adapter set runs the suite: the role of every route and
 * every tool (a matrix generated from the route table and the tool-role map), project scopes, expiry,
 * and `/api/keys`.
 */

const test = serverTest();
const NOT_ALLOWED = { detail: 'API key does not allow this operation' };
const PROJECT_NOT_FOUND = { detail: 'Project not found' };
const RANDOM_ID = '0f0e0d0c-0b0a-4009-8807-060504030201';

async function* bytes(text: string) {
  yield new TextEncoder().encode(text);
}

/** An account, and a key of it made by the admin CLI's use case with the given reach. */
async function scene(h: HttpHarness) {
  const account = await h.account();
  const key = async (
    role: Role,
    o: { projectIds?: string[]; expiresDate?: string } = {},
  ): Promise<{ apiKey: string; keyId: string }> => {
    const issued = await h.store.apiKeys.create({ account: account.accountId, role, ...o });
    return { apiKey: issued.apiKey, keyId: issued.keyId };
  };
  const upload = async (projectId: string, filename: string, text: string) => {
    const principal = await h.store.authenticate({ apiKey: account.apiKey });
    await h.store.files.upload({ principal, projectId, filename, content: bytes(text) });
  };
  return { ...account, key, upload };
}

interface Probe {
  readonly status: number;
  readonly body: string;
  /** Whether the server asked for the body (`100 Continue`). */
  readonly continued: boolean;
}

/**
 * One request; with a body-carrying method, `Expect: 100-continue` and the body sent only if the server
 * asks for it, so a refusal "before the body is read" shows as an answer without `100 Continue`.
 */
function probe(h: HttpHarness, method: string, path: string, apiKey: string): Promise<Probe> {
  const withBody = method === 'POST' || method === 'PUT' || method === 'PATCH';
  const body = Buffer.from('{}');
  return new Promise((resolve, reject) => {
    const req = request(`${h.url}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${apiKey}`,
        ...(withBody && {
          'Content-Type': 'application/json',
          'Content-Length': String(body.length),
          Expect: '100-continue',
        }),
      },
    });
    let continued = false;
    req.on('continue', () => {
      continued = true;
      req.end(body);
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), continued });
        req.destroy();
      });
    });
    req.on('error', reject);
    if (withBody) req.flushHeaders();
    else req.end();
  });
}

/** A concrete path for a route template: real project, names that need not exist. */
const concretePath = (template: string, projectId: string) =>
  template
    .replace(':project_id', projectId)
    .replace(':filename', 'matrix.md')
    .replace(':revision', '1')
    .replace(':trash_id', 'no-such-item')
    .replace(':key_id', RANDOM_ID)
    .replace(':draft_id', RANDOM_ID)
    .replace(':path', 'matrix.png')
    .replace(/:(share_id|webhook_id)/, RANDOM_ID);

const KEYED_ROUTES = ROUTES.map((route) => route.description).filter((route) => route.auth === 'apiKey');

describe("another account's project: every route of the table (extensions §0)", () => {
  test('an admin key of another account gets the interface’s 403 on every route naming the project', async (h) => {
    const s = await scene(h);
    const stranger = await h.account();
    const routes = KEYED_ROUTES.filter((route) => route.path.includes(':project_id'));
    expect(routes.length).toBeGreaterThan(40);
    for (const route of routes) {
      const answer = await probe(
        h,
        route.method,
        concretePath(route.path, s.defaultProjectId),
        stranger.apiKey,
      );
      const label = `${route.method} ${route.path}: ${answer.status} ${answer.body.slice(0, 200)}`;
      expect(answer.status, label).toBe(403);
      expect(JSON.parse(answer.body), label).toEqual({
        detail: 'You do not have permission to access this resource',
      });
    }
    // Nothing of the project changed.
    const listed = await h.fetch(`/api/projects/${s.defaultProjectId}/files`, { key: s.apiKey });
    expect(((await listed.json()) as { files: unknown[] }).files).toEqual([]);
  });
});

describe('roles: every route of the table, every role (extensions §8)', () => {
  test('a key whose role is below the route’s is 403 before the body is read; any other is not refused for its role', async (h) => {
    const s = await scene(h);
    const keys = Object.fromEntries(await Promise.all(ROLES.map(async (role) => [role, await s.key(role)])));
    let cases = 0;
    for (const route of KEYED_ROUTES) {
      for (const role of ROLES) {
        const path = concretePath(route.path, s.defaultProjectId);
        const answer = await probe(h, route.method, path, keys[role].apiKey);
        const label = `${role} key, ${route.method} ${route.path}: ${answer.status} ${answer.body}`;
        if (roleCovers(role, route.role!)) {
          expect(answer.body, label).not.toBe(JSON.stringify(NOT_ALLOWED));
          expect(answer.status, label).not.toBe(401);
        } else {
          expect(answer.status, label).toBe(403);
          expect(JSON.parse(answer.body), label).toEqual(NOT_ALLOWED);
          expect(answer.continued, `${label}: the body was asked for`).toBe(false);
        }
        cases++;
      }
    }
    expect(cases).toBe(KEYED_ROUTES.length * ROLES.length);
    // The refusals changed nothing: the default project is still there and has no file.
    const listed = await h.fetch(`/api/projects/${s.defaultProjectId}/files`, { key: s.apiKey });
    expect(((await listed.json()) as { files: unknown[] }).files).toEqual([]);
  });

  it('every role of the table is one of the four; reading routes are read, project deletion admin', () => {
    for (const route of KEYED_ROUTES) expect(ROLES, route.operationId).toContain(route.role);
    const roleOf = (operationId: string) => KEYED_ROUTES.find((r) => r.operationId === operationId)?.role;
    expect(roleOf('downloadFile')).toBe('read');
    expect(roleOf('searchAll')).toBe('read');
    expect(roleOf('uploadFile')).toBe('write');
    expect(roleOf('createProject')).toBe('write');
    expect(roleOf('deleteProject')).toBe('admin');
    expect(roleOf('createKey')).toBe('admin');
    expect(roleOf('listKeys')).toBe('admin');
    // Extensions §13: a propose key proposes, nothing more.
    expect(roleOf('publishDraft')).toBe('write');
    expect(roleOf('reviewDraft')).toBe('write');
  });

  it('a propose key may do exactly the read routes and open, add to and close drafts (extensions §13)', () => {
    const allowed = KEYED_ROUTES.filter((route) => roleCovers('propose', route.role!)).map(
      (r) => r.operationId,
    );
    const reads = KEYED_ROUTES.filter((route) => route.role === 'read').map((r) => r.operationId);
    expect(allowed.sort()).toEqual([...reads, 'createDraft', 'addDraftOperations', 'closeDraft'].sort());
    // Every write route of a file, project, key, webhook or share stays out of its reach.
    for (const route of KEYED_ROUTES.filter((r) => r.role === 'write' || r.role === 'admin')) {
      expect(roleCovers('propose', route.role!), route.operationId).toBe(false);
    }
    const tools = Object.entries(TOOL_ROLES).filter(([, role]) => roleCovers('propose', role));
    expect(tools.filter(([, role]) => role !== 'read').map(([name]) => name)).toEqual(['propose_changes']);
  });

  it('a route without a role cannot be mounted, nor a keyless route with one', () => {
    const base: Omit<RouteDescription, 'role'> = {
      method: 'GET',
      path: '/api/unroled',
      // An operation with a row in the budget table (issue 34): a route without one is not mounted.
      operationId: 'listProjects',
      summary: 'x',
      tags: ['Projects'],
      auth: 'apiKey',
      answers: {},
    };
    const mount = (description: RouteDescription) =>
      mountRoutes(express(), [defineRoute(description, () => () => {})], {} as never);
    expect(() => mount(base as RouteDescription)).toThrow(/declares no role/);
    expect(() => mount({ ...base, role: 'owner' as Role })).toThrow(/declares no role/);
    expect(() => mount({ ...base, auth: 'none', role: 'read' })).toThrow(/cannot declare a role/);
    expect(() => mount({ ...base, role: 'read' })).not.toThrow();
  });

  test('a project update is judged by its body: settings need admin, a rename needs write', async (h) => {
    const s = await scene(h);
    const writer = await s.key('write');
    const project = `/api/projects/${s.defaultProjectId}`;
    const settings = await h.json(project, 'PUT', writer.apiKey, { settings: { keep_revisions: 3 } });
    expect(settings.status).toBe(403);
    expect(await settings.json()).toEqual(NOT_ALLOWED);
    const created = await h.json('/api/projects', 'POST', writer.apiKey, {
      name: 'With settings',
      settings: { trash_retention_days: 3 },
    });
    expect(created.status).toBe(403);
    const renamed = await h.json(project, 'PUT', writer.apiKey, { description: 'by a writer' });
    expect(renamed.status).toBe(200);
    const after = (await (await h.fetch(project, { key: s.apiKey })).json()) as {
      settings: { keep_revisions: number };
      description: string;
    };
    expect(after.settings.keep_revisions).toBe(20);
    expect(after.description).toBe('by a writer');
    const admin = await h.json(project, 'PUT', s.apiKey, { settings: { keep_revisions: 3 } });
    expect(admin.status).toBe(200);
  });
});

/** A tool error's body: JSON text (tool errors carry no structuredContent, see mcp/results.ts). */
const toolErrorBody = (result: CallToolResult): unknown =>
  JSON.parse((result.content[0] as { text: string }).text);

async function connect(h: HttpHarness, apiKey: string) {
  const client = new Client({ name: 'mdstore-access-tests', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
    }),
  );
  return client;
}

describe('MCP by role (extensions §8)', () => {
  test('tools/list shows exactly the tools the role allows; calling another is a 403 tool error', async (h) => {
    const s = await scene(h);
    expect(Object.keys(TOOL_ROLES).sort()).toEqual(TOOLS.map((tool) => tool.name).sort());
    for (const role of ROLES) {
      const client = await connect(h, (await s.key(role)).apiKey);
      const { tools } = await client.listTools();
      const expected = TOOLS.filter((tool) => roleCovers(role, TOOL_ROLES[tool.name]!)).map((t) => t.name);
      expect(tools.map((tool) => tool.name).sort(), role).toEqual(expected.sort());
      for (const tool of TOOLS.filter((t) => !expected.includes(t.name))) {
        const result = (await client.callTool({
          name: tool.name,
          arguments: { project_id: s.defaultProjectId, filename: 'x.md', content: '# x', if_match: '"x"' },
        })) as CallToolResult;
        expect(result.isError, `${role} calling ${tool.name}`).toBe(true);
        expect(toolErrorBody(result)).toEqual({ status: 403, ...NOT_ALLOWED });
      }
      await client.close();
    }
    // Nothing was written by the refused calls.
    const principal = await h.store.authenticate({ apiKey: s.apiKey });
    const files = await h.store.files.list({ principal, projectId: s.defaultProjectId });
    expect(files.files).toEqual([]);
  });

  test('a project-scoped key sees only its projects through MCP', async (h) => {
    const s = await scene(h);
    const { id: other } = await h.createProject(s.apiKey, 'Other');
    const client = await connect(h, (await s.key('read', { projectIds: [s.defaultProjectId] })).apiKey);
    const listed = (await client.callTool({ name: 'list_projects', arguments: {} })) as CallToolResult;
    const projects = (listed.structuredContent as { projects: { id: string }[] }).projects;
    expect(projects.map((project) => project.id)).toEqual([s.defaultProjectId]);
    const outside = (await client.callTool({
      name: 'list_files',
      arguments: { project_id: other },
    })) as CallToolResult;
    expect(toolErrorBody(outside)).toEqual({ status: 404, ...PROJECT_NOT_FOUND });
    await client.close();
  });
});

describe('project scopes (extensions §8)', () => {
  test('a project outside the scope is 404 on every route that names it; List Projects shows only the scope', async (h) => {
    const s = await scene(h);
    const { id: inside } = await h.createProject(s.apiKey, 'Inside');
    const { id: outside } = await h.createProject(s.apiKey, 'Outside');
    const scoped = await s.key('admin', { projectIds: [inside] });
    for (const route of KEYED_ROUTES.filter((r) => r.path.includes(':project_id'))) {
      const answer = await probe(h, route.method, concretePath(route.path, outside), scoped.apiKey);
      const label = `${route.method} ${route.path}: ${answer.status} ${answer.body}`;
      expect(answer.status, label).toBe(404);
      expect(JSON.parse(answer.body), label).toEqual(PROJECT_NOT_FOUND);
    }
    const list = async (query = '') =>
      (await (await h.fetch(`/api/projects${query}`, { key: scoped.apiKey })).json()) as {
        projects: { id: string }[];
        total_count: number;
        next_cursor?: string | null;
      };
    const all = await list();
    expect(all.projects.map((p) => p.id)).toEqual([inside]);
    expect(all.total_count).toBe(1);
    const paged = await list('?limit=1');
    expect(paged).toMatchObject({ total_count: 1, next_cursor: null });
    expect(paged.projects.map((p) => p.id)).toEqual([inside]);
    // The unscoped key of the account still sees all three.
    const full = (await (await h.fetch('/api/projects', { key: s.apiKey })).json()) as {
      total_count: number;
    };
    expect(full.total_count).toBe(3);
  });

  test('paging a scope of several projects walks only the scope, in order', async (h) => {
    const s = await scene(h);
    const ids: string[] = [];
    for (const name of ['a', 'b', 'c', 'd']) ids.push((await h.createProject(s.apiKey, name)).id);
    const scoped = await s.key('read', { projectIds: [ids[3]!, ids[0]!, ids[2]!] });
    const seen: string[] = [];
    let cursor: string | null | undefined = null;
    do {
      const query: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : '?limit=2';
      const page = (await (await h.fetch(`/api/projects${query}`, { key: scoped.apiKey })).json()) as {
        projects: { id: string }[];
        total_count: number;
        next_cursor: string | null;
      };
      expect(page.total_count).toBe(3);
      seen.push(...page.projects.map((p) => p.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual([ids[0], ids[2], ids[3]]);
  });

  test('search across the account finds only files of the scope; a scoped key cannot create projects', async (h) => {
    const s = await scene(h);
    const { id: inside } = await h.createProject(s.apiKey, 'Inside');
    const { id: outside } = await h.createProject(s.apiKey, 'Outside');
    await s.upload(inside, 'in.md', '# Quarterly fox report');
    await s.upload(outside, 'out.md', '# Secret fox plans');
    const scoped = await s.key('write', { projectIds: [inside] });
    const found = await h.json('/api/search', 'POST', scoped.apiKey, { query: 'fox' });
    expect(found.status).toBe(200);
    const results = ((await found.json()) as { results: { file: { filename: string } }[] }).results;
    expect(results.map((r) => r.file.filename)).toEqual(['in.md']);
    const named = await h.json('/api/search', 'POST', scoped.apiKey, {
      query: 'fox',
      project_ids: [outside],
    });
    expect(named.status).toBe(404);
    const unscoped = await h.json('/api/search', 'POST', s.apiKey, { query: 'fox' });
    expect(((await unscoped.json()) as { results: unknown[] }).results).toHaveLength(2);
    const create = await h.json('/api/projects', 'POST', scoped.apiKey, { name: 'Escape' });
    expect(create.status).toBe(403);
    expect(await create.json()).toEqual(NOT_ALLOWED);
  });
});

describe('expiry (extensions §8)', () => {
  test('an expired key is 401 "API key expired" with WWW-Authenticate; before, it works', async (h) => {
    const s = await scene(h);
    const ci = await s.key('write', { expiresDate: new Date(h.clock.now() + 60_000).toISOString() });
    expect((await h.fetch('/api/projects', { key: ci.apiKey })).status).toBe(200);
    h.clock.advance(60_001);
    const expired = await h.fetch('/api/projects', { key: ci.apiKey });
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toBe('Bearer');
    expect(await expired.json()).toEqual({ detail: 'API key expired' });
    expect((await h.fetch('/api/projects', { key: s.apiKey })).status).toBe(200);
  });
});

describe('/api/keys (extensions §8)', () => {
  test('create: 201 with the secret once; the new key works with its reach; list shows no secret', async (h) => {
    const s = await scene(h);
    const expires = new Date(h.clock.now() + 86_400_000).toISOString();
    const created = await h.json('/api/keys', 'POST', s.apiKey, {
      name: 'agent',
      role: 'read',
      project_ids: [s.defaultProjectId],
      expires_date: expires,
    });
    expect(created.status).toBe(201);
    const key = (await created.json()) as Record<string, unknown>;
    expect(key).toEqual({
      id: expect.any(String),
      name: 'agent',
      role: 'read',
      project_ids: [s.defaultProjectId],
      path_prefixes: null,
      expires_date: expires,
      created_date: expect.any(String),
      api_key: expect.any(String),
    });
    const secret = key.api_key as string;
    expect((await h.fetch('/api/projects', { key: secret })).status).toBe(200);
    expect((await h.json('/api/projects', 'POST', secret, { name: 'nope' })).status).toBe(403);
    const listed = await h.fetch('/api/keys', { key: s.apiKey });
    expect(listed.status).toBe(200);
    const text = await listed.text();
    expect(text).not.toContain(secret);
    const keys = (JSON.parse(text) as { keys: Record<string, unknown>[] }).keys;
    expect(keys.map((k) => k.id)).toContain(key.id);
    const agent = keys.find((k) => k.id === key.id)!;
    expect(Object.keys(agent).sort()).toEqual(
      [
        'created_date',
        'expires_date',
        'id',
        'last_used_date',
        'name',
        'path_prefixes',
        'project_ids',
        'role',
      ].sort(),
    );
    // Used once above: the last use is noted.
    expect(typeof agent.last_used_date).toBe('string');
  });

  test('current: any role reads its own key (no secret), scoped and expiring; a revoked key is 401', async (h) => {
    const s = await scene(h);
    const expires = new Date(h.clock.now() + 86_400_000).toISOString();
    const created = await h.json('/api/keys', 'POST', s.apiKey, {
      name: 'console reader',
      role: 'read',
      project_ids: [s.defaultProjectId],
      expires_date: expires,
    });
    const key = (await created.json()) as { id: string; api_key: string };
    const current = await h.fetch('/api/keys/current', { key: key.api_key });
    expect(current.status).toBe(200);
    const text = await current.text();
    expect(text).not.toContain(key.api_key);
    expect(JSON.parse(text)).toEqual({
      id: key.id,
      name: 'console reader',
      role: 'read',
      project_ids: [s.defaultProjectId],
      path_prefixes: null,
      expires_date: expires,
      created_date: expect.any(String),
      last_used_date: expect.toBeOneOf([null, expect.any(String)]),
    });
    const admin = (await (await h.fetch('/api/keys/current', { key: s.apiKey })).json()) as Record<
      string,
      unknown
    >;
    expect([admin.role, admin.project_ids, admin.expires_date]).toEqual(['admin', null, null]);
    expect((await h.fetch(`/api/keys/${key.id}`, { method: 'DELETE', key: s.apiKey })).status).toBe(204);
    expect((await h.fetch('/api/keys/current', { key: key.api_key })).status).toBe(401);
  });

  test('create: expires_date must be in the future (422), fields are checked (422), projects as everywhere', async (h) => {
    const s = await scene(h);
    const past = await h.json('/api/keys', 'POST', s.apiKey, {
      name: 'late',
      role: 'read',
      expires_date: new Date(h.clock.now() - 1000).toISOString(),
    });
    expect(past.status).toBe(422);
    expect(((await past.json()) as { detail: { loc: string[] }[] }).detail[0]!.loc).toEqual([
      'body',
      'expires_date',
    ]);
    const bad = await h.json('/api/keys', 'POST', s.apiKey, { name: 'x', role: 'owner' });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { detail: { loc: string[] }[] }).detail[0]!.loc).toEqual(['body', 'role']);
    const missing = await h.json('/api/keys', 'POST', s.apiKey, { role: 'read' });
    expect(missing.status).toBe(422);
    // A project id that parses is decided as on every project route (issue 34, finding 12).
    const scoped = async (projectId: string) => {
      const response = await h.json('/api/keys', 'POST', s.apiKey, {
        name: 'x',
        role: 'read',
        project_ids: [s.defaultProjectId, projectId],
      });
      return [response.status, await response.json()];
    };
    expect(await scoped(RANDOM_ID)).toEqual([404, PROJECT_NOT_FOUND]);
    const other = await h.account();
    expect(await scoped(other.defaultProjectId)).toEqual([
      403,
      { detail: 'You do not have permission to access this resource' },
    ]);
  });

  test('create: never more than the creating key (403)', async (h) => {
    const s = await scene(h);
    const { id: other } = await h.createProject(s.apiKey, 'Other');
    const soon = new Date(h.clock.now() + 60_000).toISOString();
    const later = new Date(h.clock.now() + 120_000).toISOString();
    const scoped = await s.key('admin', { projectIds: [s.defaultProjectId], expiresDate: soon });
    const create = (body: Record<string, unknown>) =>
      h.json('/api/keys', 'POST', scoped.apiKey, { name: 'child', role: 'read', ...body });
    for (const body of [
      { expires_date: soon }, // every project
      { project_ids: [s.defaultProjectId, other], expires_date: soon }, // a project outside its own
      { project_ids: [s.defaultProjectId] }, // never expiring
      { project_ids: [s.defaultProjectId], expires_date: later }, // expiring later
    ]) {
      const refused = await create(body);
      expect(refused.status, JSON.stringify(body)).toBe(403);
      expect(await refused.json()).toEqual(NOT_ALLOWED);
    }
    const allowed = await create({ project_ids: [s.defaultProjectId], expires_date: soon });
    expect(allowed.status).toBe(201);
    const keys = await h.store.apiKeys.list({ account: s.accountId });
    expect(keys).toHaveLength(3);
  });

  test('revoke: 204, refused at once; a key may revoke itself; unknown or repeated is 404', async (h) => {
    const s = await scene(h);
    const victim = await s.key('read');
    const revoked = await h.fetch(`/api/keys/${victim.keyId}`, { method: 'DELETE', key: s.apiKey });
    expect(revoked.status).toBe(204);
    expect((await h.fetch('/api/projects', { key: victim.apiKey })).status).toBe(401);
    const again = await h.fetch(`/api/keys/${victim.keyId}`, { method: 'DELETE', key: s.apiKey });
    expect(again.status).toBe(404);
    const self = await s.key('admin');
    expect((await h.fetch(`/api/keys/${self.keyId}`, { method: 'DELETE', key: self.apiKey })).status).toBe(
      204,
    );
    expect((await h.fetch('/api/projects', { key: self.apiKey })).status).toBe(401);
    const listed = (await (await h.fetch('/api/keys', { key: s.apiKey })).json()) as {
      keys: { id: string }[];
    };
    expect(listed.keys.map((k) => k.id)).not.toContain(self.keyId);
    expect(listed.keys.map((k) => k.id)).not.toContain(victim.keyId);
    const stranger = await h.account();
    const foreign = await h.fetch(
      `/api/keys/${(await h.store.apiKeys.list({ account: stranger.accountId }))[0]!.keyId}`,
      {
        method: 'DELETE',
        key: s.apiKey,
      },
    );
    expect(foreign.status).toBe(404);
    expect((await h.fetch('/api/projects', { key: stranger.apiKey })).status).toBe(200);
  });

  test('list: a project-scoped admin key lists only keys within its scope (issue 34, finding 9)', async (h) => {
    const s = await scene(h);
    const other = await h.createProject(s.apiKey, 'Other');
    const scoped = await s.key('admin', { projectIds: [s.defaultProjectId] });
    const inside = await s.key('read', { projectIds: [s.defaultProjectId] });
    const elsewhere = await s.key('read', { projectIds: [other.id] });
    const both = await s.key('read', { projectIds: [s.defaultProjectId, other.id] });
    const everywhere = await s.key('read');
    const ids = async (apiKey: string) => {
      const response = await h.fetch('/api/keys', { key: apiKey });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { keys: { id: string; project_ids: string[] | null }[] };
      return body.keys;
    };
    const seen = await ids(scoped.apiKey);
    expect(seen.map((k) => k.id).sort()).toEqual([scoped.keyId, inside.keyId].sort());
    expect(JSON.stringify(seen)).not.toContain(other.id);
    // An unscoped admin key still lists every key of the account.
    expect((await ids(s.apiKey)).map((k) => k.id)).toEqual(
      expect.arrayContaining([scoped.keyId, inside.keyId, elsewhere.keyId, both.keyId, everywhere.keyId]),
    );
  });

  test('revoke: a scoped admin key cannot revoke a key that reaches further', async (h) => {
    const s = await scene(h);
    const scoped = await s.key('admin', { projectIds: [s.defaultProjectId] });
    const wider = (await h.store.apiKeys.list({ account: s.accountId })).find(
      (k) => k.keyId !== scoped.keyId,
    );
    const refused = await h.fetch(`/api/keys/${wider!.keyId}`, { method: 'DELETE', key: scoped.apiKey });
    expect(refused.status).toBe(403);
    expect((await h.fetch('/api/projects', { key: s.apiKey })).status).toBe(200);
  });
});

describe('audit log (extensions §8)', () => {
  interface Entry {
    id: string;
    date: string;
    key_id: string | null;
    action: string;
    project_id: string | null;
    filename: string | null;
    status: number;
    request_id: string | null;
    ip: string | null;
  }
  const audit = async (h: HttpHarness, apiKey: string, query = '') => {
    await h.audit.flush();
    const response = await h.fetch(`/api/audit${query}`, { key: apiKey });
    const text = await response.text();
    return {
      status: response.status,
      text,
      body: JSON.parse(text) as { entries: Entry[]; next_cursor: string | null },
    };
  };

  test('records changes, refusals and key operations with who, what and where; never a secret; reads are not recorded', async (h) => {
    const s = await scene(h);
    const reader = await s.key('read');
    const project = `/api/projects/${s.defaultProjectId}`;
    const outside = (await h.createProject(s.apiKey, 'Elsewhere')).id;
    const scoped = await s.key('write', { projectIds: [s.defaultProjectId] });
    const renamed = await h.fetch(project, {
      method: 'PUT',
      key: s.apiKey,
      headers: { 'Content-Type': 'application/json', 'X-Request-Id': 'audit-rename-1' },
      body: JSON.stringify({ description: 'secret description value' }),
    });
    expect(renamed.status).toBe(200);
    expect((await h.fetch(`${project}/files`, { key: s.apiKey })).status).toBe(200);
    // A missing file is no refusal: not recorded (a project outside the key's reach is, below).
    expect((await h.fetch(`${project}/files/missing.md`, { key: s.apiKey })).status).toBe(404);
    expect((await h.fetch(`${project}/files/missing.md`, { method: 'DELETE', key: s.apiKey })).status).toBe(
      404,
    );
    expect((await h.json(project, 'PUT', reader.apiKey, { description: 'x' })).status).toBe(403);
    expect(
      (
        await h.fetch(project, {
          method: 'PUT',
          key: s.apiKey,
          headers: { 'If-Match': '"stale"', 'Content-Type': 'application/json' },
          body: '{"name":"n"}',
        })
      ).status,
    ).toBe(412);
    expect((await h.fetch(`/api/projects/${outside}`, { key: scoped.apiKey })).status).toBe(404);
    const created = await h.json('/api/keys', 'POST', s.apiKey, { name: 'audited', role: 'read' });
    const secret = ((await created.json()) as { api_key: string }).api_key;
    const { status, text, body } = await audit(h, s.apiKey);
    expect(status).toBe(200);
    const actions = body.entries.map((e) => `${e.status} ${e.action}`);
    expect(actions).toEqual([
      '201 POST /api/keys',
      '404 GET /api/projects/:project_id',
      '412 PUT /api/projects/:project_id',
      '403 PUT /api/projects/:project_id',
      '200 PUT /api/projects/:project_id',
      '201 POST /api/projects',
    ]);
    const rename = body.entries.find((e) => e.request_id === 'audit-rename-1')!;
    expect(rename).toEqual({
      id: expect.any(String),
      date: expect.any(String),
      key_id: (await h.store.authenticate({ apiKey: s.apiKey })).keyId,
      action: 'PUT /api/projects/:project_id',
      project_id: s.defaultProjectId,
      filename: null,
      status: 200,
      request_id: 'audit-rename-1',
      ip: expect.any(String),
    });
    expect(body.entries.find((e) => e.status === 403)!.key_id).toBe(reader.keyId);
    expect(body.entries.find((e) => e.status === 404)).toMatchObject({
      key_id: scoped.keyId,
      project_id: outside,
    });
    for (const hidden of [s.apiKey, reader.apiKey, secret, 'secret description value'])
      expect(text).not.toContain(hidden);
  });

  test('an upload is recorded with the filename its form gave (issue 34, finding 15)', async (h) => {
    const s = await scene(h);
    await h.uploadFile(s.apiKey, s.defaultProjectId, 'notes/from-form.md', '# form');
    const { body } = await audit(h, s.apiKey);
    const upload = body.entries.find((e) => e.action === 'POST /api/projects/:project_id/files')!;
    expect(upload).toMatchObject({
      project_id: s.defaultProjectId,
      filename: 'notes/from-form.md',
      status: 201,
    });
  });

  test('MCP tool calls are recorded as requests are: changes and refusals, never reads, content or metadata', async (h) => {
    const s = await scene(h);
    const reader = await s.key('read');
    const writerClient = await connect(h, s.apiKey);
    const at = { project_id: s.defaultProjectId, filename: 'agent.md' };
    const created = (await writerClient.callTool({
      name: 'create_file',
      arguments: { ...at, content: '# secret content body', metadata: { note: 'secret metadata value' } },
    })) as CallToolResult;
    expect(created.isError).toBeFalsy();
    // A read is not recorded; a missing file is no refusal.
    expect(
      ((await writerClient.callTool({ name: 'read_file', arguments: at })) as CallToolResult).isError,
    ).toBeFalsy();
    const missing = { ...at, filename: 'missing.md' };
    expect(
      ((await writerClient.callTool({ name: 'read_file', arguments: missing })) as CallToolResult).isError,
    ).toBe(true);
    // A stale if_match: 412; no if_match: 428.
    await writerClient.callTool({
      name: 'write_file',
      arguments: { ...at, content: 'x', if_match: '"stale"' },
    });
    await writerClient.callTool({ name: 'delete_file', arguments: at });
    await writerClient.close();
    const readerClient = await connect(h, reader.apiKey);
    await readerClient.callTool({ name: 'delete_file', arguments: { ...at, if_match: '"x"' } });
    await readerClient.close();

    const { text, body } = await audit(h, s.apiKey);
    const mcp = body.entries.filter((e) => e.action.startsWith('POST /mcp'));
    expect(mcp.map((e) => `${e.status} ${e.action}`)).toEqual([
      '403 POST /mcp delete_file',
      '428 POST /mcp delete_file',
      '412 POST /mcp write_file',
      '200 POST /mcp create_file',
    ]);
    const writerKeyId = (await h.store.authenticate({ apiKey: s.apiKey })).keyId;
    expect(mcp.at(-1)).toMatchObject({
      key_id: writerKeyId,
      project_id: s.defaultProjectId,
      filename: 'agent.md',
    });
    expect(mcp[0]!.key_id).toBe(reader.keyId);
    for (const hidden of ['secret content body', 'secret metadata value', s.apiKey, reader.apiKey])
      expect(text).not.toContain(hidden);
  });

  test('a 401 is recorded with key_id null, per address, without the key', async (h) => {
    const pushed: unknown[] = [];
    const push = h.audit.push.bind(h.audit);
    h.audit.push = (entry) => {
      pushed.push(entry);
      push(entry);
    };
    const refused = await h.fetch('/api/projects', { key: 'mds_not-a-real-key-123' });
    expect(refused.status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(pushed).toEqual([
      expect.objectContaining({
        accountId: null,
        keyId: null,
        action: 'GET /api/projects',
        status: 401,
        ip: expect.any(String),
      }),
    ]);
    expect(JSON.stringify(pushed)).not.toContain('mds_not-a-real-key-123');
  });

  test('filters (key_id, project_id, status, since, until) and pages newest first; admin only; a scoped key sees its projects', async (h) => {
    const s = await scene(h);
    const other = (await h.createProject(s.apiKey, 'Other')).id;
    const writer = await s.key('write');
    for (const description of ['a', 'b', 'c']) {
      expect(
        (await h.json(`/api/projects/${s.defaultProjectId}`, 'PUT', writer.apiKey, { description })).status,
      ).toBe(200);
    }
    expect((await h.json(`/api/projects/${other}`, 'PUT', s.apiKey, { description: 'x' })).status).toBe(200);
    const all = (await audit(h, s.apiKey)).body.entries;
    expect(all).toHaveLength(5);
    const byKey = (await audit(h, s.apiKey, `?key_id=${writer.keyId}`)).body.entries;
    expect(byKey.map((e) => e.key_id)).toEqual([writer.keyId, writer.keyId, writer.keyId]);
    const byProject = (await audit(h, s.apiKey, `?project_id=${other}`)).body.entries;
    expect(byProject.map((e) => e.project_id)).toEqual([other]);
    expect((await audit(h, s.apiKey, '?status=201')).body.entries.map((e) => e.action)).toEqual([
      'POST /api/projects',
    ]);
    const middle = all[2]!.date;
    const since = (await audit(h, s.apiKey, `?since=${encodeURIComponent(middle)}`)).body.entries;
    expect(since.every((e) => e.date >= middle)).toBe(true);
    const until = (await audit(h, s.apiKey, `?until=${encodeURIComponent(middle)}`)).body.entries;
    expect(until.every((e) => e.date < middle)).toBe(true);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { entries: Entry[]; next_cursor: string | null } = (
        await audit(h, s.apiKey, `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
      ).body;
      seen.push(...page.entries.map((e) => e.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(all.map((e) => e.id));
    const bad = await audit(h, s.apiKey, '?limit=0&status=abc&since=yesterday');
    expect(bad.status).toBe(422);
    expect(
      (bad.body as unknown as { detail: { loc: string[] }[] }).detail.map((i) => i.loc[1]).sort(),
    ).toEqual(['limit', 'since', 'status']);
    expect((await audit(h, writer.apiKey)).status).toBe(403);
    const scoped = await s.key('admin', { projectIds: [other] });
    const mine = (await audit(h, scoped.apiKey)).body.entries;
    expect(mine.map((e) => e.project_id)).toEqual([other]);
    expect((await audit(h, scoped.apiKey, `?project_id=${s.defaultProjectId}`)).status).toBe(404);
  });
});
