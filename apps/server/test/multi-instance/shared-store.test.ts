import { type RunningS3rver, startS3rver } from '@mdstore/s3/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminQuery, dropSchema, freshSchemaName, skipWithoutPostgres } from '../support/adapters.js';
import {
  type CliAccount,
  cleanUp,
  cli,
  createAccount,
  type Instance,
  killAllInstances,
  sharedEnvironment,
  startInstance,
  uploadRequest,
  waitFor,
} from './support.js';

/**
 * Two server processes on one Postgres schema and one S3 endpoint behave as one server: uniqueness,
 * the hourly budget, key revocation and project deletion hold across them; list cursors made by one are
 * accepted by the other with no cursor secret configured (§3); a commit on one wakes a long poll or a
 * stream held on the other within 2 s (§7, Postgres `LISTEN/NOTIFY`); a draft opened on one publishes
 * on the other, merged with a write made there, and exactly once when both publish it at once (§13).
 */
const RATE_LIMIT = 20;
const skip = await skipWithoutPostgres('multi-instance tests');

describe.skipIf(skip)('two instances on one Postgres schema and one S3 endpoint', () => {
  const schema = freshSchemaName();
  let s3: RunningS3rver;
  let env: Record<string, string>;
  let cleanup: (() => Promise<void>) | undefined;
  let a: Instance;
  let b: Instance;
  const accounts: CliAccount[] = [];
  /** One account per test: each has its own hourly budget of RATE_LIMIT requests. */
  const account = (index: number) => accounts[index]!;

  beforeAll(async () => {
    s3 = await startS3rver();
    ({ env, cleanup } = await sharedEnvironment({
      schema,
      s3,
      extra: { MDSTORE_RATE_LIMIT_STANDARD: String(RATE_LIMIT) },
    }));
    // Accounts are made with the admin CLI on the same environment, as an operator would: the first
    // migrates the schema, the others are made while the instances start.
    const names = [
      'uploads',
      'budget',
      'revoked',
      'deletion',
      'access',
      'shares',
      'links',
      'cursors',
      'feed',
      'drafts',
    ];
    accounts.push(await createAccount(names[0]!, env));
    const instances = Promise.all([startInstance(env), startInstance(env)]);
    accounts.push(...(await Promise.all(names.slice(1).map((name) => createAccount(name, env)))));
    [a, b] = await instances;
    // Under a full machine (CI runs every suite side by side) eleven processes take a while to start.
  }, 180_000);

  afterAll(() =>
    cleanUp([
      () => Promise.allSettled([a?.stop(), b?.stop()]),
      killAllInstances,
      () => s3?.stop(),
      () => dropSchema(schema),
      () => cleanup?.(),
    ]),
  );

  it('runs as two processes with two registered instances', async () => {
    expect(a.child.pid).not.toBe(b.child.pid);
    expect(a.instanceId).not.toBe(b.instanceId);
    const { rows } = await adminQuery<{ id: string }>(`SELECT id FROM ${schema}.instances ORDER BY id`);
    expect(rows.map((row) => row.id)).toEqual([a.instanceId, b.instanceId].sort());
  });

  it('10 concurrent uploads of one filename over both: one 201, nine 409, the winner stored', async () => {
    const { apiKey, defaultProjectId } = account(0);
    const contents = Array.from({ length: 10 }, (_, i) => `# writer ${i}\n\n${'w'.repeat(i * 7)}\n`);
    const responses = await Promise.all(
      contents.map((content, i) =>
        (i % 2 === 0 ? a : b).fetch(
          `/api/projects/${defaultProjectId}/files`,
          uploadRequest(apiKey, 'race.md', content),
        ),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(9);
    const winner = statuses.indexOf(201);
    const created = (await responses[winner]!.json()) as { size_bytes: number };
    expect(created.size_bytes).toBe(Buffer.byteLength(contents[winner]!));
    for (const [i, response] of responses.entries()) {
      if (i === winner) continue;
      expect(await response.json()).toEqual({ detail: "File with name 'race.md' already exists" });
    }

    for (const instance of [a, b]) {
      const download = await instance.fetch(`/api/projects/${defaultProjectId}/files/race.md`, {
        key: apiKey,
      });
      expect(download.status).toBe(200);
      expect(await download.text()).toBe(contents[winner]);
      const project = await instance.fetch(`/api/projects/${defaultProjectId}`, { key: apiKey });
      expect(await project.json()).toMatchObject({
        file_count: 1,
        total_size_bytes: Buffer.byteLength(contents[winner]!),
      });
    }
  });

  it('the hourly limit is one budget: 30 concurrent requests over both, exactly 20 served', async () => {
    const { apiKey } = account(1);
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? a : b).fetch('/api/projects', { key: apiKey })),
    );
    const served = responses.filter((response) => response.status !== 429);
    expect(served).toHaveLength(RATE_LIMIT);
    expect(served.every((response) => response.status === 200)).toBe(true);
    // Each served request took its own unit of the one budget: remaining counts 19 … 0, none twice.
    const remaining = served.map((response) => Number(response.headers.get('x-ratelimit-remaining')));
    expect(remaining.sort((x, y) => x - y)).toEqual(Array.from({ length: RATE_LIMIT }, (_, i) => i));
    for (const refused of responses.filter((response) => response.status === 429)) {
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // Both instances served some and refused some: the budget is not per instance.
    const servedBy = (instance: Instance) =>
      responses.filter((response, i) => (i % 2 === 0 ? a : b) === instance && response.status !== 429).length;
    expect(servedBy(a) + servedBy(b)).toBe(RATE_LIMIT);
    expect((await a.fetch('/api/projects', { key: apiKey })).status).toBe(429);
    expect((await b.fetch('/api/projects', { key: apiKey })).status).toBe(429);
  });

  it('extensions §8: a key revoked through one instance is refused by the other within 1 s; expiry holds on both', async () => {
    const { apiKey } = account(4);
    const create = async (body: Record<string, unknown>) => {
      const response = await a.fetch('/api/keys', {
        method: 'POST',
        key: apiKey,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'two instances', role: 'read', ...body }),
      });
      expect(response.status).toBe(201);
      return (await response.json()) as { id: string; api_key: string };
    };
    const victim = await create({});
    const expiresAt = Date.now() + 4_000;
    const brief = await create({ expires_date: new Date(expiresAt).toISOString() });
    for (const instance of [a, b]) {
      expect((await instance.fetch('/api/projects', { key: victim.api_key })).status).toBe(200);
      expect((await instance.fetch('/api/projects', { key: brief.api_key })).status).toBe(200);
    }
    const revoked = await a.fetch(`/api/keys/${victim.id}`, { method: 'DELETE', key: apiKey });
    expect(revoked.status).toBe(204);
    const revokedAt = Date.now();
    expect((await a.fetch('/api/projects', { key: victim.api_key })).status).toBe(401);
    const onB = await waitFor(
      async () => {
        const response = await b.fetch('/api/projects', { key: victim.api_key });
        return response.status === 401 ? response : undefined;
      },
      { timeoutMs: 1_000, intervalMs: 50, what: `a 401 from ${b.url} within 1 s` },
    );
    expect(Date.now() - revokedAt).toBeLessThanOrEqual(1_000);
    expect(await onB.json()).toEqual({ detail: 'Invalid authentication credentials' });
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now() + 50)));
    for (const instance of [a, b]) {
      const expired = await instance.fetch('/api/projects', { key: brief.api_key });
      expect(expired.status).toBe(401);
      expect(await expired.json()).toEqual({ detail: 'API key expired' });
    }
  });

  it('extensions §11: a share link revoked through one instance is 404 on it at once, on the other within 1 s', async () => {
    const { apiKey, defaultProjectId } = account(5);
    const uploaded = await a.fetch(
      `/api/projects/${defaultProjectId}/files`,
      uploadRequest(apiKey, 'shared.md', '# Shared\n'),
    );
    expect(uploaded.status).toBe(201);
    const created = await a.fetch(`/api/projects/${defaultProjectId}/shares`, {
      method: 'POST',
      key: apiKey,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ filename: 'shared.md' }),
    });
    expect(created.status).toBe(201);
    const share = (await created.json()) as { id: string; url: string };
    const page = new URL(share.url).pathname;
    for (const instance of [a, b]) {
      const response = await instance.fetch(page);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('<h1 id="shared">Shared</h1>');
    }
    const revoked = await a.fetch(`/api/projects/${defaultProjectId}/shares/${share.id}`, {
      method: 'DELETE',
      key: apiKey,
    });
    expect(revoked.status).toBe(204);
    const revokedAt = Date.now();
    expect((await a.fetch(page)).status).toBe(404);
    await waitFor(async () => ((await b.fetch(page)).status === 404 ? true : undefined), {
      timeoutMs: 1_000,
      intervalMs: 50,
      what: `a 404 from ${b.url} within 1 s`,
    });
    expect(Date.now() - revokedAt).toBeLessThanOrEqual(1_000);
    expect((await b.fetch(`${page}?raw=1`)).status).toBe(404);
  });

  it('a key revoked with the CLI is refused by both instances within a few seconds', async () => {
    const { apiKey, keyId } = account(2);
    for (const instance of [a, b]) {
      expect((await instance.fetch('/api/projects', { key: apiKey })).status).toBe(200);
    }
    const revoked = await cli(['keys', 'revoke', keyId], env);
    expect(revoked).toMatchObject({ key_id: keyId, revoked: true });
    for (const instance of [a, b]) {
      const refused = await waitFor(
        async () => {
          const response = await instance.fetch('/api/projects', { key: apiKey });
          return response.status === 401 ? response : undefined;
        },
        { timeoutMs: 5_000, intervalMs: 200, what: `a 401 from ${instance.url}` },
      );
      expect(await refused.json()).toEqual({ detail: 'Invalid authentication credentials' });
    }
  });

  it('extensions §9: the link index reads its writes on the other instance, late resolution included', async () => {
    const { apiKey, defaultProjectId } = account(6);
    const files = `/api/projects/${defaultProjectId}/files`;
    const linksOf = async (instance: Instance, name: string) => {
      const response = await instance.fetch(`${files}/${encodeURIComponent(name)}/links`, { key: apiKey });
      expect(response.status).toBe(200);
      return (await response.json()) as {
        outgoing: Array<{ target: string | null; resolved: boolean }>;
        incoming: Array<{ source: string }>;
      };
    };
    expect((await a.fetch(files, uploadRequest(apiKey, 'docs/a.md', '[b](../b.md) [[b]]\n'))).status).toBe(
      201,
    );
    // Read at once on the other instance: the links are there, not resolved yet.
    expect((await linksOf(b, 'docs/a.md')).outgoing).toMatchObject([
      { resolved: false },
      { resolved: false },
    ]);
    expect((await b.fetch(files, uploadRequest(apiKey, 'b.md', '# B\n'))).status).toBe(201);
    // Created through b, resolved at once through a (no rescan).
    expect((await linksOf(a, 'docs/a.md')).outgoing).toEqual([
      expect.objectContaining({ target: 'b.md', resolved: true }),
      expect.objectContaining({ target: 'b.md', resolved: true }),
    ]);
    expect((await linksOf(b, 'b.md')).incoming.map((link) => link.source)).toEqual([
      'docs/a.md',
      'docs/a.md',
    ]);
    const refused = await b.fetch(`${files}/b.md?if_unreferenced=true`, { method: 'DELETE', key: apiKey });
    expect(refused.status).toBe(409);
  });

  it('a project deleted through one instance is gone (404) through the other', async () => {
    const { apiKey } = account(3);
    const created = await b.fetch('/api/projects', {
      method: 'POST',
      key: apiKey,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'short-lived' }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    expect((await a.fetch(`/api/projects/${id}/files`, uploadRequest(apiKey, 'x.md', '# x'))).status).toBe(
      201,
    );
    expect((await b.fetch(`/api/projects/${id}/files/x.md`, { key: apiKey })).status).toBe(200);

    const deleted = await a.fetch(`/api/projects/${id}`, { method: 'DELETE', key: apiKey });
    expect(await deleted.json()).toEqual({ message: 'Project deleted successfully', project_id: id });
    for (const path of [
      `/api/projects/${id}`,
      `/api/projects/${id}/files`,
      `/api/projects/${id}/files/x.md`,
    ]) {
      const response = await b.fetch(path, { key: apiKey });
      expect(response.status, path).toBe(404);
      expect(await response.json()).toEqual({ detail: 'Project not found' });
    }
    const again = await b.fetch(`/api/projects/${id}`, { method: 'DELETE', key: apiKey });
    expect(again.status).toBe(404);
    const list = (await (await b.fetch('/api/projects', { key: apiKey })).json()) as {
      projects: Array<{ id: string; is_active: boolean; file_count: number }>;
    };
    expect(list.projects.find((project) => project.id === id)).toMatchObject({
      is_active: false,
      file_count: 0,
    });
  });

  it('extensions §3: a list cursor made by one instance pages on the other, with no cursor secret configured', async () => {
    expect(env.MDSTORE_CURSOR_SECRET).toBeUndefined();
    const { apiKey, defaultProjectId } = account(7);
    for (const name of ['c1.md', 'c2.md', 'c3.md', 'c4.md']) {
      expect(
        (await a.fetch(`/api/projects/${defaultProjectId}/files`, uploadRequest(apiKey, name, name))).status,
      ).toBe(201);
    }
    const names: string[] = [];
    let cursor: string | null = null;
    let instance = a;
    do {
      const query: string = cursor === null ? '?limit=1' : `?limit=1&cursor=${encodeURIComponent(cursor)}`;
      const response = await instance.fetch(`/api/projects/${defaultProjectId}/files${query}`, {
        key: apiKey,
      });
      expect(response.status).toBe(200);
      const page = (await response.json()) as {
        files: Array<{ filename: string }>;
        next_cursor: string | null;
      };
      names.push(...page.files.map((file) => file.filename));
      cursor = page.next_cursor;
      instance = instance === a ? b : a;
    } while (cursor !== null);
    expect(names).toEqual(['c1.md', 'c2.md', 'c3.md', 'c4.md']);
  });

  it('extensions §7: a commit on one instance wakes a long poll and a stream held on the other within 2 s', async () => {
    const { apiKey, defaultProjectId } = account(8);
    const head = (await (await a.fetch('/api/changes?limit=1000', { key: apiKey })).json()) as {
      next_since: number;
    };
    const held = a.fetch(`/api/changes?since=${head.next_since}&wait=30`, { key: apiKey });
    const stream = await a.fetch(`/api/changes?since=${head.next_since}`, {
      key: apiKey,
      headers: { Accept: 'text/event-stream' },
    });
    expect(stream.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const committed = Date.now();
    expect(
      (await b.fetch(`/api/projects/${defaultProjectId}/files`, uploadRequest(apiKey, 'woke.md', 'x')))
        .status,
    ).toBe(201);
    const answer = (await (await held).json()) as { changes: Array<{ filename: string }> };
    expect(Date.now() - committed).toBeLessThan(2000);
    expect(answer.changes.map((e) => e.filename)).toEqual(['woke.md']);
    const reader = stream.body!.getReader();
    let text = '';
    while (!text.includes('woke.md') && Date.now() - committed < 2000) {
      const chunk = await Promise.race([
        reader.read(),
        new Promise<{ done: true; value: undefined }>((resolve) =>
          setTimeout(() => resolve({ done: true, value: undefined }), 2000),
        ),
      ]);
      if (chunk.done) break;
      text += new TextDecoder().decode(chunk.value);
    }
    await reader.cancel();
    expect(text).toContain('"filename":"woke.md"');
    expect(Date.now() - committed).toBeLessThan(2000);
  });

  it('extensions §13: a draft opened on one publishes on the other, merged with its write; two publishes at once land once', async () => {
    const { apiKey, defaultProjectId } = account(9);
    const project = `/api/projects/${defaultProjectId}`;
    const json = (body: unknown) => ({
      method: 'POST',
      key: apiKey,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const base = '# Plan\n\nFirst line.\n\nMiddle line.\n\nLast line.\n';
    expect((await a.fetch(`${project}/files`, uploadRequest(apiKey, 'plan.md', base))).status).toBe(201);
    const opened = await a.fetch(
      `${project}/drafts`,
      json({
        title: 'agent edit',
        operations: [
          { op: 'put', filename: 'plan.md', content: base.replace('First line.', 'First line, proposed.') },
        ],
      }),
    );
    expect(opened.status).toBe(201);
    const draft = (await opened.json()) as { id: string };
    // A person edits another paragraph of the live file through the other instance.
    const live = await b.fetch(`${project}/files/plan.md/content`, {
      method: 'PUT',
      key: apiKey,
      headers: { 'Content-Type': 'text/markdown' },
      body: base.replace('Last line.', 'Last line, edited live.'),
    });
    expect(live.status).toBe(200);
    // Both instances publish the draft at once: one applies it, the other finds it no longer open.
    const publishes = await Promise.all(
      [a, b].map((instance) => instance.fetch(`${project}/drafts/${draft.id}/publish`, json({}))),
    );
    const statuses = publishes.map((response) => response.status).sort();
    expect(statuses).toEqual([200, 409]);
    const published = (await publishes.find((response) => response.status === 200)!.json()) as {
      merged?: unknown[];
    };
    expect(JSON.stringify(published.merged)).toContain('plan.md');
    const refused = (await publishes.find((response) => response.status === 409)!.json()) as {
      detail: string;
    };
    expect(refused.detail).toBe('Draft is published, not open');
    for (const instance of [a, b]) {
      const read = await instance.fetch(`${project}/files/plan.md`, { key: apiKey });
      expect(await read.text()).toBe(
        base.replace('First line.', 'First line, proposed.').replace('Last line.', 'Last line, edited live.'),
      );
    }
  });
});
