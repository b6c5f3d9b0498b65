import { describe, expect } from 'vitest';
import {
  expectNothingLeftBehind,
  type FileAnswer,
  projectJson,
  sha256Field,
  sha256Hex,
  spyingAdapters,
} from '../support/conditional.js';
import { type HttpHarness, serverTest } from '../support/http-harness.js';
import { race, soleWinner } from '../support/race.js';

/**
 * History, move and copy (extensions §5, the trash aside): kept revisions and their pruning, the
 * revision list, a revision's content, diffs, restore, move and copy, with their preconditions,
 * counters, storage bound and races. Contents are small (inline on the default sets) unless a test says
 * otherwise; the sqlite-fs-blobs and postgres-s3 sets keep every content in the blob store.
 */
const { factory, spied } = spyingAdapters();
const test = serverTest({ adapters: factory, settings: { maxFileBytes: 200_000 } });
const boundedTest = serverTest({ adapters: factory, settings: { maxProjectBytes: 100 } });
const MISSING_UUID = '3f1c5b9e-8d2a-4c7b-9e1f-2a3b4c5d6e7f';
const NOT_FOUND = { detail: 'Revision not found' };
const REQUIRED = { detail: "Precondition required: send If-Match with the file's ETag" };
const pause = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms));

interface RevisionItem {
  revision: number;
  etag: string;
  size_bytes: number;
  sha256: string;
  metadata: unknown;
  change: string;
  created_date: string;
  changeset_id: string | null;
  message: string | null;
}
type Issue = { loc: unknown[]; msg: string; type: string };

