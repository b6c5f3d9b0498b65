import { describe, expect } from 'vitest';
import { type FileAnswer, projectJson } from '../support/conditional.js';
import { type HttpHarness, serverTest } from '../support/http-harness.js';

/**
 * Project settings (extensions §2 "Project settings"): on create, update and the Project object, their
 * validation, and `require_if_match` enforced with 428 on every write to an existing file.
 */
const test = serverTest();
const DEFAULTS = {
  require_if_match: false,
  keep_revisions: 20,
  trash_retention_days: 0,
  keep_revisions_days: 0,
};
const REQUIRED = { detail: "Precondition required: send If-Match with the file's ETag" };
const pause = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms));

type Issue = { loc: unknown[]; msg: string; type: string };

async function create(h: HttpHarness, key: string, body: unknown) {
  const response = await h.json('/api/projects', 'POST', key, body);
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown> & { detail?: Issue[] },
  };
}

async function update(h: HttpHarness, key: string, id: string, body: unknown) {
  const response = await h.json(`/api/projects/${id}`, 'PUT', key, body);
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown> & { detail?: Issue[] },
  };
}

describe('settings on the Project object', () => {
  test('defaults on a new project, on the default project and in the list', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    const created = await create(h, apiKey, { name: 'Plain' });
    expect(created.status).toBe(201);
    expect(created.body.settings).toEqual(DEFAULTS);
    expect((await projectJson(h, apiKey, defaultProjectId)).body.settings).toEqual(DEFAULTS);
    const list = (await (await h.fetch('/api/projects', { key: apiKey })).json()) as {
      projects: Array<{ settings: unknown }>;
    };
    expect(list.projects.map((project) => project.settings)).toEqual([DEFAULTS, DEFAULTS]);
  });

  test('create accepts any subset; omitted keys take their default; the values are stored', async (h) => {
    const { apiKey } = await h.account();
    const all = await create(h, apiKey, {
      name: 'All',
      settings: {
        require_if_match: true,
        keep_revisions: 1,
        trash_retention_days: 365,
        keep_revisions_days: 3650,
      },
    });
    expect(all.status).toBe(201);
    expect(all.body.settings).toEqual({
      require_if_match: true,
      keep_revisions: 1,
      trash_retention_days: 365,
      keep_revisions_days: 3650,
    });
    const some = await create(h, apiKey, { name: 'Some', settings: { keep_revisions: 1000 } });
    expect(some.body.settings).toEqual({ ...DEFAULTS, keep_revisions: 1000 });
    const empty = await create(h, apiKey, { name: 'Empty', settings: {} });
    expect(empty.body.settings).toEqual(DEFAULTS);
    // Read back: stored, not just echoed.
    expect((await projectJson(h, apiKey, all.body.id as string)).body.settings).toEqual(all.body.settings);
  });

  test('update changes only the keys given; the others keep their value', async (h) => {
    const { apiKey } = await h.account();
    const { body } = await create(h, apiKey, {
      name: 'Kept',
      settings: { keep_revisions: 5, trash_retention_days: 7 },
    });
    const id = body.id as string;
    const first = await update(h, apiKey, id, { settings: { require_if_match: true } });
    expect(first.status).toBe(200);
    expect(first.body.settings).toEqual({
      require_if_match: true,
      keep_revisions: 5,
      trash_retention_days: 7,
      keep_revisions_days: 0,
    });
    const second = await update(h, apiKey, id, { name: 'Renamed', settings: { trash_retention_days: 0 } });
    expect(second.body).toMatchObject({
      name: 'Renamed',
      settings: { require_if_match: true, keep_revisions: 5, trash_retention_days: 0 },
    });
    expect((await projectJson(h, apiKey, id)).body.settings).toEqual(second.body.settings);
  });

  test('{"settings": {}} is a valid update: only updated_date and the ETag change', async (h) => {
    const { apiKey } = await h.account();
    const { body } = await create(h, apiKey, { name: 'Touch', description: 'd' });
    const id = body.id as string;
    let previous = await projectJson(h, apiKey, id);
    for (let round = 0; round < 3; round++) {
      await pause();
      const touched = await update(h, apiKey, id, { settings: {} });
      expect(touched.status).toBe(200);
      const { updated_date, etag, ...rest } = touched.body;
      const { updated_date: before, etag: beforeEtag, ...beforeRest } = previous.body;
      expect(rest).toEqual(beforeRest);
      expect((updated_date as string) > (before as string)).toBe(true);
      expect(etag).not.toBe(beforeEtag);
      previous = await projectJson(h, apiKey, id);
      expect(previous.etag).toBe(etag);
    }
  });

  test('unknown keys, wrong types and values out of range are 422 at ["body","settings",KEY]; nothing changes', async (h) => {
    const { apiKey } = await h.account();
    const { body } = await create(h, apiKey, { name: 'Strict' });
    const id = body.id as string;
    const before = await projectJson(h, apiKey, id);
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ unknown: true }, ['unknown']],
      [{ require_if_match: 'yes' }, ['require_if_match']],
      [{ require_if_match: 1 }, ['require_if_match']],
      [{ require_if_match: null }, ['require_if_match']],
      [{ keep_revisions: 0 }, ['keep_revisions']],
      [{ keep_revisions: 1001 }, ['keep_revisions']],
      [{ keep_revisions: 2.5 }, ['keep_revisions']],
      [{ keep_revisions: '20' }, ['keep_revisions']],
      [{ trash_retention_days: -1 }, ['trash_retention_days']],
      [{ trash_retention_days: 366 }, ['trash_retention_days']],
      [{ trash_retention_days: true }, ['trash_retention_days']],
      [{ keep_revisions_days: -1 }, ['keep_revisions_days']],
      [{ keep_revisions_days: 3651 }, ['keep_revisions_days']],
      [
        { keep_revisions: 0, trash_retention_days: 999, extra: 1 },
        ['keep_revisions', 'trash_retention_days', 'extra'],
      ],
    ];
    for (const [settings, keys] of cases) {
      for (const answer of [
        await update(h, apiKey, id, { settings }),
        await create(h, apiKey, { name: `Refused ${JSON.stringify(settings)}`, settings }),
      ]) {
        expect(answer.status, JSON.stringify(settings)).toBe(422);
        const locs = answer.body.detail!.map((issue) => issue.loc);
        expect(locs.sort()).toEqual(keys.map((key) => ['body', 'settings', key]).sort());
        for (const issue of answer.body.detail!) expect(typeof issue.msg).toBe('string');
      }
    }
    // The issue types speak the API's pydantic-style vocabulary, as every other validation error does.
    const typeOf = async (settings: Record<string, unknown>) =>
      (await update(h, apiKey, id, { settings })).body.detail![0]!.type;
    expect(await typeOf({ unknown: true })).toBe('extra_forbidden');
    expect(await typeOf({ require_if_match: 'yes' })).toBe('bool_type');
    expect(await typeOf({ keep_revisions: 2.5 })).toBe('int_type');
    expect(await typeOf({ keep_revisions: '20' })).toBe('int_type');
    expect(await typeOf({ keep_revisions: 0 })).toBe('greater_than_equal');
    expect(await typeOf({ trash_retention_days: 366 })).toBe('less_than_equal');
    for (const settings of [null, [], 'x', 5]) {
      const answer = await update(h, apiKey, id, { settings });
      expect(answer.status, JSON.stringify(settings)).toBe(422);
      expect(answer.body.detail![0]!.loc).toEqual(['body', 'settings']);
    }
    expect(await projectJson(h, apiKey, id)).toEqual(before);
    const list = (await (await h.fetch('/api/projects', { key: apiKey })).json()) as { total_count: number };
    expect(list.total_count).toBe(2);
  });
});

