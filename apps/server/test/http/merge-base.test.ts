import { describe, expect } from 'vitest';
import { expectNothingLeftBehind, spyingAdapters } from '../support/conditional.js';
import { type HttpHarness, serverTest } from '../support/http-harness.js';

/**
 * `?merge_base=ETAG` on `PUT …/content` and `PATCH` (extensions §13, issue 38): the change is taken
 * relative to that revision and merged three ways into the current content; overlap is 409 with the
 * conflicts and nothing changes. Run on each adapter set by `MDSTORE_HTTP_TEST_ADAPTERS` (sqlite-fs,
 * postgres-s3, …); the sets ending in -blobs keep every content in the blob store.
 */
const { factory, spied } = spyingAdapters();
const test = serverTest({ adapters: factory });

const BASE = 'alpha\nbravo\ncharlie\ndelta\necho\n';

interface Written {
  etag: string;
  revision: number;
  merged?: boolean;
}

async function setup(h: HttpHarness, settings?: Record<string, unknown>) {
  const { apiKey } = await h.account();
  const created = await h.json('/api/projects', 'POST', apiKey, { name: 'Merging', settings });
  const { id: projectId } = (await created.json()) as { id: string };
  const filename = 'notes/doc.md';
  const first = (await h.uploadFile(apiKey, projectId, filename, BASE, { v: 1 })) as unknown as Written;
  const path = `/api/projects/${projectId}/files/${encodeURIComponent(filename)}`;
  const query = (base?: string) => (base === undefined ? '' : `?merge_base=${encodeURIComponent(base)}`);
  const api = {
    put: (text: string, base?: string, headers: Record<string, string> = {}) =>
      h.fetch(`${path}/content${query(base)}`, {
        method: 'PUT',
        key: apiKey,
        headers: { 'Content-Type': 'text/markdown', ...headers },
        body: text,
      }),
    patch: (body: unknown, base?: string, headers: Record<string, string> = {}) =>
      h.fetch(`${path}${query(base)}`, {
        method: 'PATCH',
        key: apiKey,
        headers: { 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify(body),
      }),
    text: async () => (await h.fetch(path, { key: apiKey })).text(),
    revisions: async () =>
      ((await (await h.fetch(`${path}/revisions`, { key: apiKey })).json()) as { revisions: unknown[] })
        .revisions.length,
  };
  return { api, first, filename, projectId };
}

describe('PUT …/content?merge_base=', () => {
  test('merges a change made from an older revision into the current one and says merged', async (h) => {
    const { api, first } = await setup(h);
    const other = await api.put(BASE.replace('alpha', 'ALPHA'), undefined, { 'If-Match': first.etag });
    expect(other.status).toBe(200);
    const response = await api.put(BASE.replace('echo', 'ECHO'), first.etag);
    expect(response.status).toBe(200);
    const body = (await response.json()) as Written;
    expect(body).toMatchObject({ revision: 3, merged: true });
    expect(response.headers.get('etag')).toBe(body.etag);
    expect(await api.text()).toBe('ALPHA\nbravo\ncharlie\ndelta\nECHO\n');
  });

  test('with the current ETag as base it is a plain write: the body as sent, no merged field', async (h) => {
    const { api, first } = await setup(h);
    const response = await api.put('new\r\ntext', first.etag.replaceAll('"', ''));
    expect(response.status).toBe(200);
    const body = (await response.json()) as Written;
    expect(body.revision).toBe(2);
    expect('merged' in body).toBe(false);
    expect(await api.text()).toBe('new\r\ntext');
  });

  test('overlapping changes: 409 with the conflicts, nothing written', async (h) => {
    const { api, first, filename, projectId } = await setup(h);
    await api.put(BASE.replace('charlie', 'CHARLIE'), undefined, { 'If-Match': first.etag });
    const response = await api.put(BASE.replace('charlie', 'Charles'), first.etag);
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({
      detail: 'Draft conflicts',
      conflicts: [{ filename, hunks: [{ line: 3, base: 'charlie', current: 'CHARLIE', draft: 'Charles' }] }],
    });
    expect(await api.text()).toBe(BASE.replace('charlie', 'CHARLIE'));
    expect(await api.revisions()).toBe(2);
    await expectNothingLeftBehind(h, spied, projectId);
  });

  test('unknown base 412 with the current ETag; not an ETag, or with If-Match too: 422', async (h) => {
    const { api, first } = await setup(h);
    const second = (await (await api.put('two\n', undefined, { 'If-Match': first.etag })).json()) as Written;
    const other = first.etag.replace(/"(.)/, (_, c: string) => `"${c === 'a' ? 'b' : 'a'}`);
    for (const base of [other, first.etag.replace('-1"', '-9"')]) {
      const response = await api.put('x\n', base);
      expect(response.status).toBe(412);
      expect(response.headers.get('etag')).toBe(second.etag);
    }
    const malformed = await api.put('x\n', 'not an etag');
    expect(malformed.status).toBe(422);
    expect(((await malformed.json()) as { detail: { loc: unknown }[] }).detail[0]!.loc).toEqual([
      'query',
      'merge_base',
    ]);
    const both = await api.put('x\n', first.etag, { 'If-Match': second.etag });
    expect(both.status).toBe(422);
    expect(await api.text()).toBe('two\n');
  });

  test('a base pruned from the history is 412', async (h) => {
    const { api, first } = await setup(h, { keep_revisions: 1 });
    const second = (await (await api.put('two\n', undefined, { 'If-Match': first.etag })).json()) as Written;
    const response = await api.put('x\n', first.etag);
    expect(response.status).toBe(412);
    expect(response.headers.get('etag')).toBe(second.etag);
  });

  test('stands for If-Match where the project requires it (no 428)', async (h) => {
    const { api, first } = await setup(h, { require_if_match: true });
    expect((await api.put('x\n')).status).toBe(428);
    const response = await api.put(BASE.replace('bravo', 'BRAVO'), first.etag);
    expect(response.status).toBe(200);
  });

  test('concurrent merges from one base that do not overlap all land', async (h) => {
    const { api, first } = await setup(h);
    const words = ['alpha', 'charlie', 'echo'];
    const answers = await Promise.all(
      words.map((w) => api.put(BASE.replace(w, w.toUpperCase()), first.etag)),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(await api.text()).toBe('ALPHA\nbravo\nCHARLIE\ndelta\nECHO\n');
    expect(await api.revisions()).toBe(4);
  });
});

describe('PATCH with merge_base', () => {
  test('applies the edits to the base revision and merges them into the current content', async (h) => {
    const { api, first } = await setup(h);
    await api.put(BASE.replace('alpha', 'ALPHA'), undefined, { 'If-Match': first.etag });
    const edit = { edits: [{ op: 'replace', old: 'echo', new: 'ECHO' }] };
    const response = await api.patch(edit, first.etag);
    expect(response.status).toBe(200);
    const body = (await response.json()) as Written & { diff: string };
    expect(body).toMatchObject({ revision: 3, merged: true });
    expect(body.diff).toContain('+ECHO');
    expect(body.diff).not.toContain('+ALPHA');
    expect(await api.text()).toBe('ALPHA\nbravo\ncharlie\ndelta\nECHO\n');
  });

  test('edits of the base overlapping the current content: 409 with the conflicts, nothing written', async (h) => {
    const { api, first, filename } = await setup(h);
    await api.put(BASE.replace('delta', 'DELTA'), undefined, { 'If-Match': first.etag });
    const response = await api.patch({ edits: [{ op: 'replace', old: 'delta', new: 'Δ' }] }, first.etag);
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({
      detail: 'Draft conflicts',
      conflicts: [{ filename, hunks: [{ line: 4, base: 'delta', current: 'DELTA', draft: 'Δ' }] }],
    });
    expect(await api.revisions()).toBe(2);
    // an edit that does not apply to the base is the usual 409 of an edit
    const missing = await api.patch({ edits: [{ op: 'replace', old: 'DELTA', new: 'x' }] }, first.etag);
    expect(missing.status).toBe(409);
    expect(Array.isArray(((await missing.json()) as { detail: unknown }).detail)).toBe(true);
  });
});
