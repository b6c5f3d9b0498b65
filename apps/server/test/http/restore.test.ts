import { DAY_MS } from '@mdstore/core';
import { describe, expect } from 'vitest';
import { type HttpHarness, serverTest } from '../support/http-harness.js';

/**
 * A project as it was (extensions §16): `POST /api/projects/{id}/restore {"as_of", "dry_run"}` brings the
 * files back to a time from revisions and the trash as one changeset (a dry run writes nothing), reports
 * files whose history no longer reaches it; `keep_revisions_days` keeps young revisions beyond
 * `keep_revisions`. The core's clock is advanced instead of waiting.
 */
const test = serverTest();

type Body = Record<string, unknown> & { detail?: Array<{ loc: unknown[] }> };

const fileUrl = (projectId: string, filename: string) =>
  `/api/projects/${projectId}/files/${encodeURIComponent(filename)}`;

async function project(h: HttpHarness, settings: Record<string, unknown>) {
  const { apiKey, accountId } = await h.account();
  const response = await h.json('/api/projects', 'POST', apiKey, { name: 'As it was', settings });
  expect(response.status).toBe(201);
  const { id } = (await response.json()) as { id: string };
  return { key: apiKey, projectId: id, accountId };
}

async function apply(h: HttpHarness, key: string, projectId: string, operations: unknown[]) {
  const response = await h.json(`/api/projects/${projectId}/changesets`, 'POST', key, { operations });
  expect(response.status, await response.clone().text()).toBe(200);
}

async function restore(h: HttpHarness, key: string, projectId: string, body: unknown) {
  const response = await h.json(`/api/projects/${projectId}/restore`, 'POST', key, body);
  return { status: response.status, body: (await response.json()) as Body };
}

/** Every file of the project: its content and metadata. */
async function files(h: HttpHarness, key: string, projectId: string) {
  const response = await h.fetch(`/api/projects/${projectId}/files?limit=1000`, { key });
  const list = (await response.json()) as { files: { filename: string; metadata: unknown }[] };
  const out: Record<string, { text: string; metadata: unknown }> = {};
  for (const file of list.files) {
    const text = await (await h.fetch(fileUrl(projectId, file.filename), { key })).text();
    out[file.filename] = { text, metadata: file.metadata };
  }
  return out;
}

async function revisions(h: HttpHarness, key: string, projectId: string, filename: string) {
  const response = await h.fetch(`${fileUrl(projectId, filename)}/revisions`, { key });
  expect(response.status).toBe(200);
  return (
    (await response.json()) as {
      revisions: { revision: number; change: string; changeset_id: string | null }[];
    }
  ).revisions;
}

/** A moment strictly between writes: the clock moves a second before and after it. */
function moment(h: HttpHarness): string {
  h.clock.advance(1000);
  const at = new Date(h.clock.now()).toISOString();
  h.clock.advance(1000);
  return at;
}

