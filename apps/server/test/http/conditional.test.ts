import { describe, expect } from 'vitest';
import {
  type FileAnswer,
  fileState,
  projectJson,
  projectWithFile,
  sha256Hex,
} from '../support/conditional.js';
import { type HttpHarness, serverTest } from '../support/http-harness.js';

/**
 * Extensions §2 over HTTP: `etag`/`revision`/`sha256`, the validators on answers, and conditional
 * requests (`If-Match`, `If-None-Match`, `If-Modified-Since`, `If-Unmodified-Since`) on downloads, file
 * writes and projects, with 304/412 and the order of checks. Ranges and digests: ranges-digests.test.ts;
 * settings and 428: settings.test.ts; concurrent writers: if-match-race.test.ts.
 */
const test = serverTest();
const limitedTest = serverTest({ settings: { rateLimits: { standard: 3, premium: 3 } } });
const MISSING_UUID = '3f1c5b9e-8d2a-4c7b-9e1f-2a3b4c5d6e7f';
const MAX = 1024; // TEST_SETTINGS.maxFileBytes
const STRONG_ETAG = /^"[\x21\x23-\x7e]+"$/;
const PRECONDITION_FAILED = { detail: 'Precondition failed' };

const httpDate = (iso: string) => new Date(iso).toUTCString();
/** An HTTP date `seconds` away from another one. */
const shifted = (date: string, seconds: number) => new Date(Date.parse(date) + seconds * 1000).toUTCString();
const weak = (etag: string) => `W/${etag}`;
const pause = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms));

type Init = { headers?: Record<string, string> };

function ops(h: HttpHarness, key: string, path: string) {
  return {
    get: (o: Init & { method?: string } = {}) =>
      h.fetch(path, { key, method: o.method ?? 'GET', headers: o.headers }),
    content: (body: string | Uint8Array, o: Init & { type?: string } = {}) =>
      h.fetch(`${path}/content`, {
        method: 'PUT',
        key,
        headers: { 'Content-Type': o.type ?? 'text/markdown', ...o.headers },
        body,
      }),
    metadata: (body: unknown, o: Init & { raw?: string; type?: string } = {}) =>
      h.fetch(path, {
        method: 'PUT',
        key,
        headers: { 'Content-Type': o.type ?? 'application/json', ...o.headers },
        body: o.raw ?? JSON.stringify(body),
      }),
    remove: (o: Init = {}) => h.fetch(path, { method: 'DELETE', key, headers: o.headers }),
  };
}