describe('require_if_match', () => {
  async function guarded(h: HttpHarness) {
    const { apiKey } = await h.account();
    const { body } = await create(h, apiKey, { name: 'Guarded', settings: { require_if_match: true } });
    const projectId = body.id as string;
    const uploaded = await h.upload(apiKey, projectId, [
      { name: 'file', filename: 'g.md', data: '# guarded' },
    ]);
    // Creating a file is no write to an existing one: no If-Match needed.
    expect(uploaded.status).toBe(201);
    const file = (await uploaded.json()) as FileAnswer;
    const path = `/api/projects/${projectId}/files/g.md`;
    const send = (method: string, suffix: string, headers: Record<string, string>, body?: string) =>
      h.fetch(`${path}${suffix}`, { method, key: apiKey, headers, body });
    return {
      apiKey,
      projectId,
      file,
      path,
      content: (headers: Record<string, string> = {}, body = '# new') =>
        send('PUT', '/content', { 'Content-Type': 'text/markdown', ...headers }, body),
      metadata: (headers: Record<string, string> = {}, body = '{"metadata":{"m":1}}') =>
        send('PUT', '', { 'Content-Type': 'application/json', ...headers }, body),
      remove: (headers: Record<string, string> = {}) => send('DELETE', '', headers),
    };
  }

  test('a write to an existing file without If-Match is 428 and changes nothing', async (h) => {
    const g = await guarded(h);
    for (const response of [await g.content(), await g.metadata(), await g.remove()]) {
      expect(response.status).toBe(428);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
      expect(await response.json()).toEqual(REQUIRED);
    }
    const download = await h.fetch(g.path, { key: g.apiKey });
    expect(await download.text()).toBe('# guarded');
    expect(download.headers.get('etag')).toBe(g.file.etag);
  });

  test('with the current If-Match (or *) the writes go through; a stale one is 412', async (h) => {
    const g = await guarded(h);
    const stale = await g.content({ 'If-Match': '"stale"' });
    expect(stale.status).toBe(412);
    expect(stale.headers.get('etag')).toBe(g.file.etag);
    await stale.arrayBuffer();
    const content = await g.content({ 'If-Match': g.file.etag });
    expect(content.status).toBe(200);
    const afterContent = (await content.json()) as FileAnswer;
    const metadata = await g.metadata({ 'If-Match': afterContent.etag });
    expect(metadata.status).toBe(200);
    expect(await metadata.json()).toMatchObject({ revision: 3, metadata: { m: 1 } });
    const removed = await g.remove({ 'If-Match': '*' });
    expect(removed.status).toBe(204);
  });

  test('428 comes before 412: other preconditions without If-Match still get 428', async (h) => {
    const g = await guarded(h);
    const past = 'Sun, 06 Nov 1994 08:49:37 GMT';
    for (const headers of [
      { 'If-None-Match': '*' },
      { 'If-Unmodified-Since': past },
      { 'If-None-Match': g.file.etag },
    ] as Record<string, string>[]) {
      for (const response of [await g.content(headers), await g.metadata(headers), await g.remove(headers)]) {
        expect(response.status, JSON.stringify(headers)).toBe(428);
        expect(await response.json()).toEqual(REQUIRED);
      }
    }
  });

  test('an If-Match that cannot be read is sent all the same: 412, not 428', async (h) => {
    const g = await guarded(h);
    for (const value of ['', 'garbage', 'W/"weak"']) {
      const response = await g.content({ 'If-Match': value });
      expect(response.status, value).toBe(412);
      expect(await response.json()).toEqual({ detail: 'Precondition failed' });
    }
  });

  test('428 comes after file 404 and 415, and before the body is judged', async (h) => {
    const g = await guarded(h);
    const missing = await h.fetch(`/api/projects/${g.projectId}/files/none.md`, {
      method: 'DELETE',
      key: g.apiKey,
    });
    expect(missing.status).toBe(404);
    await missing.arrayBuffer();
    const wrongType = await g.content({ 'Content-Type': 'text/plain' });
    expect(wrongType.status).toBe(415);
    await wrongType.arrayBuffer();
    for (const response of [
      await g.content({}, ''),
      await g.metadata({}, '{"metadata":'),
      await g.metadata({}, '[]'),
    ]) {
      expect(response.status).toBe(428);
      await response.arrayBuffer();
    }
  });

  test('reads, uploads and project requests need no If-Match; turning the setting off lifts the rule', async (h) => {
    const g = await guarded(h);
    const download = await h.fetch(g.path, { key: g.apiKey });
    expect(download.status).toBe(200);
    await download.arrayBuffer();
    const renamed = await h.json(`/api/projects/${g.projectId}`, 'PUT', g.apiKey, {
      description: 'no If-Match',
    });
    expect(renamed.status).toBe(200);
    await renamed.arrayBuffer();
    const off = await h.json(`/api/projects/${g.projectId}`, 'PUT', g.apiKey, {
      settings: { require_if_match: false },
    });
    expect(await off.json()).toMatchObject({ settings: { require_if_match: false } });
    const free = await g.content();
    expect(free.status).toBe(200);
    await free.arrayBuffer();
    // And on again.
    await (
      await h.json(`/api/projects/${g.projectId}`, 'PUT', g.apiKey, { settings: { require_if_match: true } })
    ).arrayBuffer();
    expect((await g.metadata()).status).toBe(428);
  });

  test('the setting is read under the project lock: a write that started before it was turned on is refused', async (h) => {
    // A streamed body holds the write between its first checks and its commit; the setting changes meanwhile.
    const g = await guarded(h);
    await (
      await h.json(`/api/projects/${g.projectId}`, 'PUT', g.apiKey, { settings: { require_if_match: false } })
    ).arrayBuffer();
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const pending = h.fetch(`${g.path}/content`, {
      method: 'PUT',
      key: g.apiKey,
      headers: { 'Content-Type': 'text/markdown' },
      body: new ReadableStream({
        async pull(controller) {
          await released;
          controller.enqueue(new TextEncoder().encode('# late'));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    await pause(150);
    const on = await h.json(`/api/projects/${g.projectId}`, 'PUT', g.apiKey, {
      settings: { require_if_match: true },
    });
    expect(on.status).toBe(200);
    await on.arrayBuffer();
    release();
    const response = await pending;
    expect(response.status).toBe(428);
    expect(await response.json()).toEqual(REQUIRED);
    expect(await (await h.fetch(g.path, { key: g.apiKey })).text()).toBe('# guarded');
  });
});
