import { describe, expect } from 'vitest';
import {
  expectNothingLeftBehind,
  type FileAnswer,
  projectJson,
  spyingAdapters,
} from '../support/conditional.js';
import { type HttpHarness, serverTest } from '../support/http-harness.js';
import { race, soleWinner } from '../support/race.js';

/**
 * Changesets (extensions §9): many operations applied in order as one transaction, each seeing the
 * earlier ones; all or nothing; the first failing operation decides the answer (array-form detail);
 * one revision per touched file carrying the changeset's id and message; counters follow the net
 * result; `dry_run`; the limits (1000 operations, content × 4). Runs on every adapter set of the matrix;
 * the blob sets keep every content in the blob store (compensation checked by `expectNothingLeftBehind`).
 */
const MAX = 4096;
const { factory, spied } = spyingAdapters();
const test = serverTest({ adapters: factory, settings: { maxFileBytes: MAX } });
const requiringTest = serverTest({ adapters: factory, settings: { maxFileBytes: MAX } });

type Issue = { loc: unknown[]; msg: string; type: string };
type Op = Record<string, unknown>;

async function setup(h: HttpHarness, settings?: Record<string, unknown>) {
  const { apiKey } = await h.account();
  const created = await h.json('/api/projects', 'POST', apiKey, { name: 'Changesets', settings });
  const { id: projectId } = (await created.json()) as { id: string };
  const upload = async (filename: string, content: string, metadata?: unknown) =>
    (await h.uploadFile(apiKey, projectId, filename, content, metadata)) as unknown as FileAnswer;
  const apply = async (body: { operations: unknown; message?: string; dry_run?: boolean } | unknown) => {
    const response = await h.json(`/api/projects/${projectId}/changesets`, 'POST', apiKey, body);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const path = (name: string) => `/api/projects/${projectId}/files/${encodeURIComponent(name)}`;
  const download = async (name: string) => {
    const response = await h.fetch(path(name), { key: apiKey });
    return { status: response.status, text: await response.text() };
  };
  const revisions = async (name: string) => {
    const response = await h.fetch(`${path(name)}/revisions`, { key: apiKey });
    return ((await response.json()) as { revisions: Record<string, unknown>[] }).revisions;
  };
  const project = async () => (await projectJson(h, apiKey, projectId)).body;
  const list = async () => {
    const response = await h.fetch(`/api/projects/${projectId}/files?limit=100`, { key: apiKey });
    return ((await response.json()) as { files: { filename: string }[] }).files.map((f) => f.filename).sort();
  };
  return { apiKey, projectId, upload, apply, download, revisions, project, list, path };
}

describe('changesets', () => {
  test('applies put, edit, move and delete in order; each sees the earlier ones; one revision per file', async (h) => {
    const s = await setup(h);
    const a = await s.upload('a.md', '# A\n\nold\n', { k: 1 });
    await s.upload('b.md', 'bee\n');
    const before = await s.project();
    const answer = await s.apply({
      message: 'Restructure',
      operations: [
        { op: 'put', filename: 'docs/new.md', content: '# New\n' },
        {
          op: 'edit',
          filename: 'a.md',
          edits: [{ op: 'replace', old: 'old', new: 'new' }],
          if_match: a.etag,
        },
        { op: 'move', filename: 'a.md', to: 'docs/a.md', if_match: a.etag },
        { op: 'edit', filename: 'docs/new.md', edits: [{ op: 'append', text: 'more\n' }] },
        { op: 'delete', filename: 'b.md', if_match: '*' },
      ],
    });
    expect(answer.status).toBe(200);
    const id = answer.body.changeset_id as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const files = answer.body.files as Record<string, unknown>[];
    expect(files.map((f) => f.filename)).toEqual([
      'docs/new.md',
      'docs/a.md',
      'docs/a.md',
      'docs/new.md',
      'b.md',
    ]);
    expect(files[4]).toEqual({ filename: 'b.md', deleted: true });
    expect(files[1]).toMatchObject({ revision: 2, metadata: { k: 1 } });
    expect(await s.download('docs/new.md')).toEqual({ status: 200, text: '# New\nmore\n' });
    expect(await s.download('docs/a.md')).toEqual({ status: 200, text: '# A\n\nnew\n' });
    expect((await s.download('a.md')).status).toBe(404);
    expect((await s.download('b.md')).status).toBe(404);
    // One revision per touched file, carrying the id and message; the strongest change is recorded.
    const aRevisions = await s.revisions('docs/a.md');
    expect(aRevisions.map((r) => [r.revision, r.change, r.changeset_id, r.message])).toEqual([
      [2, 'edit', id, 'Restructure'],
      [1, 'created', null, null],
    ]);
    const newRevisions = await s.revisions('docs/new.md');
    expect(newRevisions.map((r) => [r.revision, r.change, r.changeset_id])).toEqual([[1, 'created', id]]);
    // Counters follow the net result.
    const after = await s.project();
    expect(after.file_count).toBe(2);
    expect(after.total_size_bytes).toBe(
      Buffer.byteLength('# New\nmore\n') + Buffer.byteLength('# A\n\nnew\n'),
    );
    expect(String(after.updated_date) >= String(before.updated_date)).toBe(true);
    await expectNothingLeftBehind(h, spied, s.projectId);
  });

  test('its events (extensions §7) are contiguous, one per touched file, and carry its id', async (h) => {
    const s = await setup(h);
    const a = await s.upload('a.md', '# A\n');
    await s.upload('b.md', 'bee\n');
    const feed = async (since: number) => {
      const response = await h.fetch(`/api/changes?since=${since}&project_id=${s.projectId}`, {
        key: s.apiKey,
      });
      return (await response.json()) as {
        changes: Array<Record<string, unknown> & { seq: number }>;
        next_since: number;
      };
    };
    const { next_since: since } = await feed(0);
    const answer = await s.apply({
      operations: [
        { op: 'put', filename: 'c.md', content: '# C\n' },
        { op: 'edit', filename: 'a.md', edits: [{ op: 'append', text: 'x\n' }], if_match: a.etag },
        { op: 'move', filename: 'a.md', to: 'd/a.md' },
        { op: 'delete', filename: 'b.md' },
      ],
    });
    expect(answer.status).toBe(200);
    const id = answer.body.changeset_id;
    const { changes } = await feed(since);
    // In the order the commit applies them (deletes first, freeing names), not necessarily the operations'.
    expect(changes.map((e) => [e.type, e.filename, e.from, e.changeset_id]).sort()).toEqual([
      ['file.created', 'c.md', null, id],
      ['file.deleted', 'b.md', null, id],
      ['file.moved', 'd/a.md', 'a.md', id],
    ]);
    const seqs = changes.map((e) => e.seq);
    expect(seqs).toEqual([seqs[0], seqs[0]! + 1, seqs[0]! + 2]);
    // A refused changeset writes no event.
    const refused = await s.apply({ operations: [{ op: 'delete', filename: 'missing.md' }] });
    expect(refused.status).toBe(409);
    expect((await feed(seqs[2]!)).changes).toEqual([]);
  });

  test('a failing operation changes nothing and decides the answer with its loc and status', async (h) => {
    const s = await setup(h);
    const a = await s.upload('a.md', 'alpha\n');
    await s.upload('b.md', 'beta\n');
    const before = { project: await s.project(), list: await s.list() };
    const cases: [Op[], number, unknown[], string][] = [
      [
        [
          { op: 'put', filename: 'x.md', content: 'x' },
          { op: 'delete', filename: 'a.md', if_match: '"nope-1"' },
        ],
        412,
        ['body', 'operations', 1],
        'precondition_failed',
      ],
      [
        [{ op: 'put', filename: 'a.md', content: 'x', if_match: null }],
        412,
        ['body', 'operations', 0],
        'precondition_failed',
      ],
      [
        [{ op: 'put', filename: 'x.md', content: 'x', if_match: '*' }],
        412,
        ['body', 'operations', 0],
        'precondition_failed',
      ],
      [
        [
          { op: 'delete', filename: 'a.md' },
          { op: 'delete', filename: 'a.md' },
        ],
        409,
        ['body', 'operations', 1],
        'file_not_found',
      ],
      [[{ op: 'move', filename: 'a.md', to: 'b.md' }], 409, ['body', 'operations', 0], 'filename_taken'],
      [
        [{ op: 'edit', filename: 'a.md', edits: [{ op: 'replace', old: 'zzz', new: 'y' }] }],
        409,
        ['body', 'operations', 0, 'edits', 0, 'old'],
        'match_count',
      ],
      [
        [{ op: 'put', filename: 'x.txt', content: 'x' }],
        415,
        ['body', 'operations', 0],
        'unsupported_extension',
      ],
      [
        [{ op: 'put', filename: '../x.md', content: 'x' }],
        400,
        ['body', 'operations', 0, 'filename'],
        'value_error',
      ],
      [
        [{ op: 'put', filename: 'x.md', content: '' }],
        400,
        ['body', 'operations', 0, 'content'],
        'value_error',
      ],
      [
        [{ op: 'put', filename: 'x.md', content: 'x'.repeat(MAX + 1) }],
        413,
        ['body', 'operations', 0, 'content'],
        'content_too_large',
      ],
      [
        [
          { op: 'put', filename: 'x.md', content: 'x' },
          { op: 'rename', filename: 'a.md' },
        ],
        422,
        ['body', 'operations', 1, 'op'],
        'literal_error',
      ],
      [[{ op: 'delete' }], 422, ['body', 'operations', 0, 'filename'], 'missing'],
      [[{ op: 'put', filename: 'x.md' }], 422, ['body', 'operations', 0, 'content'], 'missing'],
    ];
    for (const [operations, status, loc, type] of cases) {
      const answer = await s.apply({ operations });
      expect({ status: answer.status, operations }).toEqual({ status, operations });
      const detail = answer.body.detail as Issue[];
      expect(Array.isArray(detail)).toBe(true);
      expect(detail[0]).toMatchObject({ loc, type });
    }
    expect(await s.list()).toEqual(before.list);
    expect((await s.project()).total_size_bytes).toBe(before.project.total_size_bytes);
    expect((await s.revisions('a.md')).length).toBe(1);
    expect(a.revision).toBe(1);
    await expectNothingLeftBehind(h, spied, s.projectId);
  });

  test('if_match forms: an ETag of the file, "*" (must exist), null (must not)', async (h) => {
    const s = await setup(h);
    const a = await s.upload('a.md', 'alpha\n');
    const ok = await s.apply({
      operations: [
        { op: 'put', filename: 'new.md', content: 'n\n', if_match: null },
        { op: 'put', filename: 'a.md', content: 'A\n', if_match: a.etag },
        { op: 'edit', filename: 'new.md', edits: [{ op: 'append', text: 'm\n' }], if_match: '*' },
      ],
    });
    expect(ok.status).toBe(200);
    // The old ETag no longer matches the committed file.
    const stale = await s.apply({ operations: [{ op: 'delete', filename: 'a.md', if_match: a.etag }] });
    expect(stale.status).toBe(412);
    expect(await s.download('a.md')).toEqual({ status: 200, text: 'A\n' });
  });

  requiringTest(
    'require_if_match: a write to an existing file without if_match is 428, but for a dry run',
    async (h) => {
      const s = await setup(h, { require_if_match: true });
      await s.upload('a.md', 'alpha\n');
      const refused = await s.apply({ operations: [{ op: 'put', filename: 'a.md', content: 'x\n' }] });
      expect(refused.status).toBe(428);
      expect((refused.body.detail as Issue[])[0]!.loc).toEqual(['body', 'operations', 0]);
      const created = await s.apply({ operations: [{ op: 'put', filename: 'b.md', content: 'x\n' }] });
      expect(created.status).toBe(200);
      const dry = await s.apply({
        dry_run: true,
        operations: [{ op: 'put', filename: 'a.md', content: 'x\n' }],
      });
      expect(dry.status).toBe(200);
    },
  );

  test('dry_run validates everything and changes nothing', async (h) => {
    const s = await setup(h);
    const a = await s.upload('a.md', 'alpha\n');
    const before = await s.project();
    const dry = await s.apply({
      dry_run: true,
      operations: [
        { op: 'put', filename: 'n.md', content: 'n\n' },
        { op: 'edit', filename: 'a.md', edits: [{ op: 'append', text: 'x\n' }] },
      ],
    });
    expect(dry.status).toBe(200);
    expect(dry.body.changeset_id).toBeNull();
    const files = dry.body.files as Record<string, unknown>[];
    expect(files[1]).toMatchObject({
      filename: 'a.md',
      etag: a.etag,
      size_bytes: Buffer.byteLength('alpha\nx\n'),
    });
    expect(await s.list()).toEqual(['a.md']);
    expect(await s.project()).toEqual(before);
    const failing = await s.apply({ dry_run: true, operations: [{ op: 'delete', filename: 'zzz.md' }] });
    expect(failing.status).toBe(409);
  });

  test('a file touched by several operations gets one revision with the final state; swaps work', async (h) => {
    const s = await setup(h);
    await s.upload('a.md', 'A\n');
    await s.upload('b.md', 'B\n');
    const answer = await s.apply({
      operations: [
        { op: 'move', filename: 'a.md', to: 'tmp.md' },
        { op: 'move', filename: 'b.md', to: 'a.md' },
        { op: 'move', filename: 'tmp.md', to: 'b.md' },
        { op: 'put', filename: 'b.md', content: 'A2\n', metadata: { m: 1 } },
        { op: 'delete', filename: 'a.md' },
        { op: 'put', filename: 'a.md', content: 'fresh\n' },
      ],
    });
    expect(answer.status).toBe(200);
    expect(await s.download('a.md')).toEqual({ status: 200, text: 'fresh\n' });
    expect(await s.download('b.md')).toEqual({ status: 200, text: 'A2\n' });
    const b = await s.revisions('b.md');
    expect(b.map((r) => [r.revision, r.change, r.metadata])).toEqual([
      [2, 'content', { m: 1 }],
      [1, 'created', null],
    ]);
    expect((await s.revisions('a.md')).map((r) => r.change)).toEqual(['created']);
    expect((await s.project()).file_count).toBe(2);
    await expectNothingLeftBehind(h, spied, s.projectId);
  });

  test('limits: 1 to 1000 operations; content in all at most maxFileBytes × 4', async (h) => {
    const s = await setup(h);
    const empty = await s.apply({ operations: [] });
    expect(empty.status).toBe(422);
    expect((empty.body.detail as Issue[])[0]!.loc).toEqual(['body', 'operations']);
    const tooMany = await s.apply({
      operations: Array.from({ length: 1001 }, (_, i) => ({ op: 'put', filename: `f${i}.md`, content: 'x' })),
    });
    expect(tooMany.status).toBe(422);
    const thousand = await s.apply({
      operations: Array.from({ length: 1000 }, (_, i) => ({
        op: 'put',
        filename: `f${i}.md`,
        content: `${i}\n`,
      })),
    });
    expect(thousand.status).toBe(200);
    expect((await s.project()).file_count).toBe(1000);
    const big = 'y'.repeat(MAX);
    const over = await s.apply({
      operations: Array.from({ length: 5 }, (_, i) => ({ op: 'put', filename: `big${i}.md`, content: big })),
    });
    expect(over.status).toBe(413);
    expect((over.body.detail as Issue[])[0]!.loc).toEqual(['body', 'operations', 4, 'content']);
    // The total is judged before any operation (issue 34): an earlier operation that would fail (a
    // missing file, 409) is not reached, and nothing is written.
    const judgedFirst = await s.apply({
      operations: [
        { op: 'delete', filename: 'missing.md' },
        ...Array.from({ length: 5 }, (_, i) => ({ op: 'put', filename: `big${i}.md`, content: big })),
      ],
    });
    expect(judgedFirst.status).toBe(413);
    expect((judgedFirst.body.detail as Issue[])[0]!.loc).toEqual(['body', 'operations', 5, 'content']);
    expect((await s.project()).file_count).toBe(1000);
    const four = await s.apply({
      operations: Array.from({ length: 4 }, (_, i) => ({ op: 'put', filename: `big${i}.md`, content: big })),
    });
    expect(four.status).toBe(200);
    expect((await s.project()).file_count).toBe(1004);
    await expectNothingLeftBehind(h, spied, s.projectId);
  }, 60_000);

  test('two changesets on one file with one ETag: exactly one wins, the other is 412', async (h) => {
    const s = await setup(h);
    const a = await s.upload('a.md', 'base\n');
    for (let run = 0; run < 3; run++) {
      const current = (await s.revisions('a.md'))[0]!;
      const writers = [0, 1].map((i) => ({
        method: 'POST',
        path: `/api/projects/${s.projectId}/changesets`,
        headers: { authorization: `Bearer ${s.apiKey}`, 'content-type': 'application/json' },
        body: Buffer.from(
          JSON.stringify({
            operations: [
              { op: 'put', filename: 'a.md', content: `run ${run} writer ${i}\n`, if_match: current.etag },
              { op: 'put', filename: `side-${run}-${i}.md`, content: 'side\n' },
            ],
          }),
        ),
      }));
      const { answers } = await race(h.url, writers);
      const winner = soleWinner(answers);
      expect(answers[1 - winner]!.status).toBe(412);
      expect(await s.download('a.md')).toEqual({ status: 200, text: `run ${run} writer ${winner}\n` });
      expect((await s.download(`side-${run}-${1 - winner}.md`)).status).toBe(404);
    }
    expect(a.revision).toBe(1);
    await expectNothingLeftBehind(h, spied, s.projectId);
  });
});