async function setup(h: HttpHarness, o: { settings?: Record<string, unknown>; content?: string } = {}) {
  const { apiKey, accountId } = await h.account();
  const created = await h.json('/api/projects', 'POST', apiKey, { name: 'History', settings: o.settings });
  const { id: projectId } = (await created.json()) as { id: string };
  const filename = 'doc.md';
  const first = (await h.uploadFile(apiKey, projectId, filename, o.content ?? 'v1\n', {
    v: 1,
  })) as unknown as FileAnswer;
  const files = `/api/projects/${projectId}/files`;
  const path = (name = filename) => `${files}/${encodeURIComponent(name)}`;
  const api = {
    content: (text: string, name = filename, headers: Record<string, string> = {}) =>
      h.fetch(`${path(name)}/content`, {
        method: 'PUT',
        key: apiKey,
        headers: { 'Content-Type': 'text/markdown', ...headers },
        body: text,
      }),
    metadata: (metadata: unknown, name = filename) => h.json(path(name), 'PUT', apiKey, { metadata }),
    revisions: (query = '', name = filename) => h.fetch(`${path(name)}/revisions${query}`, { key: apiKey }),
    revision: (n: number | string, headers: Record<string, string> = {}, name = filename) =>
      h.fetch(`${path(name)}/revisions/${n}`, { key: apiKey, headers }),
    diff: (query: string, name = filename) => h.fetch(`${path(name)}/diff${query}`, { key: apiKey }),
    post: (
      op: 'restore' | 'move' | 'copy',
      body: unknown,
      headers: Record<string, string> = {},
      name = filename,
    ) =>
      h.fetch(`${path(name)}/${op}`, {
        method: 'POST',
        key: apiKey,
        headers: { 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify(body),
      }),
    project: async () => (await projectJson(h, apiKey, projectId)).body,
    download: async (name = filename) => {
      const response = await h.fetch(path(name), { key: apiKey });
      return { status: response.status, text: await response.text() };
    },
  };
  return { apiKey, accountId, projectId, filename, first, path, api };
}

type Setup = Awaited<ReturnType<typeof setup>>;

async function revisionList(api: Setup['api'], query = '', name?: string) {
  const response = await api.revisions(query, name);
  expect(response.status).toBe(200);
  return (await response.json()) as { revisions: RevisionItem[]; next_cursor: string | null };
}

/** Writes contents `v2`…`vN` (one revision each). */
async function writeVersions(api: Setup['api'], last: number): Promise<void> {
  for (let n = 2; n <= last; n++) expect((await api.content(`v${n}\n`)).status).toBe(200);
}

const issuesOf = async (response: Response) => ((await response.json()) as { detail: Issue[] }).detail;

describe('kept revisions (keep_revisions)', () => {
  test('the newest keep_revisions are kept, the current one included; older ones are 404', async (h) => {
    const { api } = await setup(h, { settings: { keep_revisions: 3 } });
    await writeVersions(api, 5);
    const list = await revisionList(api);
    expect(list.revisions.map((r) => r.revision)).toEqual([5, 4, 3]);
    for (const n of [3, 4, 5]) expect(await (await api.revision(n)).text()).toBe(`v${n}\n`);
    for (const n of [1, 2]) {
      const gone = await api.revision(n);
      expect(gone.status).toBe(404);
      expect(await gone.json()).toEqual(NOT_FOUND);
    }
  });

  test('keep_revisions 1 keeps no history: history_size_bytes stays 0', async (h) => {
    const { api } = await setup(h, { settings: { keep_revisions: 1 } });
    await writeVersions(api, 3);
    expect((await revisionList(api)).revisions.map((r) => r.revision)).toEqual([3]);
    expect((await api.project()).history_size_bytes).toBe(0);
  });

  test('lowering keep_revisions prunes at once', async (h) => {
    const { api, apiKey, projectId } = await setup(h);
    await writeVersions(api, 4);
    expect((await revisionList(api)).revisions).toHaveLength(4);
    const lowered = await h.json(`/api/projects/${projectId}`, 'PUT', apiKey, {
      settings: { keep_revisions: 2 },
    });
    expect(lowered.status).toBe(200);
    expect((await revisionList(api)).revisions.map((r) => r.revision)).toEqual([4, 3]);
    expect((await api.revision(2)).status).toBe(404);
    expect(((await lowered.json()) as { history_size_bytes: number }).history_size_bytes).toBe(3);
  });

  test('history_size_bytes counts earlier contents once, apart from total_size_bytes', async (h) => {
    const { api } = await setup(h, { content: 'one\n' });
    expect(await api.project()).toMatchObject({
      total_size_bytes: 4,
      history_size_bytes: 0,
      trash_size_bytes: 0,
    });
    expect((await api.content('second\n')).status).toBe(200);
    // A metadata write shares the content: nothing more is kept.
    expect((await api.metadata({ v: 2 })).status).toBe(200);
    expect(await api.project()).toMatchObject({
      total_size_bytes: 7,
      history_size_bytes: 4,
      trash_size_bytes: 0,
    });
  });

  test('the revisions of a deleted file go with it: a new file of that name starts afresh', async (h) => {
    const { api, apiKey, projectId, filename, path } = await setup(h);
    await writeVersions(api, 3);
    expect((await h.fetch(path(), { method: 'DELETE', key: apiKey })).status).toBe(204);
    expect((await api.revisions()).status).toBe(404);
    await h.uploadFile(apiKey, projectId, filename, 'again\n');
    const list = await revisionList(api);
    expect(list.revisions.map((r) => [r.revision, r.change])).toEqual([[1, 'created']]);
    expect((await api.revision(2)).status).toBe(404);
    expect((await api.project()).history_size_bytes).toBe(0);
    await expectNothingLeftBehind(h, spied, projectId);
  });
});

describe('GET …/revisions', () => {
  test('every kept revision, newest first, with its fields and change', async (h) => {
    const { api, first, apiKey, path } = await setup(h);
    const second = (await (await api.content('v2\n')).json()) as FileAnswer;
    const third = (await (await api.metadata({ v: 3 })).json()) as FileAnswer;
    const edit = await h.fetch(path(), {
      method: 'PATCH',
      key: apiKey,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ edits: [{ op: 'replace', old: 'v2', new: 'v4' }] }),
    });
    expect(edit.status).toBe(200);
    const list = await revisionList(api);
    expect(list.next_cursor).toBeNull();
    expect(list.revisions.map((r) => [r.revision, r.change])).toEqual([
      [4, 'edit'],
      [3, 'metadata'],
      [2, 'content'],
      [1, 'created'],
    ]);
    const [, meta, content, created] = list.revisions;
    expect(created).toEqual({
      revision: 1,
      etag: first.etag,
      size_bytes: 3,
      sha256: sha256Hex('v1\n'),
      metadata: { v: 1 },
      change: 'created',
      created_date: first.updated_date,
      // Written by a single upload, not by a changeset (extensions §9).
      changeset_id: null,
      message: null,
      // Extensions §14: the key whose request wrote it (the account's first key here).
      key_id: ((await (await h.fetch('/api/keys/current', { key: apiKey })).json()) as { id: string }).id,
    });
    expect(content).toMatchObject({ etag: second.etag, metadata: { v: 1 }, sha256: sha256Hex('v2\n') });
    expect(meta).toMatchObject({ etag: third.etag, metadata: { v: 3 }, sha256: sha256Hex('v2\n') });
    expect(list.revisions[0]).toMatchObject({ metadata: { v: 3 }, sha256: sha256Hex('v4\n') });
  });

  test('limit and cursor page through the list, each revision once', async (h) => {
    const { api } = await setup(h);
    await writeVersions(api, 5);
    const seen: number[] = [];
    let query = '?limit=2';
    for (let pages = 0; pages < 5; pages++) {
      const page = await revisionList(api, query);
      expect(page.revisions.length).toBeLessThanOrEqual(2);
      seen.push(...page.revisions.map((r) => r.revision));
      if (page.next_cursor === null) break;
      query = `?limit=2&cursor=${encodeURIComponent(page.next_cursor)}`;
    }
    expect(seen).toEqual([5, 4, 3, 2, 1]);
  });

  test('a bad limit or cursor is 422 at its query parameter', async (h) => {
    const { api, apiKey, projectId } = await setup(h);
    for (const limit of ['0', '1001', 'x', '-1']) {
      const response = await api.revisions(`?limit=${limit}`);
      expect(response.status).toBe(422);
      expect((await issuesOf(response))[0]!.loc).toEqual(['query', 'limit']);
    }
    const bad = await api.revisions('?cursor=nonsense!');
    expect(bad.status).toBe(422);
    expect((await issuesOf(bad))[0]!.loc).toEqual(['query', 'cursor']);
    // A cursor of another file is refused too.
    await h.uploadFile(apiKey, projectId, 'other.md', 'a\n');
    await api.content('b\n', 'other.md');
    const { next_cursor } = await revisionList(api, '?limit=1', 'other.md');
    const foreign = await api.revisions(`?cursor=${next_cursor}`);
    expect(foreign.status).toBe(422);
    expect((await issuesOf(foreign))[0]!.loc).toEqual(['query', 'cursor']);
    // Cursors are signed: one with a single character changed is refused, however plausible.
    await api.content('v2\n');
    const own = (await revisionList(api, '?limit=1')).next_cursor!;
    const swapped = own[5] === 'A' ? 'B' : 'A';
    const tampered = await api.revisions(`?cursor=${own.slice(0, 5)}${swapped}${own.slice(6)}`);
    expect(tampered.status).toBe(422);
    expect((await issuesOf(tampered))[0]!.loc).toEqual(['query', 'cursor']);
    expect((await api.revisions(`?limit=1&cursor=${own}`)).status).toBe(200);
  });

  test('404 for a missing file or project, 403 for another account', async (h) => {
    const { api, projectId } = await setup(h);
    expect((await api.revisions('', 'missing.md')).status).toBe(404);
    const stranger = await h.account();
    const response = await h.fetch(`/api/projects/${projectId}/files/doc.md/revisions`, {
      key: stranger.apiKey,
    });
    expect(response.status).toBe(403);
    const missing = await h.fetch(`/api/projects/${MISSING_UUID}/files/doc.md/revisions`, {
      key: stranger.apiKey,
    });
    expect(missing.status).toBe(404);
  });
});

