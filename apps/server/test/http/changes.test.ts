import { CHANGES_LIMITS, DAY_MS } from '@mdstore/core';
import { describe, expect } from 'vitest';
import { HARNESS_HEARTBEAT_MS, type HttpHarness, serverTest } from '../support/http-harness.js';

/**
 * The change feed over HTTP (extensions §7), on whichever adapter set runs the suite: one event per
 * committed write of every kind (none for a refused one), `since`/`limit`/`project_id`, the key's scope,
 * long polls woken by a commit, Server-Sent Events resumed from `Last-Event-ID` and ended by a revoked
 * key, the per-key limit of held reads, and `410` once retention removed an unseen event.
 */
const test = serverTest();

interface ChangeEvent {
  seq: number;
  type: string;
  project_id: string;
  filename: string | null;
  from: string | null;
  revision: number | null;
  etag: string | null;
  size_bytes: number | null;
  sha256: string | null;
  changeset_id: string | null;
  date: string;
}
interface ChangePage {
  changes: ChangeEvent[];
  next_since: number;
}

async function changes(h: HttpHarness, key: string, query = '', headers: Record<string, string> = {}) {
  const response = await h.fetch(`/api/changes${query}`, { key, headers });
  return { status: response.status, body: (await response.json()) as ChangePage & { detail?: unknown } };
}

/** The events after `since`, as `[type, filename, from]`. */
async function kinds(h: HttpHarness, key: string, since: number) {
  const { status, body } = await changes(h, key, `?since=${since}&limit=1000`);
  expect(status).toBe(200);
  return body.changes.map((e) => [e.type, e.filename, e.from]);
}

const lastSeq = async (h: HttpHarness, key: string) => (await changes(h, key, '?limit=1000')).body.next_since;

const fileUrl = (projectId: string, filename: string) =>
  `/api/projects/${projectId}/files/${encodeURIComponent(filename)}`;

const post = (h: HttpHarness, key: string, path: string, body: unknown) => h.json(path, 'POST', key, body);

/** Reads an SSE body until `until` holds of what came, or `ms` pass; returns the raw text read. */
async function readStream(response: Response, until: (text: string) => boolean, ms = 5000): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + ms;
  try {
    while (!until(text) && Date.now() < deadline) {
      const chunk = await Promise.race([
        reader.read(),
        new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), deadline - Date.now())),
      ]);
      if (chunk === 'timeout' || chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return text;
}

const sseIds = (text: string) => [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));