async function expectPreconditionFailed(response: Response, currentEtag: string): Promise<void> {
  expect(response.status).toBe(412);
  expect(response.headers.get('etag')).toBe(currentEtag);
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(response.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
  expect(await response.json()).toEqual(PRECONDITION_FAILED);
}

/** The file is exactly as before: same bytes, revision, ETag, updated_date and metadata. */
async function expectUnchanged(
  h: HttpHarness,
  s: { apiKey: string; projectId: string; filename: string },
  before: FileAnswer,
  bytes: string,
): Promise<void> {
  const now = await fileState(h, s.apiKey, s.projectId, s.filename);
  expect(now.body?.toString('utf8')).toBe(bytes);
  expect(now.item).toMatchObject({
    etag: before.etag,
    revision: before.revision,
    updated_date: before.updated_date,
    metadata: before.metadata,
  });
}

describe('fields and validators', () => {
  test('upload: etag, revision 1 and sha256 in the body; ETag, Last-Modified and Cache-Control headers', async (h) => {
    const { apiKey } = await h.account();
    const { id: projectId } = await h.createProject(apiKey, 'Fields');
    const content = '# Fields\ncafé 😀\n';
    const response = await h.upload(apiKey, projectId, [{ name: 'file', filename: 'f.md', data: content }]);
    expect(response.status).toBe(201);
    const file = (await response.json()) as FileAnswer;
    expect(file.etag).toMatch(STRONG_ETAG);
    expect(file.revision).toBe(1);
    expect(file.sha256).toBe(sha256Hex(content));
    expect(response.headers.get('etag')).toBe(file.etag);
    expect(response.headers.get('last-modified')).toBe(httpDate(file.updated_date));
    expect(response.headers.get('cache-control')).toBe('private, no-cache');
  });

  test('every write adds a revision, a new ETag and a later updated_date; the answers carry them', async (h) => {
    const s = await projectWithFile(h, '# one', { metadata: { a: 1 } });
    const op = ops(h, s.apiKey, s.path);
    const seen = [s.file.etag];
    let previous = s.file;
    const writes: Array<[string, () => Promise<Response>]> = [
      ['content', () => op.content('# two')],
      ['metadata', () => op.metadata({ metadata: { a: 2 } })],
      // The same value again is still a write.
      ['same metadata', () => op.metadata({ metadata: { a: 2 } })],
      ['same content', () => op.content('# two')],
      ['cleared metadata', () => op.metadata({ metadata: null })],
    ];
    for (const [name, write] of writes) {
      await pause();
      const response = await write();
      expect(response.status, name).toBe(200);
      const file = (await response.json()) as FileAnswer;
      expect(file.revision, name).toBe(previous.revision + 1);
      expect(file.etag, name).toMatch(STRONG_ETAG);
      expect(seen, name).not.toContain(file.etag);
      expect(file.updated_date > previous.updated_date, name).toBe(true);
      expect(file.sha256, name).toBe(sha256Hex('# two'));
      expect(response.headers.get('etag'), name).toBe(file.etag);
      expect(response.headers.get('last-modified'), name).toBe(httpDate(file.updated_date));
      expect(response.headers.get('cache-control'), name).toBe('private, no-cache');
      seen.push(file.etag);
      previous = file;
    }
    // The list and the download agree with the last answer.
    const state = await fileState(h, s.apiKey, s.projectId, s.filename);
    expect(state.item).toMatchObject({ etag: previous.etag, revision: 6, sha256: sha256Hex('# two') });
    const download = await op.get();
    expect(download.headers.get('etag')).toBe(previous.etag);
    await download.arrayBuffer();
  });

  test('a file deleted and uploaded again under its name never gets back an earlier ETag', async (h) => {
    const s = await projectWithFile(h, '# same');
    const op = ops(h, s.apiKey, s.path);
    const seen = new Set([s.file.etag]);
    for (let round = 0; round < 3; round++) {
      expect((await op.remove()).status).toBe(204);
      const again = (await h.uploadFile(
        s.apiKey,
        s.projectId,
        s.filename,
        '# same',
      )) as unknown as FileAnswer;
      expect(again.revision).toBe(1);
      expect(seen.has(again.etag)).toBe(false);
      seen.add(again.etag);
      // An If-Match with the tag of the earlier incarnation fails.
      const stale = await op.content('# stale', { headers: { 'If-Match': s.file.etag } });
      await expectPreconditionFailed(stale, again.etag);
    }
  });

  test('download (GET and HEAD): ETag, Last-Modified, Cache-Control: private, no-cache', async (h) => {
    const s = await projectWithFile(h, '# download');
    for (const method of ['GET', 'HEAD']) {
      const response = await ops(h, s.apiKey, s.path).get({ method });
      expect(response.status, method).toBe(200);
      expect(response.headers.get('etag'), method).toBe(s.file.etag);
      expect(response.headers.get('last-modified'), method).toBe(httpDate(s.file.updated_date));
      expect(response.headers.get('cache-control'), method).toBe('private, no-cache');
      expect(await response.text(), method).toBe(method === 'GET' ? '# download' : '');
    }
  });

  test('answers without an ETag keep Cache-Control: no-store', async (h) => {
    const s = await projectWithFile(h);
    const noStore = async (response: Promise<Response>, name: string) => {
      const answer = await response;
      expect(answer.headers.get('etag'), name).toBeNull();
      expect(answer.headers.get('cache-control'), name).toBe('no-store');
      await answer.arrayBuffer();
    };
    await noStore(h.fetch('/api/projects', { key: s.apiKey }), 'list projects');
    await noStore(h.fetch(`/api/projects/${s.projectId}/files`, { key: s.apiKey }), 'list files');
    await noStore(h.fetch(`/api/projects/${s.projectId}/files/none.md`, { key: s.apiKey }), 'file 404');
    await noStore(ops(h, s.apiKey, s.path).content(''), 'content 400');
    await noStore(ops(h, s.apiKey, s.path).remove(), 'file delete 204');
    const { id } = await h.createProject(s.apiKey, 'Short-lived');
    await noStore(h.fetch(`/api/projects/${id}`, { key: s.apiKey, method: 'DELETE' }), 'project delete');
  });

  test('project: ETag on Get, Create and Update, equal to its etag field, changing with any field', async (h) => {
    const { apiKey } = await h.account();
    const created = await h.json('/api/projects', 'POST', apiKey, { name: 'Tagged' });
    const project = (await created.json()) as Record<string, unknown> & { id: string; etag: string };
    expect(project.etag).toMatch(STRONG_ETAG);
    expect(created.headers.get('etag')).toBe(project.etag);
    expect(created.headers.get('cache-control')).toBe('private, no-cache');
    const got = await h.fetch(`/api/projects/${project.id}`, { key: apiKey });
    expect(got.headers.get('etag')).toBe(project.etag);
    expect(got.headers.get('cache-control')).toBe('private, no-cache');
    expect(await got.json()).toEqual(project);

    const tags = [project.etag];
    const changes: Array<[string, () => Promise<unknown>]> = [
      ['rename', () => h.json(`/api/projects/${project.id}`, 'PUT', apiKey, { name: 'Renamed' })],
      ['upload', () => h.uploadFile(apiKey, project.id, 'a.md', '# a')],
      ['content', () => ops(h, apiKey, `/api/projects/${project.id}/files/a.md`).content('# longer a')],
      ['delete', () => ops(h, apiKey, `/api/projects/${project.id}/files/a.md`).remove()],
      [
        'settings',
        () => h.json(`/api/projects/${project.id}`, 'PUT', apiKey, { settings: { keep_revisions: 3 } }),
      ],
    ];
    for (const [name, change] of changes) {
      await pause();
      const answer = await change();
      if (answer instanceof Response) await answer.arrayBuffer();
      const now = await projectJson(h, apiKey, project.id);
      expect(now.etag, name).toBe(now.body.etag);
      expect(tags, name).not.toContain(now.etag);
      tags.push(now.etag!);
    }
    const updated = await h.json(`/api/projects/${project.id}`, 'PUT', apiKey, { description: 'x' });
    const body = (await updated.json()) as { etag: string };
    expect(updated.headers.get('etag')).toBe(body.etag);
    expect(updated.headers.get('cache-control')).toBe('private, no-cache');
    // The list shows the same tags as Get Project.
    const list = (await (await h.fetch('/api/projects', { key: apiKey })).json()) as {
      projects: Array<{ id: string; etag: string }>;
    };
    expect(list.projects.find((p) => p.id === project.id)?.etag).toBe(body.etag);
  });

  test('a metadata update leaves the project (and so its ETag) untouched', async (h) => {
    const s = await projectWithFile(h);
    const before = await projectJson(h, s.apiKey, s.projectId);
    await pause();
    expect((await ops(h, s.apiKey, s.path).metadata({ metadata: { x: 1 } })).status).toBe(200);
    const after = await projectJson(h, s.apiKey, s.projectId);
    expect(after.etag).toBe(before.etag);
    expect(after.body).toEqual(before.body);
  });
});

describe('conditional downloads', () => {
  test('If-None-Match that matches (strong, weak, in a list, *): 304 with validators, rate-limit headers, no body', async (h) => {
    const s = await projectWithFile(h, '# cached');
    const op = ops(h, s.apiKey, s.path);
    for (const value of [s.file.etag, weak(s.file.etag), `"other", ${s.file.etag}`, '*']) {
      for (const method of ['GET', 'HEAD']) {
        const response = await op.get({ method, headers: { 'If-None-Match': value } });
        expect(response.status, `${method} ${value}`).toBe(304);
        expect(response.headers.get('etag')).toBe(s.file.etag);
        expect(response.headers.get('last-modified')).toBe(httpDate(s.file.updated_date));
        expect(response.headers.get('cache-control')).toBe('private, no-cache');
        expect(response.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
        expect(response.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
        expect(response.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
        expect(response.headers.get('content-length') ?? '0').toBe('0');
        expect(await response.text()).toBe('');
      }
    }
    const other = await op.get({ headers: { 'If-None-Match': '"other"' } });
    expect(other.status).toBe(200);
    expect(await other.text()).toBe('# cached');
  });

  test('after a write the old ETag no longer matches: 200 with the new content', async (h) => {
    const s = await projectWithFile(h, '# v1');
    const op = ops(h, s.apiKey, s.path);
    expect((await op.content('# v2')).status).toBe(200);
    const response = await op.get({ headers: { 'If-None-Match': s.file.etag } });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('# v2');
  });

  test('If-Modified-Since: 304 at or after Last-Modified (to the second), 200 before; invalid dates ignored', async (h) => {
    const s = await projectWithFile(h, '# dated');
    const op = ops(h, s.apiKey, s.path);
    const lastModified = httpDate(s.file.updated_date);
    const status = async (value: string) => {
      const response = await op.get({ headers: { 'If-Modified-Since': value } });
      await response.arrayBuffer();
      return response.status;
    };
    expect(await status(lastModified)).toBe(304);
    expect(await status(shifted(lastModified, 3600))).toBe(304);
    expect(await status(shifted(lastModified, -1))).toBe(200);
    // The obsolete forms are read too (RFC 9110 §5.6.7).
    const asctime = new Date(Date.parse(lastModified));
    const parts = lastModified.split(' '); // Sun, 06 Nov 1994 08:49:37 GMT
    const asctimeForm = `${parts[0]!.slice(0, 3)} ${parts[2]} ${String(asctime.getUTCDate()).padStart(2, ' ')} ${parts[4]} ${parts[3]}`;
    expect(await status(asctimeForm)).toBe(304);
    for (const invalid of ['yesterday', '2026-11-21T10:29:36Z', '', 'Sun, 31 Feb 2026 00:00:00 GMT']) {
      expect(await status(invalid), invalid).toBe(200);
    }
  });

  test('If-None-Match takes precedence over If-Modified-Since', async (h) => {
    const s = await projectWithFile(h, '# both');
    const op = ops(h, s.apiKey, s.path);
    const future = shifted(httpDate(s.file.updated_date), 3600);
    const response = await op.get({ headers: { 'If-None-Match': '"other"', 'If-Modified-Since': future } });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('# both');
  });

  test('If-Match and If-Unmodified-Since on a download: 412 when they fail, 200 when they hold', async (h) => {
    const s = await projectWithFile(h, '# guarded');
    const op = ops(h, s.apiKey, s.path);
    const lastModified = httpDate(s.file.updated_date);
    await expectPreconditionFailed(await op.get({ headers: { 'If-Match': '"stale"' } }), s.file.etag);
    await expectPreconditionFailed(
      await op.get({ method: 'HEAD', headers: { 'If-Match': '"stale"' } }).then(
        // A HEAD answer has no body to compare: check the status and tag only.
        (response) => new Response('{"detail":"Precondition failed"}', response),
      ),
      s.file.etag,
    );
    await expectPreconditionFailed(
      await op.get({ headers: { 'If-Unmodified-Since': shifted(lastModified, -1) } }),
      s.file.etag,
    );
    for (const headers of [
      { 'If-Match': s.file.etag },
      { 'If-Match': '*' },
      { 'If-Unmodified-Since': lastModified },
      // If-Match wins over If-Unmodified-Since.
      { 'If-Match': s.file.etag, 'If-Unmodified-Since': shifted(lastModified, -100) },
    ] as Record<string, string>[]) {
      const response = await op.get({ headers });
      expect(response.status, JSON.stringify(headers)).toBe(200);
      expect(await response.text()).toBe('# guarded');
    }
    // A weak tag never matches strongly.
    await expectPreconditionFailed(await op.get({ headers: { 'If-Match': weak(s.file.etag) } }), s.file.etag);
  });

  test('a failed If-Match is 412 even when If-None-Match would give 304', async (h) => {
    const s = await projectWithFile(h);
    const response = await ops(h, s.apiKey, s.path).get({
      headers: { 'If-Match': '"stale"', 'If-None-Match': s.file.etag },
    });
    await expectPreconditionFailed(response, s.file.etag);
  });

  test('Get Project: If-None-Match gives 304 with ETag, Cache-Control and rate-limit headers; If-Match 412', async (h) => {
    const { apiKey, defaultProjectId } = await h.account();
    const path = `/api/projects/${defaultProjectId}`;
    const { etag } = await projectJson(h, apiKey, defaultProjectId);
    const cached = await h.fetch(path, { key: apiKey, headers: { 'If-None-Match': etag! } });
    expect(cached.status).toBe(304);
    expect(cached.headers.get('etag')).toBe(etag);
    expect(cached.headers.get('cache-control')).toBe('private, no-cache');
    expect(cached.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    expect(await cached.text()).toBe('');
    const fresh = await h.fetch(path, { key: apiKey, headers: { 'If-None-Match': '"other"' } });
    expect(fresh.status).toBe(200);
    await fresh.arrayBuffer();
    await expectPreconditionFailed(
      await h.fetch(path, { key: apiKey, headers: { 'If-Match': '"stale"' } }),
      etag!,
    );
    const held = await h.fetch(path, { key: apiKey, headers: { 'If-Match': etag! } });
    expect(held.status).toBe(200);
    await held.arrayBuffer();
  });
});

describe('conditional file writes', () => {
  test('content update: If-Match with the current ETag (or *) succeeds; a stale, weak or unreadable one is 412 and changes nothing', async (h) => {
    const s = await projectWithFile(h, '# original', { metadata: { v: 1 } });
    const op = ops(h, s.apiKey, s.path);
    const before = await projectJson(h, s.apiKey, s.projectId);
    for (const value of ['"stale"', weak(s.file.etag), 'not-a-tag', '"a" "b"', '', `*, ${s.file.etag}`]) {
      await expectPreconditionFailed(
        await op.content('# refused', { headers: { 'If-Match': value } }),
        s.file.etag,
      );
    }
    await expectUnchanged(h, s, s.file, '# original');
    expect(await projectJson(h, s.apiKey, s.projectId)).toEqual(before);

    const ok = await op.content('# second', { headers: { 'If-Match': `"other", ${s.file.etag}` } });
    expect(ok.status).toBe(200);
    const second = (await ok.json()) as FileAnswer;
    // The old tag is stale now.
    await expectPreconditionFailed(
      await op.content('# third', { headers: { 'If-Match': s.file.etag } }),
      second.etag,
    );
    const any = await op.content('# third', { headers: { 'If-Match': '*' } });
    expect(any.status).toBe(200);
    expect((await fileState(h, s.apiKey, s.projectId, s.filename)).body?.toString()).toBe('# third');
  });

  test('content update: If-None-Match (* or the current tag, even weak) is 412; another tag proceeds', async (h) => {
    const s = await projectWithFile(h, '# original');
    const op = ops(h, s.apiKey, s.path);
    for (const value of ['*', s.file.etag, weak(s.file.etag), 'garbage']) {
      await expectPreconditionFailed(
        await op.content('# no', { headers: { 'If-None-Match': value } }),
        s.file.etag,
      );
    }
    await expectUnchanged(h, s, s.file, '# original');
    expect((await op.content('# yes', { headers: { 'If-None-Match': '"other"' } })).status).toBe(200);
  });

  test('If-Unmodified-Since on writes: 412 when modified since, proceeds otherwise', async (h) => {
    const s = await projectWithFile(h, '# original');
    const op = ops(h, s.apiKey, s.path);
    const lastModified = httpDate(s.file.updated_date);
    await expectPreconditionFailed(
      await op.content('# no', { headers: { 'If-Unmodified-Since': shifted(lastModified, -1) } }),
      s.file.etag,
    );
    await expectPreconditionFailed(
      await op.metadata({ metadata: {} }, { headers: { 'If-Unmodified-Since': shifted(lastModified, -60) } }),
      s.file.etag,
    );
    await expectPreconditionFailed(
      await op.remove({ headers: { 'If-Unmodified-Since': shifted(lastModified, -1) } }),
      s.file.etag,
    );
    await expectUnchanged(h, s, s.file, '# original');
    // An invalid date is ignored.
    const ignored = await op.content('# yes', { headers: { 'If-Unmodified-Since': 'soon' } });
    expect(ignored.status).toBe(200);
    const now = (await ignored.json()) as FileAnswer;
    const held = await op.content('# again', {
      headers: { 'If-Unmodified-Since': shifted(httpDate(now.updated_date), 1) },
    });
    expect(held.status).toBe(200);
  });

  test('metadata update: a stale If-Match is 412 and keeps the metadata; the current one succeeds', async (h) => {
    const s = await projectWithFile(h, '# m', { metadata: { keep: true } });
    const op = ops(h, s.apiKey, s.path);
    await expectPreconditionFailed(
      await op.metadata({ metadata: { lost: true } }, { headers: { 'If-Match': '"stale"' } }),
      s.file.etag,
    );
    await expectPreconditionFailed(
      await op.metadata({ metadata: { lost: true } }, { headers: { 'If-None-Match': '*' } }),
      s.file.etag,
    );
    await expectUnchanged(h, s, s.file, '# m');
    const ok = await op.metadata({ metadata: { won: true } }, { headers: { 'If-Match': s.file.etag } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ metadata: { won: true }, revision: 2 });
  });

  test('delete: a stale If-Match is 412 and the file stays; the current one deletes it', async (h) => {
    const s = await projectWithFile(h, '# d');
    const op = ops(h, s.apiKey, s.path);
    const before = await projectJson(h, s.apiKey, s.projectId);
    await expectPreconditionFailed(await op.remove({ headers: { 'If-Match': '"stale"' } }), s.file.etag);
    await expectPreconditionFailed(
      await op.remove({ headers: { 'If-None-Match': s.file.etag } }),
      s.file.etag,
    );
    await expectUnchanged(h, s, s.file, '# d');
    expect(await projectJson(h, s.apiKey, s.projectId)).toEqual(before);
    const deleted = await op.remove({ headers: { 'If-Match': s.file.etag } });
    expect(deleted.status).toBe(204);
    expect((await op.get()).status).toBe(404);
  });

  test('a precondition on a file that does not exist is ignored: 404', async (h) => {
    const s = await projectWithFile(h);
    const op = ops(h, s.apiKey, `/api/projects/${s.projectId}/files/missing.md`);
    for (const headers of [
      { 'If-Match': '*' },
      { 'If-Match': s.file.etag },
      { 'If-None-Match': '*' },
    ] as Record<string, string>[]) {
      for (const response of [
        await op.get({ headers }),
        await op.content('# x', { headers }),
        await op.metadata({ metadata: {} }, { headers }),
        await op.remove({ headers }),
      ]) {
        expect(response.status, JSON.stringify(headers)).toBe(404);
        expect(await response.json()).toEqual({ detail: 'File not found' });
      }
    }
  });
});

describe('conditional project requests', () => {
  test('Update Project: a stale If-Match is 412 with the current ETag and changes nothing', async (h) => {
    const { apiKey } = await h.account();
    const { id } = await h.createProject(apiKey, 'Guarded');
    const path = `/api/projects/${id}`;
    const before = await projectJson(h, apiKey, id);
    const put = (body: unknown, headers: Record<string, string>) =>
      h.fetch(path, {
        method: 'PUT',
        key: apiKey,
        headers: { 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    await expectPreconditionFailed(await put({ name: 'Lost' }, { 'If-Match': '"stale"' }), before.etag!);
    await expectPreconditionFailed(await put({ name: 'Lost' }, { 'If-None-Match': '*' }), before.etag!);
    await expectPreconditionFailed(
      await put(
        { name: 'Lost' },
        { 'If-Unmodified-Since': shifted(httpDate(before.body.updated_date as string), -1) },
      ),
      before.etag!,
    );
    expect(await projectJson(h, apiKey, id)).toEqual(before);
    const ok = await put({ name: 'Won' }, { 'If-Match': before.etag! });
    expect(ok.status).toBe(200);
    const after = (await ok.json()) as { etag: string; name: string };
    expect(after.name).toBe('Won');
    expect(ok.headers.get('etag')).toBe(after.etag);
    await expectPreconditionFailed(await put({ name: 'Lost' }, { 'If-Match': before.etag! }), after.etag);
  });

  test('Delete Project: a stale If-Match is 412 and the project stays; the current one deletes it', async (h) => {
    const { apiKey } = await h.account();
    const { id } = await h.createProject(apiKey, 'Doomed');
    await h.uploadFile(apiKey, id, 'a.md', '# a');
    const before = await projectJson(h, apiKey, id);
    const remove = (headers: Record<string, string>) =>
      h.fetch(`/api/projects/${id}`, { method: 'DELETE', key: apiKey, headers });
    await expectPreconditionFailed(await remove({ 'If-Match': '"stale"' }), before.etag!);
    await expectPreconditionFailed(await remove({ 'If-None-Match': before.etag! }), before.etag!);
    expect(await projectJson(h, apiKey, id)).toEqual(before);
    expect((await h.fetch(`/api/projects/${id}/files/a.md`, { key: apiKey })).status).toBe(200);
    const deleted = await remove({ 'If-Match': before.etag! });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ message: 'Project deleted successfully', project_id: id });
  });
});

describe('order of checks (extensions §2, "Order")', () => {
  test('401, path 422, project 404/403 and file 404 come before a failing precondition', async (h) => {
    const s = await projectWithFile(h);
    const other = await h.account();
    const stale = { 'If-Match': '"stale"' };
    const base = `/api/projects/${s.projectId}/files`;
    const cases: Array<[string, string, string, number]> = [
      ['no key', '', s.path, 401],
      ['malformed project id', s.apiKey, '/api/projects/nope/files/doc.md', 422],
      ['missing project', s.apiKey, `/api/projects/${MISSING_UUID}/files/doc.md`, 404],
      ["another account's project", other.apiKey, s.path, 403],
      ['missing file', s.apiKey, `${base}/missing.md`, 404],
    ];
    for (const [name, key, path, status] of cases) {
      // An empty key sends `Authorization: Bearer ` , which is no key.
      const op = ops(h, key, path);
      const answers = [
        await op.get({ headers: stale }),
        await op.content('# x', { headers: stale }),
        await op.metadata({ metadata: {} }, { headers: stale }),
        await op.remove({ headers: stale }),
      ];
      for (const [index, answer] of answers.entries()) {
        expect(answer.status, `${name} #${index}`).toBe(status);
        await answer.arrayBuffer();
      }
    }
    // Projects too.
    const projectPath = `/api/projects/${s.projectId}`;
    for (const [name, key, path, status] of [
      ['no key', undefined, projectPath, 401],
      ['malformed id', s.apiKey, '/api/projects/nope', 422],
      ['missing', s.apiKey, `/api/projects/${MISSING_UUID}`, 404],
      ['foreign', other.apiKey, projectPath, 403],
    ] as const) {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const response = await h.fetch(path, {
          method,
          key,
          headers: { ...stale, 'Content-Type': 'application/json' },
          body: method === 'PUT' ? '{"name":"x"}' : undefined,
        });
        expect(response.status, `${name} ${method}`).toBe(status);
        await response.arrayBuffer();
      }
    }
  });

  limitedTest('429 comes before a failing precondition', async (h) => {
    const s = await projectWithFile(h);
    // Spend what the project and the upload left of the key's budget.
    for (let i = 0; i < 3; i++) await (await h.fetch('/api/projects', { key: s.apiKey })).arrayBuffer();
    const op = ops(h, s.apiKey, s.path);
    for (const response of [
      await op.get({ headers: { 'If-Match': '"stale"' } }),
      await op.content('# x', { headers: { 'If-Match': '"stale"' } }),
      await op.remove({ headers: { 'If-None-Match': '*' } }),
    ]) {
      expect(response.status).toBe(429);
      expect(response.headers.get('etag')).toBeNull();
      await response.arrayBuffer();
    }
  });

  test('415 for the media type and 413 for a declared length come before a failing precondition', async (h) => {
    const s = await projectWithFile(h);
    const op = ops(h, s.apiKey, s.path);
    const stale = { 'If-Match': '"stale"' };
    expect((await op.content('# x', { type: 'text/plain', headers: stale })).status).toBe(415);
    expect((await op.metadata({ metadata: {} }, { type: 'text/plain', headers: stale })).status).toBe(415);
    const declaredTooLarge = await op.content('x'.repeat(MAX + 1), { headers: stale });
    expect(declaredTooLarge.status).toBe(413);
    expect(await declaredTooLarge.json()).toEqual({
      detail: `File too large: the maximum size is ${MAX} bytes`,
    });
    const jsonTooLarge = await op.metadata(null, {
      raw: `{"metadata":{"x":"${'y'.repeat(1024 * 1024)}"}}`,
      headers: stale,
    });
    expect(jsonTooLarge.status).toBe(413);
    const projectTooLarge = await h.fetch(`/api/projects/${s.projectId}`, {
      method: 'PUT',
      key: s.apiKey,
      headers: { ...stale, 'Content-Type': 'text/plain' },
      body: '{}',
    });
    expect(projectTooLarge.status).toBe(415);
  });

  test('a failing precondition comes before anything in the body is judged (400, 413 streamed, 422, 409)', async (h) => {
    const s = await projectWithFile(h, '# keep');
    const op = ops(h, s.apiKey, s.path);
    const stale = { 'If-Match': '"stale"' };
    const refused = [
      await op.content('', { headers: stale }),
      await op.content(new Uint8Array([0xff, 0xfe]), { headers: stale }),
      // No declared length (a stream): its size could only be judged by reading it.
      await h.fetch(`${s.path}/content`, {
        method: 'PUT',
        key: s.apiKey,
        headers: { ...stale, 'Content-Type': 'text/markdown' },
        body: new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('x'.repeat(MAX + 100)));
            controller.close();
          },
        }),
        duplex: 'half',
      } as RequestInit),
      await op.metadata(null, { raw: '{"metadata":', headers: stale }),
      await op.metadata({ metadata: [1] }, { headers: stale }),
      await op.metadata({}, { headers: stale }),
    ];
    for (const [index, response] of refused.entries()) {
      await expectPreconditionFailed(response, s.file.etag).catch((error: Error) => {
        throw new Error(`case ${index}: ${error.message}`);
      });
    }
    await expectUnchanged(h, s, s.file, '# keep');
    // Projects: a taken name (409) or a bad body (400/422) is not judged before the precondition.
    await h.createProject(s.apiKey, 'Taken');
    const { etag } = await projectJson(h, s.apiKey, s.projectId);
    const putProject = (body: string) =>
      h.fetch(`/api/projects/${s.projectId}`, {
        method: 'PUT',
        key: s.apiKey,
        headers: { ...stale, 'Content-Type': 'application/json' },
        body,
      });
    for (const body of ['{"name":"Taken"}', '{"name":', '{"name":""}', '{}', '{"settings":{"nope":1}}']) {
      await expectPreconditionFailed(await putProject(body), etag!);
    }
  });

  test('a passing precondition lets the body be judged as usual', async (h) => {
    const s = await projectWithFile(h, '# keep');
    const op = ops(h, s.apiKey, s.path);
    const current = { 'If-Match': s.file.etag };
    expect((await op.content('', { headers: current })).status).toBe(400);
    expect((await op.metadata({ metadata: [1] }, { headers: current })).status).toBe(422);
    await expectUnchanged(h, s, s.file, '# keep');
  });
});