describe('GET …/revisions/{n}', () => {
  test("the revision's raw content with the download headers and its own ETag and Repr-Digest", async (h) => {
    const { api, first } = await setup(h, { content: '# first\n' });
    await api.content('# second version\n');
    const response = await api.revision(1);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('# first\n');
    expect(response.headers.get('etag')).toBe(first.etag);
    expect(response.headers.get('repr-digest')).toBe(sha256Field('# first\n'));
    expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(response.headers.get('content-disposition')).toContain('doc.md');
    expect(response.headers.get('x-file-size')).toBe('8');
    expect(response.headers.get('last-modified')).toBe(new Date(first.updated_date).toUTCString());
    expect(response.headers.get('accept-ranges')).toBe('bytes');
    expect(response.headers.get('cache-control')).toBe('private, no-cache');
  });

  test("If-None-Match with the revision's ETag is 304; a Range is 206", async (h) => {
    const { api, first } = await setup(h, { content: '0123456789\n' });
    await api.content('other\n');
    const cached = await api.revision(1, { 'If-None-Match': first.etag });
    expect(cached.status).toBe(304);
    const part = await api.revision(1, { Range: 'bytes=2-4' });
    expect(part.status).toBe(206);
    expect(await part.text()).toBe('234');
    expect(part.headers.get('content-range')).toBe('bytes 2-4/11');
  });

  test('an unknown revision is 404 Revision not found; a non-number is 422', async (h) => {
    const { api } = await setup(h);
    for (const n of [2, 99]) {
      const response = await api.revision(n);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual(NOT_FOUND);
    }
    const bad = await api.revision('abc');
    expect(bad.status).toBe(422);
    expect((await issuesOf(bad))[0]!.loc).toEqual(['path', 'revision']);
    expect((await api.revision(1, {}, 'missing.md')).status).toBe(404);
  });
});