describe('events (extensions §7)', () => {
  test('every write kind commits exactly one event, with the file as it is after the change', async (h) => {
    const { apiKey } = await h.account();
    const project = await h.createProject(apiKey, 'Feed');
    const p = project.id;
    let since = await lastSeq(h, apiKey);
    const step = async (write: () => Promise<Response>, expected: unknown[][], status = [200, 201, 204]) => {
      const response = await write();
      expect(status).toContain(response.status);
      expect(await kinds(h, apiKey, since)).toEqual(expected);
      since = await lastSeq(h, apiKey);
    };
    const uploaded = await h.uploadFile(apiKey, p, 'a.md', '# one\n');
    const [created] = (await changes(h, apiKey, `?since=${since}`)).body.changes;
    expect(created).toMatchObject({
      type: 'file.created',
      project_id: p,
      filename: 'a.md',
      from: null,
      revision: 1,
      etag: uploaded.etag,
      size_bytes: 6,
      sha256: uploaded.sha256,
      changeset_id: null,
    });
    expect(Number.isNaN(Date.parse(created!.date))).toBe(false);
    since = await lastSeq(h, apiKey);
    const json = (path: string, method: string, body: unknown) => () => h.json(path, method, apiKey, body);
    await step(
      () =>
        h.fetch(`${fileUrl(p, 'a.md')}/content`, {
          method: 'PUT',
          key: apiKey,
          headers: { 'Content-Type': 'text/markdown' },
          body: '# two\n',
        }),
      [['file.updated', 'a.md', null]],
    );
    await step(json(fileUrl(p, 'a.md'), 'PUT', { metadata: { v: 1 } }), [['file.updated', 'a.md', null]]);
    await step(json(fileUrl(p, 'a.md'), 'PATCH', { edits: [{ op: 'replace', old: 'two', new: 'three' }] }), [
      ['file.updated', 'a.md', null],
    ]);
    await step(
      () => post(h, apiKey, `${fileUrl(p, 'a.md')}/restore`, { revision: 1 }),
      [['file.updated', 'a.md', null]],
    );
    await step(
      () => post(h, apiKey, `${fileUrl(p, 'a.md')}/copy`, { to: 'b.md' }),
      [['file.created', 'b.md', null]],
    );
    await step(
      () => post(h, apiKey, `${fileUrl(p, 'a.md')}/move`, { to: 'c.md' }),
      [['file.moved', 'c.md', 'a.md']],
    );
    await step(
      () => h.fetch(fileUrl(p, 'b.md'), { method: 'DELETE', key: apiKey }),
      [['file.deleted', 'b.md', null]],
    );
    const deleted = (await changes(h, apiKey, `?since=${since - 1}`)).body.changes[0];
    expect(deleted).toMatchObject({ revision: null, etag: null, size_bytes: null, sha256: null });
    await step(
      json(`/api/projects/${p}`, 'PUT', { description: 'd', settings: { trash_retention_days: 1 } }),
      [['project.updated', null, null]],
    );
    await step(
      () => h.fetch(fileUrl(p, 'c.md'), { method: 'DELETE', key: apiKey }),
      [['file.deleted', 'c.md', null]],
    );
    const trash = (await (await h.fetch(`/api/projects/${p}/trash`, { key: apiKey })).json()) as {
      trash: Array<{ trash_id: string }>;
    };
    await step(
      () => post(h, apiKey, `/api/projects/${p}/trash/${trash.trash[0]!.trash_id}/restore`, {}),
      [['file.restored', 'c.md', null]],
    );
    await h.uploadFile(apiKey, p, 'd.md', 'x');
    since = await lastSeq(h, apiKey);
    await step(
      () => h.fetch(`/api/projects/${p}`, { method: 'DELETE', key: apiKey }),
      [['project.deleted', null, null]],
    );
  });

  test('project creation is one event; a refused or failed write has none', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    const since = await lastSeq(h, apiKey);
    const project = await h.createProject(apiKey, 'New');
    expect(await kinds(h, apiKey, since)).toEqual([['project.created', null, null]]);
    const after = await lastSeq(h, apiKey);
    expect((await h.json('/api/projects', 'POST', apiKey, { name: 'New' })).status).toBe(409);
    await h.uploadFile(apiKey, project.id, 'a.md', 'a');
    const afterUpload = await lastSeq(h, apiKey);
    expect(afterUpload).toBeGreaterThan(after);
    // A stale If-Match, a taken name, a missing file: refused, nothing committed.
    const stale = await h.fetch(`${fileUrl(project.id, 'a.md')}/content`, {
      method: 'PUT',
      key: apiKey,
      headers: { 'Content-Type': 'text/markdown', 'If-Match': '"nope-1"' },
      body: 'b',
    });
    expect(stale.status).toBe(412);
    await h.uploadFile(apiKey, project.id, 'b.md', 'b');
    const beforeRefusals = await lastSeq(h, apiKey);
    expect((await post(h, apiKey, `${fileUrl(project.id, 'a.md')}/move`, { to: 'b.md' })).status).toBe(409);
    expect((await h.fetch(fileUrl(project.id, 'zz.md'), { method: 'DELETE', key: apiKey })).status).toBe(404);
    expect(
      (await h.fetch(`/api/projects/${defaultProjectId}`, { method: 'DELETE', key: apiKey })).status,
    ).toBe(403);
    expect(await kinds(h, apiKey, beforeRefusals)).toEqual([]);
  });
});

