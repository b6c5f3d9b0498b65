import { mergeDocument } from '@mdstore/core';
import { describe, expect } from 'vitest';
import { type HttpHarness, serverTest } from '../support/http-harness.js';

/**
 * Drafts (extensions §13) over HTTP, on whichever adapter set runs the suite (memory by default; the
 * matrix runs it on SQLite+fs and Postgres+S3): a `propose` key opens drafts and adds operations and may
 * do no other write; a `write` key reviews and publishes as one changeset; stale files merge or refuse
 * with the conflicts, and nothing changes then; events and audit entries.
 */

const test = serverTest();
const NOT_ALLOWED = { detail: 'API key does not allow this operation' };
/** Whether this build's merge engine merges non-overlapping edits (the placeholder does not). */
const realMerge = mergeDocument('a\nb\nc\nd\n', 'A\nb\nc\nd\n', 'a\nb\nc\nD\n').kind === 'clean';

type Json = Record<string, unknown>;

async function scene(h: HttpHarness) {
  const account = await h.account();
  const key = async (role: 'read' | 'propose' | 'write') =>
    (await h.store.apiKeys.create({ account: account.accountId, role })).apiKey;
  const proposer = await key('propose');
  const writer = await key('write');
  const projectId = account.defaultProjectId;
  const drafts = `/api/projects/${projectId}/drafts`;
  const call = async (method: string, path: string, apiKey: string, body?: unknown) => {
    const response =
      body === undefined
        ? await h.fetch(path, { method, key: apiKey })
        : await h.json(path, method, apiKey, body);
    const text = await response.text();
    return {
      status: response.status,
      body: (text.startsWith('{') ? JSON.parse(text) : text) as Json & string,
    };
  };
  const upload = (filename: string, content: string, metadata?: unknown) =>
    h.uploadFile(account.apiKey, projectId, filename, content, metadata);
  const put = (filename: string, content: string) =>
    call('POST', `/api/projects/${projectId}/changesets`, account.apiKey, {
      operations: [{ op: 'put', filename, content }],
    });
  const text = async (filename: string) => {
    const response = await h.fetch(`/api/projects/${projectId}/files/${encodeURIComponent(filename)}`, {
      key: account.apiKey,
    });
    return response.status === 200 ? await response.text() : null;
  };
  const events = async () => {
    const answer = await call('GET', `/api/changes?project_id=${projectId}&limit=1000`, account.apiKey);
    return (answer.body.changes as { type: string; changeset_id: string | null }[]).map((e) => e);
  };
  return { ...account, proposer, writer, projectId, drafts, call, upload, put, text, events, key };
}