describe('GET …/diff', () => {
  const lines = (n: number, changed: Record<number, string> = {}) =>
    Array.from({ length: n }, (_, i) => `${changed[i + 1] ?? `line ${i + 1}`}\n`).join('');

  test('a unified diff with 3 lines of context, to the current revision by default', async (h) => {
    const { api } = await setup(h, { content: lines(20) });
    await api.content(lines(20, { 10: 'changed' }));
    const response = await api.diff('?from=1');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/x-diff; charset=utf-8');
    expect(await response.text()).toBe(
      [
        '--- a/doc.md',
        '+++ b/doc.md',
        '@@ -7,7 +7,7 @@',
        ' line 7',
        ' line 8',
        ' line 9',
        '-line 10',
        '+changed',
        ' line 11',
        ' line 12',
        ' line 13',
        '',
      ].join('\n'),
    );
    await api.content(lines(20, { 10: 'changed', 20: 'end' }));
    const between = await (await api.diff('?from=1&to=2')).text();
    expect(between).not.toContain('end');
    expect(await (await api.diff('?from=2&to=2')).text()).toBe('');
  });

  test('from is required (422); an unknown revision is 404', async (h) => {
    const { api } = await setup(h);
    const missing = await api.diff('');
    expect(missing.status).toBe(422);
    expect((await issuesOf(missing))[0]!.loc).toEqual(['query', 'from']);
    const bad = await api.diff('?from=1&to=x');
    expect(bad.status).toBe(422);
    expect((await issuesOf(bad))[0]!.loc).toEqual(['query', 'to']);
    for (const query of ['?from=5', '?from=1&to=5']) {
      const unknown = await api.diff(query);
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toEqual(NOT_FOUND);
    }
  });

  test('413 Diff too large beyond 10⁷ line comparisons', async (h) => {
    const { api } = await setup(h, { content: 'a\n'.repeat(1600) });
    await api.content('b\n'.repeat(1600));
    const response = await api.diff('?from=1');
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ detail: 'Diff too large' });
    // Just under the bound it is answered.
    await api.content('a\n'.repeat(1500));
    await api.content('b\n'.repeat(1500));
    expect((await api.diff('?from=3')).status).toBe(200);
  });
});