describe('GET /api/changes', () => {
  test('since, limit and next_since page the feed oldest first; only the caller’s account', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    const other = await h.account();
    await h.uploadFile(other.apiKey, other.defaultProjectId, 'theirs.md', 'x');
    const start = await lastSeq(h, apiKey);
    for (const name of ['1.md', '2.md', '3.md']) await h.uploadFile(apiKey, defaultProjectId, name, name);
    const first = await changes(h, apiKey, `?since=${start}&limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.changes.map((e) => e.filename)).toEqual(['1.md', '2.md']);
    expect(first.body.next_since).toBe(first.body.changes[1]!.seq);
    const second = await changes(h, apiKey, `?since=${first.body.next_since}&limit=2`);
    expect(second.body.changes.map((e) => e.filename)).toEqual(['3.md']);
    const empty = await changes(h, apiKey, `?since=${second.body.next_since}`);
    expect(empty.body).toEqual({ changes: [], next_since: second.body.next_since });
    const seqs = [...first.body.changes, ...second.body.changes].map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(
      (await changes(h, apiKey, '?limit=1000')).body.changes.some((e) => e.filename === 'theirs.md'),
    ).toBe(false);
  });

  test('bad parameters are 422 at their query location', async (h) => {
    const { apiKey } = await h.account();
    for (const [query, name] of [
      ['?limit=0', 'limit'],
      ['?limit=1001', 'limit'],
      ['?since=-1', 'since'],
      ['?wait=61', 'wait'],
      ['?project_id=nope', 'project_id'],
    ] as const) {
      const { status, body } = await changes(h, apiKey, query);
      expect(status, query).toBe(422);
      expect((body.detail as Array<{ loc: unknown }>)[0]!.loc).toEqual(['query', name]);
    }
  });

  test('project_id filters; a key scoped to projects sees only theirs, another project is 404', async (h) => {
    const { accountId, apiKey } = await h.account();
    const inside = await h.createProject(apiKey, 'In');
    const outside = await h.createProject(apiKey, 'Out');
    await h.uploadFile(apiKey, inside.id, 'in.md', 'x');
    await h.uploadFile(apiKey, outside.id, 'out.md', 'x');
    const only = await changes(h, apiKey, `?project_id=${inside.id}`);
    expect(only.body.changes.map((e) => e.project_id)).toEqual([inside.id, inside.id]);
    const scoped = await h.store.apiKeys.create({
      account: accountId,
      role: 'read',
      projectIds: [inside.id],
    });
    const seen = await changes(h, scoped.apiKey, '?limit=1000');
    expect(seen.status).toBe(200);
    expect(new Set(seen.body.changes.map((e) => e.project_id))).toEqual(new Set([inside.id]));
    expect((await changes(h, scoped.apiKey, `?project_id=${outside.id}`)).status).toBe(404);
  });

  test('another account’s project_id is 403 with the interface’s detail, held or streamed too; a missing one 404', async (h) => {
    const { apiKey } = await h.account();
    const other = await h.account();
    const forbidden = { status: 403, body: { detail: 'You do not have permission to access this resource' } };
    const read = async (query: string, headers: Record<string, string> = {}) => {
      const response = await h.fetch(`/api/changes${query}`, { key: apiKey, headers });
      return { status: response.status, body: await response.json() };
    };
    expect(await read(`?project_id=${other.defaultProjectId}`)).toEqual(forbidden);
    expect(await read(`?project_id=${other.defaultProjectId}&wait=5`)).toEqual(forbidden);
    expect(await read(`?project_id=${other.defaultProjectId}`, { Accept: 'text/event-stream' })).toEqual(
      forbidden,
    );
    expect(await read('?project_id=0f0e0d0c-0b0a-4009-8807-060504030201')).toEqual({
      status: 404,
      body: { detail: 'Project not found' },
    });
  });

  test('a long poll is answered as soon as an event commits, or with nothing when wait passes', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    const since = await lastSeq(h, apiKey);
    const started = Date.now();
    const idle = await changes(h, apiKey, `?since=${since}&wait=1`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(idle.body).toEqual({ changes: [], next_since: since });
    const held = changes(h, apiKey, `?since=${since}&wait=30`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const committed = Date.now();
    await h.uploadFile(apiKey, defaultProjectId, 'late.md', 'x');
    const answer = await held;
    expect(Date.now() - committed).toBeLessThan(2000);
    expect(answer.body.changes.map((e) => e.filename)).toEqual(['late.md']);
  });

  test('a held request counts once against the rate limit', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    const since = await lastSeq(h, apiKey);
    const before = await h.fetch(`/api/changes?since=${since}`, { key: apiKey });
    const remaining = Number(before.headers.get('x-ratelimit-remaining'));
    const held = h.fetch(`/api/changes?since=${since}&wait=10`, { key: apiKey });
    await new Promise((resolve) => setTimeout(resolve, 1200));
    await h.store.files.upload({
      principal: await h.store.authenticate({ apiKey }),
      projectId: defaultProjectId,
      filename: 'w.md',
      content: (async function* () {
        yield new TextEncoder().encode('x');
      })(),
    });
    const answered = await held;
    expect(answered.status).toBe(200);
    expect(Number(answered.headers.get('x-ratelimit-remaining'))).toBe(remaining - 1);
    // The reads it made while held (a safety read, the one the commit woke) took nothing more.
    const after = await h.fetch(`/api/changes?since=${since}`, { key: apiKey });
    expect(Number(after.headers.get('x-ratelimit-remaining'))).toBe(remaining - 2);
  });

  test('held reads are limited per key: one more is 429', async (h) => {
    const { apiKey, accountId } = await h.account();
    const since = await lastSeq(h, apiKey);
    const held = Array.from({ length: 5 }, () => changes(h, apiKey, `?since=${since}&wait=1`));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const refused = await changes(h, apiKey, `?since=${since}&wait=1`);
    expect(refused.status).toBe(429);
    // Another key of the account is not held back by this one's.
    const other = await h.store.apiKeys.create({ account: accountId, role: 'read' });
    const free = changes(h, other.apiKey, `?since=${since}&wait=1`);
    expect((await free).status).toBe(200);
    for (const answer of await Promise.all(held)) expect(answer.status).toBe(200);
    // Slots are given back.
    expect((await changes(h, apiKey, `?since=${since}&wait=1`)).status).toBe(200);
  }, 15_000);

  test('410 with the exact detail once retention removed an event after since', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    const since = await lastSeq(h, apiKey);
    await h.uploadFile(apiKey, defaultProjectId, 'old.md', 'x');
    h.clock.advance(31 * DAY_MS);
    await h.store.maintenance.reconcile();
    await h.uploadFile(apiKey, defaultProjectId, 'new.md', 'x');
    const gone = await changes(h, apiKey, `?since=${since}`);
    expect(gone.status).toBe(410);
    expect(gone.body).toEqual({ detail: 'Changes expired: list the project again' });
    expect((await changes(h, apiKey, '?since=0')).status).toBe(410);
    // A reader that had seen the removed event goes on.
    const seen = (await changes(h, apiKey, `?since=${since + 1}`)).body;
    expect(seen.changes.map((e) => e.filename)).toEqual(['new.md']);
  });
});

describe('Server-Sent Events', () => {
  test('streams events from Last-Event-ID (else since), with ids, then the ones that commit', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    for (const name of ['1.md', '2.md', '3.md']) await h.uploadFile(apiKey, defaultProjectId, name, name);
    const all = (await changes(h, apiKey, '?limit=1000')).body.changes;
    const resumeAt = all.at(-2)!.seq;
    const response = await h.fetch('/api/changes?since=0', {
      key: apiKey,
      headers: { Accept: 'text/event-stream', 'Last-Event-ID': String(resumeAt) },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    setTimeout(() => void h.uploadFile(apiKey, defaultProjectId, 'live.md', 'x'), 300);
    const text = await readStream(response, (t) => t.includes('live.md'));
    expect(sseIds(text)).toEqual([all.at(-1)!.seq, all.at(-1)!.seq + 1]);
    const data = [...text.matchAll(/^event: change\nid: \d+\ndata: (.*)$/gm)].map((m) => JSON.parse(m[1]!));
    expect(data.map((e: ChangeEvent) => e.filename)).toEqual(['3.md', 'live.md']);
    expect(data[1]).toMatchObject({ type: 'file.created', project_id: defaultProjectId });
  });

  test('a bad Last-Event-ID is 422; a stale since is 410 before the stream starts', async (h) => {
    const { apiKey } = await h.account();
    const response = await h.fetch('/api/changes', {
      key: apiKey,
      headers: { Accept: 'text/event-stream', 'Last-Event-ID': 'x' },
    });
    expect(response.status).toBe(422);
    expect(((await response.json()) as { detail: Array<{ loc: unknown }> }).detail[0]!.loc).toEqual([
      'header',
      'last-event-id',
    ]);
  });

  test('an idle stream sends a comment line every heartbeat (at most 15 s apart by default)', async (h) => {
    expect(CHANGES_LIMITS.heartbeatMs).toBeLessThanOrEqual(15_000);
    const { apiKey } = await h.account();
    const since = await lastSeq(h, apiKey);
    const response = await h.fetch(`/api/changes?since=${since}`, {
      key: apiKey,
      headers: { Accept: 'text/event-stream' },
    });
    const opened = Date.now();
    const beats = (t: string) => t.match(/^: heartbeat$/gm)?.length ?? 0;
    const text = await readStream(response, (t) => beats(t) >= 2, 15_000);
    expect(beats(text)).toBeGreaterThanOrEqual(2);
    // Two beats of the harness's 300 ms: nothing else wrote in between (no event ids).
    expect(Date.now() - opened).toBeGreaterThanOrEqual(2 * HARNESS_HEARTBEAT_MS - 50);
    expect(sseIds(text)).toEqual([]);
  }, 20_000);

  test('the stream ends when its key is revoked', async (h) => {
    const { accountId } = await h.account();
    const key = await h.store.apiKeys.create({ account: accountId, role: 'read' });
    const response = await h.fetch('/api/changes', {
      key: key.apiKey,
      headers: { Accept: 'text/event-stream' },
    });
    expect(response.status).toBe(200);
    const reading = readStream(response, () => false, 6000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const revoked = Date.now();
    await h.store.apiKeys.revoke({ keyId: key.keyId });
    await reading;
    expect(Date.now() - revoked).toBeLessThan(4000);
  }, 10_000);
});