describe('drafts (extensions §13)', () => {
  test('a propose key opens a draft and adds operations; a write key publishes it as one changeset', async (h) => {
    const s = await scene(h);
    const a = (await s.upload('a.md', '# A\n\none\n')) as unknown as { etag: string };
    const opened = await s.call('POST', s.drafts, s.proposer, {
      title: 'Rename and tidy',
      description: 'by an agent',
      operations: [
        { op: 'edit', filename: 'a.md', edits: [{ op: 'replace', old: 'one', new: 'two' }] },
        { op: 'put', filename: 'notes/new.md', content: '# New\n', metadata: { tag: 'x' } },
      ],
    });
    expect(opened.status).toBe(201);
    expect(opened.body).toMatchObject({
      title: 'Rename and tidy',
      description: 'by an agent',
      state: 'open',
      changeset_id: null,
      files: [
        { filename: 'a.md', op: 'edit', base_etag: a.etag, to: null },
        { filename: 'notes/new.md', op: 'put', base_etag: null, to: null },
      ],
      reviews: [],
    });
    const id = opened.body.id as string;
    const added = await s.call('POST', `${s.drafts}/${id}/operations`, s.proposer, {
      operations: [{ op: 'edit', filename: 'a.md', edits: [{ op: 'append', text: 'more\n' }] }],
    });
    expect(added.status).toBe(200);
    // Nothing is live yet; the draft's text is.
    expect(await s.text('notes/new.md')).toBeNull();
    const draftText = await s.call('GET', `${s.drafts}/${id}/files/a.md`, s.proposer);
    expect(draftText).toEqual({ status: 200, body: '# A\n\ntwo\nmore\n' });
    const diff = await s.call('GET', `${s.drafts}/${id}/diff`, s.proposer);
    expect(diff.status).toBe(200);
    const files = diff.body.files as Json[];
    expect(files.map((f) => [f.filename, f.stale])).toEqual([
      ['a.md', false],
      ['notes/new.md', false],
    ]);
    expect(files[0]!.diff).toContain('-one\n+two\n+more');
    // Everything else a propose key might write is refused before the body is read.
    for (const [method, path, body] of [
      ['POST', `${s.drafts}/${id}/publish`, undefined],
      ['POST', `${s.drafts}/${id}/reviews`, { verdict: 'approve' }],
      ['POST', `/api/projects/${s.projectId}/changesets`, { operations: [] }],
      ['PUT', `/api/projects/${s.projectId}/files/a.md/content`, undefined],
    ] as const) {
      const refused = await s.call(method, path, s.proposer, body);
      expect(refused, `${method} ${path}`).toEqual({ status: 403, body: NOT_ALLOWED });
    }
    const reviewed = await s.call('POST', `${s.drafts}/${id}/reviews`, s.writer, {
      verdict: 'approve',
      comment: 'ship it',
    });
    expect(reviewed.status).toBe(200);
    expect((reviewed.body.reviews as Json[])[0]).toMatchObject({ verdict: 'approve', comment: 'ship it' });
    const published = await s.call('POST', `${s.drafts}/${id}/publish`, s.writer);
    expect(published.status).toBe(200);
    const changesetId = published.body.changeset_id as string;
    expect(published.body).toMatchObject({
      merged: [],
      draft: { state: 'published', changeset_id: changesetId },
    });
    expect(await s.text('a.md')).toBe('# A\n\ntwo\nmore\n');
    expect(await s.text('notes/new.md')).toBe('# New\n');
    const revisions = await s.call('GET', `/api/projects/${s.projectId}/files/a.md/revisions`, s.apiKey);
    expect((revisions.body.revisions as Json[])[0]).toMatchObject({
      changeset_id: changesetId,
      message: 'Rename and tidy',
    });
    const types = (await s.events()).map((e) => e.type);
    expect(types.filter((t) => t.startsWith('draft.'))).toEqual([
      'draft.opened',
      'draft.updated',
      'draft.updated',
      'draft.published',
    ]);
    const last = (await s.events()).at(-1)!;
    expect(last).toMatchObject({ type: 'draft.published', changeset_id: changesetId });
    // Audited like every write.
    await h.audit.flush();
    const audit = await s.call('GET', '/api/audit?limit=100', s.apiKey);
    const actions = (audit.body.entries as { action: string; status: number }[]).map(
      (e) => `${e.status} ${e.action}`,
    );
    expect(actions).toContain('200 POST /api/projects/:project_id/drafts/:draft_id/publish');
    expect(actions).toContain('201 POST /api/projects/:project_id/drafts');
    expect(actions).toContain('403 POST /api/projects/:project_id/drafts/:draft_id/publish');
  });

  test('overlapping changes: 409 Draft conflicts with the hunks, and nothing changes', async (h) => {
    const s = await scene(h);
    await s.upload('a.md', 'one\ntwo\nthree\n');
    const opened = await s.call('POST', s.drafts, s.proposer, {
      title: 't',
      operations: [
        { op: 'edit', filename: 'a.md', edits: [{ op: 'replace', old: 'two', new: 'draft' }] },
        { op: 'put', filename: 'b.md', content: 'b\n' },
      ],
    });
    const id = opened.body.id as string;
    expect((await s.put('a.md', 'one\nlive\nthree\n')).status).toBe(200);
    const stale = await s.call('GET', `${s.drafts}/${id}/diff`, s.writer);
    expect((stale.body.files as Json[]).map((f) => f.stale)).toEqual([true, false]);
    const before = (await s.events()).length;
    const refused = await s.call('POST', `${s.drafts}/${id}/publish`, s.writer);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toBe('Draft conflicts');
    const conflicts = refused.body.conflicts as { filename: string; hunks: Json[] }[];
    expect(conflicts.map((c) => c.filename)).toEqual(['a.md']);
    for (const hunk of conflicts[0]!.hunks)
      expect(Object.keys(hunk).sort()).toEqual(['base', 'current', 'draft', 'line']);
    expect(
      conflicts[0]!.hunks.some(
        (hunk) => String(hunk.current).includes('live') && String(hunk.draft).includes('draft'),
      ),
    ).toBe(true);
    expect(await s.text('a.md')).toBe('one\nlive\nthree\n');
    expect(await s.text('b.md')).toBeNull();
    expect((await s.events()).length).toBe(before);
    expect((await s.call('GET', `${s.drafts}/${id}`, s.writer)).body.state).toBe('open');
  });

  // Declared only with the real merge engine (the placeholder of packages/core/src/merge refuses it).
  if (realMerge)
    test('non-overlapping changes of a stale file merge and are listed in merged', async (h) => {
      const s = await scene(h);
      await s.upload('a.md', '# T\n\none\n\ntwo\n\nthree\n\nfour\n');
      const opened = await s.call('POST', s.drafts, s.proposer, {
        title: 't',
        operations: [{ op: 'edit', filename: 'a.md', edits: [{ op: 'replace', old: 'four', new: 'FOUR' }] }],
      });
      await s.put('a.md', '# T\n\nONE\n\ntwo\n\nthree\n\nfour\n');
      const published = await s.call('POST', `${s.drafts}/${opened.body.id}/publish`, s.writer);
      expect(published.status).toBe(200);
      expect(published.body.merged).toEqual(['a.md']);
      expect(await s.text('a.md')).toBe('# T\n\nONE\n\ntwo\n\nthree\n\nFOUR\n');
    });

  test('close: the author (propose) or a write key; another propose key is 403; a closed draft takes nothing', async (h) => {
    const s = await scene(h);
    const other = await s.key('propose');
    const opened = await s.call('POST', s.drafts, s.proposer, { title: 'mine' });
    const id = opened.body.id as string;
    expect(await s.call('POST', `${s.drafts}/${id}/close`, other)).toEqual({
      status: 403,
      body: NOT_ALLOWED,
    });
    const closed = await s.call('POST', `${s.drafts}/${id}/close`, s.proposer);
    expect(closed.status).toBe(200);
    expect(closed.body.state).toBe('closed');
    expect((await s.call('POST', `${s.drafts}/${id}/publish`, s.writer)).status).toBe(409);
    expect(
      (
        await s.call('POST', `${s.drafts}/${id}/operations`, s.proposer, {
          operations: [{ op: 'put', filename: 'x.md', content: 'x' }],
        })
      ).status,
    ).toBe(409);
    const second = await s.call('POST', s.drafts, s.proposer, { title: 'theirs' });
    expect((await s.call('POST', `${s.drafts}/${second.body.id}/close`, s.writer)).body.state).toBe('closed');
    const listed = await s.call('GET', `${s.drafts}?state=closed&limit=1`, s.proposer);
    expect((listed.body.drafts as Json[]).map((d) => d.title)).toEqual(['theirs']);
    const next = await s.call(
      'GET',
      `${s.drafts}?state=closed&limit=1&cursor=${listed.body.next_cursor}`,
      s.proposer,
    );
    expect((next.body.drafts as Json[]).map((d) => d.title)).toEqual(['mine']);
    expect(next.body.next_cursor).toBeNull();
    expect((await s.call('GET', `${s.drafts}?state=open`, s.proposer)).body.drafts).toEqual([]);
    expect((await s.call('GET', `${s.drafts}?limit=0`, s.proposer)).status).toBe(422);
  });

  test('another account’s project is 403; an unknown draft 404; a malformed id 422', async (h) => {
    const s = await scene(h);
    const stranger = await h.account();
    const opened = await s.call('POST', s.drafts, s.proposer, { title: 'mine' });
    for (const [method, path] of [
      ['GET', s.drafts],
      ['GET', `${s.drafts}/${opened.body.id}`],
      ['POST', `${s.drafts}/${opened.body.id}/publish`],
    ] as const) {
      expect((await s.call(method, path, stranger.apiKey)).status, path).toBe(403);
    }
    const unknown = await s.call('GET', `${s.drafts}/0f0e0d0c-0b0a-4009-8807-060504030201`, s.writer);
    expect(unknown).toEqual({ status: 404, body: { detail: 'Draft not found' } });
    expect((await s.call('GET', `${s.drafts}/not-a-uuid`, s.writer)).status).toBe(422);
    // A draft of another project of the same account is not found under this one.
    const { id: otherProject } = await h.createProject(s.apiKey, 'Other');
    const elsewhere = await s.call('GET', `/api/projects/${otherProject}/drafts/${opened.body.id}`, s.writer);
    expect(elsewhere.status).toBe(404);
  });
});