describe('POST …/restore', () => {
  test('content and metadata of revision n become a new revision; counters follow', async (h) => {
    const { api, projectId } = await setup(h, { content: 'first\n' });
    await api.content('the second one\n');
    await api.metadata({ v: 3 });
    const response = await api.post('restore', { revision: 1 });
    expect(response.status).toBe(200);
    const restored = (await response.json()) as FileAnswer & { filename: string };
    expect(restored).toMatchObject({ filename: 'doc.md', revision: 4, size_bytes: 6, metadata: { v: 1 } });
    expect(response.headers.get('etag')).toBe(restored.etag);
    expect(await api.download()).toEqual({ status: 200, text: 'first\n' });
    const list = await revisionList(api);
    expect(list.revisions[0]).toMatchObject({ revision: 4, change: 'restore', sha256: sha256Hex('first\n') });
    expect(await api.project()).toMatchObject({ total_size_bytes: 6, history_size_bytes: 15 });
    await expectNothingLeftBehind(h, spied, projectId);
  });

  test('If-Match is honoured (412) and required when the project says so (428)', async (h) => {
    const { api, first } = await setup(h, { settings: { require_if_match: true } });
    const second = (await (
      await api.content('v2\n', undefined, { 'If-Match': first.etag })
    ).json()) as FileAnswer;
    const required = await api.post('restore', { revision: 1 });
    expect(required.status).toBe(428);
    expect(await required.json()).toEqual(REQUIRED);
    const stale = await api.post('restore', { revision: 1 }, { 'If-Match': first.etag });
    expect(stale.status).toBe(412);
    expect(stale.headers.get('etag')).toBe(second.etag);
    expect(await api.download()).toEqual({ status: 200, text: 'v2\n' });
    expect((await api.post('restore', { revision: 1 }, { 'If-Match': second.etag })).status).toBe(200);
    expect(await api.download()).toEqual({ status: 200, text: 'v1\n' });
  });

  test('a pruned or unknown revision is 404; a bad body is 422', async (h) => {
    const { api } = await setup(h, { settings: { keep_revisions: 2 } });
    await writeVersions(api, 3);
    for (const revision of [1, 9]) {
      const response = await api.post('restore', { revision });
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual(NOT_FOUND);
    }
    for (const body of [{}, { revision: 'x' }, { revision: 0 }, { revision: 1.5 }, []]) {
      const response = await api.post('restore', body);
      expect(response.status).toBe(422);
    }
    expect((await revisionList(api)).revisions.map((r) => r.revision)).toEqual([3, 2]);
  });
});

