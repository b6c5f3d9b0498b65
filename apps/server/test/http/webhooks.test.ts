import type { Role } from '@mdstore/core';
import { describe, expect } from 'vitest';
import { httpWebhookTransport } from '../../src/webhooks/transport.js';
import { type HttpHarness, serverTest } from '../support/http-harness.js';

/**
 * Extensions §7, webhooks over HTTP, on whichever adapter set runs the suite: create (secret shown once),
 * list, get, delete, enable, the deliveries log, and every rule of the body. Host names resolve through
 * a stub resolver (no DNS, no connection): `public.example` to a public address, the others to the
 * addresses the SSRF rule refuses.
 */
const RESOLVED: Record<string, string[]> = {
  'public.example': ['93.184.215.14'],
  'loopback.example': ['127.0.0.1'],
  'private.example': ['10.1.2.3'],
  'metadata.example': ['169.254.169.254'],
  'ula.example': ['fd00:ec2::254'],
  'site-local.example': ['fec0::1'],
  // One public and one private answer: every address must be allowed.
  'mixed.example': ['93.184.215.14', '192.168.0.10'],
};
const transport = httpWebhookTransport({
  allowPrivate: false,
  resolver: async (host) => {
    const found = RESOLVED[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found;
  },
});
const test = serverTest({ webhookTransport: transport });
const URL_OK = 'https://public.example/hooks/mdstore';
const RANDOM_ID = '0f0e0d0c-0b0a-4009-8807-060504030201';

async function scene(h: HttpHarness) {
  const account = await h.account();
  const key = async (role: Role, projectIds?: string[]) =>
    (await h.store.apiKeys.create({ account: account.accountId, role, ...(projectIds && { projectIds }) }))
      .apiKey;
  const create = (body: unknown, apiKey = account.apiKey) => h.json('/api/webhooks', 'POST', apiKey, body);
  return { ...account, key, create };
}

const issueAt = async (response: Response) => {
  expect(response.status).toBe(422);
  const body = (await response.json()) as { detail: { loc: unknown[] }[] };
  return body.detail.map((issue) => issue.loc);
};

describe('webhooks (extensions §7)', () => {
  test('creates a webhook: 201 with its secret once, then listed and read without it', async (h) => {
    const s = await scene(h);
    const created = await s.create({ url: URL_OK, events: ['file.*', 'project.deleted', 'file.*'] });
    expect(created.status).toBe(201);
    const body = (await created.json()) as Record<string, unknown>;
    expect(body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: URL_OK,
      events: ['file.*', 'project.deleted'],
      project_id: null,
      active: true,
      disabled_reason: null,
      created_date: expect.stringMatching(/Z$/),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
    });
    expect(Buffer.from(String(body.secret).slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    const { secret: _secret, ...shown } = body;
    const one = await h.fetch(`/api/webhooks/${body.id}`, { key: s.apiKey });
    expect([one.status, await one.json()]).toEqual([200, shown]);
    const list = await h.fetch('/api/webhooks', { key: s.apiKey });
    expect(await list.json()).toEqual({ webhooks: [shown] });
    // Another account sees nothing of it.
    const other = await h.account();
    expect((await h.fetch(`/api/webhooks/${body.id}`, { key: other.apiKey })).status).toBe(404);
    expect(await (await h.fetch('/api/webhooks', { key: other.apiKey })).json()).toEqual({ webhooks: [] });
  });

  test('defaults to every event and reaches one project when asked', async (h) => {
    const s = await scene(h);
    const all = (await (await s.create({ url: URL_OK })).json()) as Record<string, unknown>;
    expect(all.events).toEqual([]);
    const one = await s.create({ url: 'http://public.example:8080/x', project_id: s.defaultProjectId });
    expect([one.status, ((await one.json()) as Record<string, unknown>).project_id]).toEqual([
      201,
      s.defaultProjectId,
    ]);
  });

  test('refuses bad bodies with 422 at the field', async (h) => {
    const s = await scene(h);
    expect(await issueAt(await s.create({}))).toEqual([['body', 'url']]);
    for (const url of [
      'ftp://public.example/x',
      'public.example/x',
      'https://user:pw@public.example/',
      // A password without a user is credentials too (issue 34, finding 8).
      'http://:pw@public.example/',
      'https://user@public.example/',
      42,
    ]) {
      expect(await issueAt(await s.create({ url }))).toEqual([['body', 'url']]);
    }
    const long = `https://public.example/${'a'.repeat(2048 - 'https://public.example/'.length)}`;
    expect((await s.create({ url: long })).status).toBe(201);
    expect(await issueAt(await s.create({ url: `${long}a` }))).toEqual([['body', 'url']]);
    expect(await issueAt(await s.create({ url: URL_OK, events: ['file.exploded'] }))).toEqual([
      ['body', 'events', 0],
    ]);
    expect(await issueAt(await s.create({ url: URL_OK, events: 'file.*' }))).toEqual([['body', 'events']]);
    expect(await issueAt(await s.create({ url: URL_OK, project_id: 'nope' }))).toEqual([
      ['body', 'project_id'],
    ]);
    // A project id that parses is decided as on every project route (issue 34, finding 12).
    const missing = await s.create({ url: URL_OK, project_id: RANDOM_ID });
    expect([missing.status, await missing.json()]).toEqual([404, { detail: 'Project not found' }]);
    const other = await h.account();
    const foreign = await s.create({ url: URL_OK, project_id: other.defaultProjectId });
    expect([foreign.status, await foreign.json()]).toEqual([
      403,
      { detail: 'You do not have permission to access this resource' },
    ]);
    expect((await h.fetch('/api/webhooks', { key: s.apiKey }).then((r) => r.json())) as unknown).toEqual({
      webhooks: [expect.objectContaining({ url: long })],
    });
  });

  test('refuses hosts resolving to loopback, private, link-local, unique-local or metadata addresses', async (h) => {
    const s = await scene(h);
    for (const url of [
      'http://loopback.example/',
      'http://private.example/',
      'http://metadata.example/latest/meta-data',
      'http://ula.example/',
      'http://mixed.example/',
      'http://127.0.0.1:9/',
      'http://[::1]/',
      'http://0x7f.1/',
      'http://169.254.169.254/',
      'http://[::ffff:10.0.0.1]/',
      // IPv4-compatible, RFC 8215 local NAT64 and site-local IPv6 (issue 34, finding 8).
      'http://[::127.0.0.1]/',
      'http://[::a9fe:a9fe]/',
      'http://[::10.0.0.1]/',
      'http://[64:ff9b:1::a9fe:a9fe]/',
      'http://[fec0::1]/',
      'http://site-local.example/',
      'http://nowhere.example/',
    ]) {
      const response = await s.create({ url });
      expect({ url, loc: await issueAt(response) }).toEqual({ url, loc: [['body', 'url']] });
    }
    expect((await s.create({ url: 'http://93.184.215.14/' })).status).toBe(201);
  });

  test('a project-scoped key creates webhooks of its projects only, and sees only those', async (h) => {
    const s = await scene(h);
    const other = await h.createProject(s.apiKey, 'other');
    const everywhere = (await (await s.create({ url: URL_OK })).json()) as { id: string };
    const scoped = await s.key('admin', [s.defaultProjectId]);
    expect((await s.create({ url: URL_OK }, scoped)).status).toBe(403);
    const outside = await s.create({ url: URL_OK, project_id: other.id }, scoped);
    expect([outside.status, await outside.json()]).toEqual([404, { detail: 'Project not found' }]);
    const mine = (await (await s.create({ url: URL_OK, project_id: s.defaultProjectId }, scoped)).json()) as {
      id: string;
    };
    const listed = (await (await h.fetch('/api/webhooks', { key: scoped })).json()) as {
      webhooks: { id: string }[];
    };
    expect(listed.webhooks.map((w) => w.id)).toEqual([mine.id]);
    expect((await h.fetch(`/api/webhooks/${everywhere.id}`, { key: scoped })).status).toBe(404);
    expect((await h.fetch(`/api/webhooks/${everywhere.id}`, { key: scoped, method: 'DELETE' })).status).toBe(
      404,
    );
  });

  test('only admin keys: write and read keys get 403 on every webhook route', async (h) => {
    const s = await scene(h);
    const { id } = (await (await s.create({ url: URL_OK })).json()) as { id: string };
    for (const role of ['read', 'write'] as const) {
      const apiKey = await s.key(role);
      expect((await s.create({ url: URL_OK }, apiKey)).status).toBe(403);
      for (const [method, path] of [
        ['GET', '/api/webhooks'],
        ['GET', `/api/webhooks/${id}`],
        ['DELETE', `/api/webhooks/${id}`],
        ['POST', `/api/webhooks/${id}/enable`],
        ['GET', `/api/webhooks/${id}/deliveries`],
      ] as const) {
        expect((await h.fetch(path, { method, key: apiKey })).status).toBe(403);
      }
    }
    expect((await h.fetch(`/api/webhooks/${id}`, { key: s.apiKey })).status).toBe(200);
  });

  test('deletes with 204 (then 404), enables, and pages an empty deliveries log', async (h) => {
    const s = await scene(h);
    const { id } = (await (await s.create({ url: URL_OK })).json()) as { id: string };
    const enabled = await h.fetch(`/api/webhooks/${id}/enable`, { method: 'POST', key: s.apiKey });
    expect([enabled.status, ((await enabled.json()) as { active: boolean }).active]).toEqual([200, true]);
    const log = await h.fetch(`/api/webhooks/${id}/deliveries?limit=5`, { key: s.apiKey });
    expect([log.status, await log.json()]).toEqual([200, { deliveries: [], next_cursor: null }]);
    expect(await issueAt(await h.fetch(`/api/webhooks/${id}/deliveries?limit=0`, { key: s.apiKey }))).toEqual(
      [['query', 'limit']],
    );
    expect(
      await issueAt(await h.fetch(`/api/webhooks/${id}/deliveries?cursor=zz`, { key: s.apiKey })),
    ).toEqual([['query', 'cursor']]);
    expect(await issueAt(await h.fetch('/api/webhooks/not-a-uuid', { key: s.apiKey }))).toEqual([
      ['path', 'webhook_id'],
    ]);
    expect((await h.fetch(`/api/webhooks/${id}`, { method: 'DELETE', key: s.apiKey })).status).toBe(204);
    expect((await h.fetch(`/api/webhooks/${id}`, { method: 'DELETE', key: s.apiKey })).status).toBe(404);
    expect((await h.fetch(`/api/webhooks/${id}`, { key: s.apiKey })).status).toBe(404);
    expect((await h.fetch(`/api/webhooks/${RANDOM_ID}/deliveries`, { key: s.apiKey })).status).toBe(404);
  });

  test('every webhook operation is audited, refused ones too, never with the secret', async (h) => {
    const s = await scene(h);
    const created = (await (await s.create({ url: URL_OK })).json()) as { id: string; secret: string };
    await s.create({ url: 'http://loopback.example/' });
    await h.fetch(`/api/webhooks/${created.id}`, { key: s.apiKey });
    await h.fetch(`/api/webhooks/${created.id}`, { method: 'DELETE', key: s.apiKey });
    await h.audit.flush();
    const entries = (
      await h.store.audit.list({ principal: await h.store.authenticate({ apiKey: s.apiKey }) })
    ).entries;
    expect(entries.map((e) => [e.action, e.status])).toEqual([
      ['DELETE /api/webhooks/:webhook_id', 204],
      ['GET /api/webhooks/:webhook_id', 200],
      ['POST /api/webhooks', 422],
      ['POST /api/webhooks', 201],
    ]);
    expect(JSON.stringify(entries)).not.toContain(created.secret.slice(6));
  });
});