describe('POST /api/projects/{id}/restore', () => {
  test('a dry run says what would be created, changed and deleted, and writes nothing; the restore then does exactly that as one changeset', async (h) => {
    const { key, projectId } = await project(h, { trash_retention_days: 1 });
    const big = `# big\n${'x'.repeat(700)}\n`;
    await apply(h, key, projectId, [
      { op: 'put', filename: 'a.md', content: '# a one\n', metadata: { v: 1 } },
      { op: 'put', filename: 'b.md', content: big },
      { op: 'put', filename: 'e.md', content: '# e\n' },
    ]);
    const then = await files(h, key, projectId);
    const asOf = moment(h);
    await apply(h, key, projectId, [
      { op: 'put', filename: 'a.md', content: '# a two\n', metadata: { v: 2 } },
      { op: 'move', filename: 'b.md', to: 'c.md' },
      { op: 'put', filename: 'd.md', content: '# d\n' },
      { op: 'delete', filename: 'e.md' },
    ]);
    const now = await files(h, key, projectId);

    const dry = await restore(h, key, projectId, { as_of: asOf, dry_run: true });
    expect(dry.status).toBe(200);
    const expected = {
      as_of: asOf,
      created: [{ filename: 'e.md', trash_id: expect.any(String) }],
      changed: [
        { filename: 'a.md', from: null, content: true, metadata: true, revision: 1 },
        { filename: 'b.md', from: 'c.md', content: false, metadata: false, revision: 1 },
      ],
      deleted: [{ filename: 'd.md' }],
      unrecoverable: [],
      counts: { created: 1, changed: 2, deleted: 1, unrecoverable: 0, unchanged: 0 },
      truncated: false,
    };
    expect(dry.body).toEqual({ ...expected, dry_run: true, changeset_id: null });
    expect(await files(h, key, projectId)).toEqual(now);

    const done = await restore(h, key, projectId, { as_of: asOf });
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ ...expected, dry_run: false, changeset_id: expect.any(String) });
    expect(await files(h, key, projectId)).toEqual(then);
    // One changeset: every touched file's newest revision carries its id; the file deleted is in the trash.
    for (const name of ['a.md', 'b.md', 'e.md']) {
      expect((await revisions(h, key, projectId, name))[0]!.changeset_id).toBe(done.body.changeset_id);
    }
    const trash = await (await h.fetch(`/api/projects/${projectId}/trash`, { key })).json();
    expect((trash as { trash: { filename: string }[] }).trash.map((item) => item.filename)).toContain('d.md');

    // As of now again: nothing differs, nothing written.
    h.clock.advance(1000);
    const again = await restore(h, key, projectId, { as_of: new Date(h.clock.now()).toISOString() });
    expect(again.body).toMatchObject({ changeset_id: null, counts: { unchanged: 3, changed: 0 } });
  });

  test('a file whose kept revisions no longer reach as_of is reported unrecoverable and left as it is; keep_revisions_days keeps them', async (h) => {
    for (const days of [0, 1]) {
      const { key, projectId } = await project(h, { keep_revisions: 1, keep_revisions_days: days });
      await apply(h, key, projectId, [{ op: 'put', filename: 'a.md', content: '# one\n' }]);
      const asOf = moment(h);
      await apply(h, key, projectId, [{ op: 'put', filename: 'a.md', content: '# two\n' }]);
      const done = await restore(h, key, projectId, { as_of: asOf });
      expect(done.status).toBe(200);
      if (days === 0) {
        expect(done.body.unrecoverable).toEqual([{ filename: 'a.md', reason: 'history_pruned' }]);
        expect(done.body.changeset_id).toBeNull();
        expect((await files(h, key, projectId))['a.md']!.text).toBe('# two\n');
      } else {
        expect(done.body.unrecoverable).toEqual([]);
        expect((await files(h, key, projectId))['a.md']!.text).toBe('# one\n');
      }
    }
  });

  test('refusals: a key below admin and another account’s project are 403; a bad body is 422 at its loc', async (h) => {
    const { key, projectId } = await project(h, {});
    for (const role of ['read', 'write']) {
      const created = await h.json('/api/keys', 'POST', key, { name: role, role });
      const secret = ((await created.json()) as { api_key: string }).api_key;
      expect((await restore(h, secret, projectId, { as_of: new Date().toISOString() })).status).toBe(403);
    }
    const other = await h.account();
    expect((await restore(h, other.apiKey, projectId, { as_of: new Date().toISOString() })).status).toBe(403);
    const now = h.clock.now();
    const cases: [unknown, unknown[]][] = [
      [{}, ['body', 'as_of']],
      [{ as_of: 'last tuesday' }, ['body', 'as_of']],
      [{ as_of: new Date(now + DAY_MS).toISOString() }, ['body', 'as_of']],
      [{ as_of: '2001-01-01T00:00:00Z' }, ['body', 'as_of']],
      [{ as_of: new Date(now).toISOString(), dry_run: 'yes' }, ['body', 'dry_run']],
      [{ as_of: new Date(now).toISOString(), extra: 1 }, ['body', 'extra']],
      [[], ['body']],
    ];
    for (const [body, loc] of cases) {
      const refused = await restore(h, key, projectId, body);
      expect(refused.status, JSON.stringify(body)).toBe(422);
      expect(refused.body.detail![0]!.loc).toEqual(loc);
    }
  });
});

describe('settings.keep_revisions_days', () => {
  test('defaults to 0, takes 0–3650 (422 past it), keeps revisions younger than it beyond keep_revisions until they age', async (h) => {
    const { key, projectId } = await project(h, { keep_revisions: 1 });
    const view = (await (await h.fetch(`/api/projects/${projectId}`, { key })).json()) as {
      settings: Record<string, unknown>;
    };
    expect(view.settings.keep_revisions_days).toBe(0);
    for (const value of [-1, 3651, 1.5, '1']) {
      const refused = await h.json(`/api/projects/${projectId}`, 'PUT', key, {
        settings: { keep_revisions_days: value },
      });
      expect(refused.status).toBe(422);
      const body = (await refused.json()) as Body;
      expect(body.detail![0]!.loc).toEqual(['body', 'settings', 'keep_revisions_days']);
    }
    const set = await h.json(`/api/projects/${projectId}`, 'PUT', key, {
      settings: { keep_revisions_days: 3650 },
    });
    expect(set.status).toBe(200);
    expect(((await set.json()) as { settings: Record<string, unknown> }).settings.keep_revisions_days).toBe(
      3650,
    );
    await h.json(`/api/projects/${projectId}`, 'PUT', key, { settings: { keep_revisions_days: 2 } });

    for (const text of ['# 1\n', '# 2\n', '# 3\n']) {
      await apply(h, key, projectId, [{ op: 'put', filename: 'a.md', content: text }]);
      h.clock.advance(1000);
    }
    // Young: all three kept beyond keep_revisions 1.
    expect((await revisions(h, key, projectId, 'a.md')).map((r) => r.revision)).toEqual([3, 2, 1]);
    // A day later still young; three days later the next write prunes those that aged.
    h.clock.advance(DAY_MS);
    await apply(h, key, projectId, [{ op: 'put', filename: 'a.md', content: '# 4\n' }]);
    expect((await revisions(h, key, projectId, 'a.md')).map((r) => r.revision)).toEqual([4, 3, 2, 1]);
    h.clock.advance(2 * DAY_MS);
    await apply(h, key, projectId, [{ op: 'put', filename: 'a.md', content: '# 5\n' }]);
    expect((await revisions(h, key, projectId, 'a.md')).map((r) => r.revision)).toEqual([5]);
    // Lowering the setting prunes at once.
    await apply(h, key, projectId, [{ op: 'put', filename: 'a.md', content: '# 6\n' }]);
    expect((await revisions(h, key, projectId, 'a.md')).map((r) => r.revision)).toEqual([6, 5]);
    const lowered = await h.json(`/api/projects/${projectId}`, 'PUT', key, {
      settings: { keep_revisions_days: 0 },
    });
    expect(lowered.status).toBe(200);
    expect((await revisions(h, key, projectId, 'a.md')).map((r) => r.revision)).toEqual([6]);
  });
});