describe('POST …/move', () => {
  test('the file keeps content, metadata and history under the new name; nothing is copied', async (h) => {
    const { api, projectId } = await setup(h);
    await api.content('v2\n');
    const before = await api.project();
    await pause();
    spied.blobs.clear();
    spied.inline.clear();
    const response = await api.post('move', { to: 'renamed.md' });
    expect(response.status).toBe(200);
    const moved = (await response.json()) as FileAnswer & { filename: string };
    expect(moved).toMatchObject({ filename: 'renamed.md', revision: 3, metadata: { v: 1 }, size_bytes: 3 });
    expect(response.headers.get('etag')).toBe(moved.etag);
    // No content version was written.
    expect([...spied.blobs, ...spied.inline]).toEqual([]);
    expect((await api.download()).status).toBe(404);
    expect(await api.download('renamed.md')).toEqual({ status: 200, text: 'v2\n' });
    const list = await revisionList(api, '', 'renamed.md');
    expect(list.revisions.map((r) => [r.revision, r.change])).toEqual([
      [3, 'move'],
      [2, 'content'],
      [1, 'created'],
    ]);
    expect(await (await api.revision(1, {}, 'renamed.md')).text()).toBe('v1\n');
    const after = await api.project();
    expect(after).toMatchObject({
      file_count: before.file_count,
      total_size_bytes: before.total_size_bytes,
      history_size_bytes: before.history_size_bytes,
    });
    expect(Date.parse(after.updated_date as string)).toBeGreaterThan(
      Date.parse(before.updated_date as string),
    );
    await expectNothingLeftBehind(h, spied, projectId);
  });

  test('409 when the name exists (itself included); the file stays', async (h) => {
    const { api, apiKey, projectId } = await setup(h);
    await h.uploadFile(apiKey, projectId, 'taken.md', 'other\n');
    for (const to of ['taken.md', 'doc.md']) {
      const response = await api.post('move', { to });
      expect(response.status).toBe(409);
      expect(await response.json()).toEqual({ detail: `File with name '${to}' already exists` });
    }
    expect(await api.download()).toEqual({ status: 200, text: 'v1\n' });
    expect(await api.download('taken.md')).toEqual({ status: 200, text: 'other\n' });
  });

  test('to follows the filename rules: 400, 415; a missing or non-string to is 422', async (h) => {
    const { api } = await setup(h);
    for (const to of ['a\\b.md', 'bad\u0001.md', '.md', `${'x'.repeat(256)}.md`]) {
      const response = await api.post('move', { to });
      expect(response.status, to).toBe(400);
      expect((await issuesOf(response))[0]!.loc).toEqual(['body', 'to']);
    }
    expect((await api.post('move', { to: 'notes.txt' })).status).toBe(415);
    for (const body of [{}, { to: 3 }]) {
      const response = await api.post('move', body);
      expect(response.status).toBe(422);
      expect((await issuesOf(response))[0]!.loc).toEqual(['body', 'to']);
    }
    expect(await api.download()).toEqual({ status: 200, text: 'v1\n' });
  });

  test('If-Match is honoured (412) and required when the project says so (428)', async (h) => {
    const { api, first } = await setup(h, { settings: { require_if_match: true } });
    const required = await api.post('move', { to: 'new.md' });
    expect(required.status).toBe(428);
    expect(await required.json()).toEqual(REQUIRED);
    const stale = await api.post('move', { to: 'new.md' }, { 'If-Match': '"nope"' });
    expect(stale.status).toBe(412);
    expect(stale.headers.get('etag')).toBe(first.etag);
    expect((await api.post('move', { to: 'new.md' }, { 'If-Match': first.etag })).status).toBe(200);
  });

  test('concurrent moves of one file to two names: exactly one wins', async (h) => {
    const { apiKey, projectId, path, api } = await setup(h);
    for (let run = 0; run < 3; run++) {
      const from = run === 0 ? 'doc.md' : `doc-${run}.md`;
      if (run > 0) await h.uploadFile(apiKey, projectId, from, `run ${run}\n`);
      const targets = ['left.md', 'right.md'].map((name) => `${run}-${name}`);
      const outcome = await race(
        h.url,
        targets.map((to) => ({
          method: 'POST',
          path: `${path(from)}/move`,
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: Buffer.from(JSON.stringify({ to })),
        })),
      );
      const winner = soleWinner(outcome.answers);
      expect(outcome.answers[1 - winner]!.status).toBe(404);
      expect((await api.download(targets[winner])).status).toBe(200);
      expect((await api.download(targets[1 - winner])).status).toBe(404);
    }
    await expectNothingLeftBehind(h, spied, projectId);
  });

  test('concurrent moves of two files to one name: exactly one wins', async (h) => {
    const { apiKey, projectId, path, api } = await setup(h);
    await h.uploadFile(apiKey, projectId, 'other.md', 'other\n');
    const outcome = await race(
      h.url,
      ['doc.md', 'other.md'].map((from) => ({
        method: 'POST',
        path: `${path(from)}/move`,
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: Buffer.from(JSON.stringify({ to: 'same.md' })),
      })),
    );
    const winner = soleWinner(outcome.answers);
    expect(outcome.answers[1 - winner]!.status).toBe(409);
    const texts = ['v1\n', 'other\n'];
    expect(await api.download('same.md')).toEqual({ status: 200, text: texts[winner] });
    expect((await api.project()).file_count).toBe(2);
    await expectNothingLeftBehind(h, spied, projectId);
  });
});

describe('POST …/copy', () => {
  test('a new file (revision 1, change copy) with the same content and metadata; 201', async (h) => {
    const { api, projectId } = await setup(h);
    await api.content('v2\n');
    const response = await api.post('copy', { to: 'copy.md' });
    expect(response.status).toBe(201);
    const copied = (await response.json()) as FileAnswer & { filename: string };
    expect(copied).toMatchObject({
      filename: 'copy.md',
      revision: 1,
      metadata: { v: 1 },
      sha256: sha256Hex('v2\n'),
    });
    expect(response.headers.get('etag')).toBe(copied.etag);
    const list = await revisionList(api, '', 'copy.md');
    expect(list.revisions.map((r) => [r.revision, r.change])).toEqual([[1, 'copy']]);
    expect(await api.download('copy.md')).toEqual({ status: 200, text: 'v2\n' });
    expect(await api.project()).toMatchObject({ file_count: 2, total_size_bytes: 6 });
    // The copy is independent: writing one leaves the other alone.
    await api.content('changed\n', 'copy.md');
    expect(await api.download()).toEqual({ status: 200, text: 'v2\n' });
    await expectNothingLeftBehind(h, spied, projectId);
  });

  test('into another active project of the account; 403 for another account; 404 missing', async (h) => {
    const { api, apiKey, projectId } = await setup(h);
    const { id: otherId } = await h.createProject(apiKey, 'Other');
    const response = await api.post('copy', { to: 'doc.md', project_id: otherId });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ project_id: otherId, filename: 'doc.md', revision: 1 });
    const other = (await projectJson(h, apiKey, otherId)).body;
    expect(other).toMatchObject({ file_count: 1, total_size_bytes: 3 });
    expect(await api.project()).toMatchObject({ file_count: 1, total_size_bytes: 3 });
    const stranger = await h.account();
    const forbidden = await api.post('copy', { to: 'x.md', project_id: stranger.defaultProjectId });
    expect(forbidden.status).toBe(403);
    expect((await api.post('copy', { to: 'x.md', project_id: MISSING_UUID })).status).toBe(404);
    // A deleted project is no longer active: 404.
    const { id: goneId } = await h.createProject(apiKey, 'Gone');
    expect((await h.fetch(`/api/projects/${goneId}`, { method: 'DELETE', key: apiKey })).status).toBe(200);
    expect((await api.post('copy', { to: 'x.md', project_id: goneId })).status).toBe(404);
    const bad = await api.post('copy', { to: 'x.md', project_id: 'nope' });
    expect(bad.status).toBe(422);
    expect((await issuesOf(bad))[0]!.loc).toEqual(['body', 'project_id']);
    await expectNothingLeftBehind(h, spied, projectId);
    await expectNothingLeftBehind(h, spied, otherId);
  });

  test('a copy writes no existing file: never 428; If-Match is judged against the source', async (h) => {
    const { api, first } = await setup(h, { settings: { require_if_match: true } });
    expect((await api.post('copy', { to: 'free.md' })).status).toBe(201);
    const stale = await api.post('copy', { to: 'other.md' }, { 'If-Match': '"stale-1"' });
    expect(stale.status).toBe(412);
    expect(stale.headers.get('etag')).toBe(first.etag);
    expect((await api.post('copy', { to: 'other.md' }, { 'If-Match': first.etag })).status).toBe(201);
  });

  test('409 when the name exists; to follows the filename rules', async (h) => {
    const { api } = await setup(h);
    const taken = await api.post('copy', { to: 'doc.md' });
    expect(taken.status).toBe(409);
    expect((await api.post('copy', { to: 'a\\b.md' })).status).toBe(400);
    expect((await api.post('copy', { to: 'a.txt' })).status).toBe(415);
    expect((await api.project()).file_count).toBe(1);
  });

  test('a large content is copied whole (blob store on every set)', async (h) => {
    const big = `# big\n${'x'.repeat(100_000)}\n`;
    const { api, apiKey, path, projectId } = await setup(h, { content: big });
    expect((await api.post('copy', { to: 'big-copy.md' })).status).toBe(201);
    expect(await api.download('big-copy.md')).toEqual({ status: 200, text: big });
    // Pruning the source's versions never touches the copy's.
    await api.content('small\n');
    expect((await h.fetch(path(), { method: 'DELETE', key: apiKey })).status).toBe(204);
    expect(await api.download('big-copy.md')).toEqual({ status: 200, text: big });
    await expectNothingLeftBehind(h, spied, projectId);
  });
});

describe('the rules every endpoint shares (extensions §0)', () => {
  test('every history endpoint needs the key, answers 403 to another account, carries the rate-limit headers', async (h) => {
    const { apiKey, projectId, path } = await setup(h);
    const stranger = await h.account();
    const calls: Array<{ method: string; suffix: string; body?: unknown }> = [
      { method: 'GET', suffix: '/revisions' },
      { method: 'GET', suffix: '/revisions/1' },
      { method: 'GET', suffix: '/diff?from=1' },
      { method: 'POST', suffix: '/restore', body: { revision: 1 } },
      { method: 'POST', suffix: '/copy', body: { to: 'copied.md' } },
      { method: 'POST', suffix: '/move', body: { to: 'moved.md' } },
    ];
    for (const call of calls) {
      const send = (key?: string) =>
        h.fetch(`${path()}${call.suffix}`, {
          method: call.method,
          ...(key !== undefined && { key }),
          ...(call.body !== undefined && {
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify(call.body),
          }),
        });
      expect((await send()).status, call.suffix).toBe(401);
      expect((await send(stranger.apiKey)).status, call.suffix).toBe(403);
      const ok = await send(apiKey);
      expect(ok.status, call.suffix).toBeLessThan(300);
      expect(ok.headers.get('x-ratelimit-remaining'), call.suffix).toMatch(/^\d+$/);
      await ok.arrayBuffer();
    }
    expect((await projectJson(h, apiKey, projectId)).body.file_count).toBe(2);
  });

  test('HEAD of a revision is its headers only; other methods are 405 with Allow; a repeated parameter is 422', async (h) => {
    const { api, apiKey, path, first } = await setup(h, { content: '# head\n' });
    const head = await h.fetch(`${path()}/revisions/1`, { method: 'HEAD', key: apiKey });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe(first.etag);
    expect(head.headers.get('content-length')).toBe('7');
    expect(await head.text()).toBe('');
    for (const [method, suffix, allow] of [
      ['DELETE', '/revisions', 'GET, HEAD'],
      ['POST', '/revisions/1', 'GET, HEAD'],
      ['PUT', '/diff', 'GET, HEAD'],
      ['GET', '/move', 'POST'],
    ] as const) {
      const response = await h.fetch(`${path()}${suffix}`, { method, key: apiKey });
      expect(response.status, `${method} ${suffix}`).toBe(405);
      expect(response.headers.get('allow'), `${method} ${suffix}`).toBe(allow);
      await response.arrayBuffer();
    }
    const twice = await api.diff('?from=1&from=1');
    expect(twice.status).toBe(422);
    expect((await issuesOf(twice))[0]!.loc).toEqual(['query', 'from']);
  });

  test('restore, move and copy answer with ETag, Last-Modified and Cache-Control of the file', async (h) => {
    const { api } = await setup(h);
    for (const [op, body] of [
      ['restore', { revision: 1 }],
      ['copy', { to: 'copy.md' }],
      ['move', { to: 'moved.md' }],
    ] as const) {
      const response = await api.post(op, body);
      const file = (await response.json()) as FileAnswer;
      expect(response.headers.get('etag'), op).toBe(file.etag);
      expect(response.headers.get('last-modified'), op).toBe(new Date(file.updated_date).toUTCString());
      expect(response.headers.get('cache-control'), op).toBe('private, no-cache');
    }
  });
});

describe('storage bound (MDSTORE_MAX_PROJECT_BYTES)', () => {
  boundedTest(
    'a copy that would pass the cap is 413 and changes nothing; a restore holds no more',
    async (h) => {
      const { api, projectId } = await setup(h, { content: `${'a'.repeat(40)}\n` });
      await api.content('b\n');
      // A restore shares the restored version: the bytes held stay 43.
      expect((await api.post('restore', { revision: 1 })).status).toBe(200);
      expect(await api.project()).toMatchObject({ total_size_bytes: 41, history_size_bytes: 2 });
      await api.content(`${'c'.repeat(50)}\n`);
      // 51 current + 43 history = 94: a copy of 51 bytes would hold 145.
      const copy = await api.post('copy', { to: 'copy.md' });
      expect(copy.status).toBe(413);
      expect(await copy.json()).toEqual({ detail: 'Project storage limit reached' });
      expect(await api.project()).toMatchObject({
        file_count: 1,
        total_size_bytes: 51,
        history_size_bytes: 43,
      });
      await expectNothingLeftBehind(h, spied, projectId);
    },
  );
});
