import {
  DRAFT_LIMITS,
  fileEtag,
  type MdStore,
  MergeConflictError,
  mergeDocument,
  type Principal,
  type RecordsRepository,
} from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anAccount, codeOf, createFixture } from './support/fixture.js';

/** Drafts (extensions §13) in the core: staging, bases, publish as one changeset, merges and conflicts. */

const decoder = new TextDecoder();
/** Whether the merge engine in this build merges non-overlapping edits (the placeholder does not). */
const realMerge = mergeDocument('a\nb\nc\nd\n', 'A\nb\nc\nd\n', 'a\nb\nc\nD\n').kind === 'clean';

async function textOf(
  records: RecordsRepository,
  projectId: string,
  filename: string,
): Promise<string | null> {
  const file = await records.findFile({ projectId, filename });
  if (!file) return null;
  const bytes = await records.readInlineContent({ projectId, contentKey: file.contentKey });
  return bytes && decoder.decode(bytes);
}

async function scene() {
  const f = createFixture();
  const { principal } = await anAccount(f.store, 'acme');
  const { id: projectId } = await f.store.projects.create({ principal, body: { name: 'docs' } });
  const proposer: Principal = { ...principal, role: 'propose', keyId: 'proposer-key' };
  const put = (filename: string, content: string, metadata?: object) =>
    f.store.changesets.apply({
      principal,
      projectId,
      operations: [{ op: 'put', filename, content, metadata }],
    });
  const etag = async (filename: string) => {
    const file = await f.records.findFile({ projectId, filename });
    return file && fileEtag(file);
  };
  const events = async () =>
    (await f.records.listChangeEvents({ accountId: principal.accountId, afterSeq: 0, limit: 1000 })).map(
      (e) => e.type,
    );
  return { f, store: f.store as MdStore, principal, proposer, projectId, put, etag, events };
}

describe('drafts', () => {
  it('records each file’s base ETag when first touched (null for a new file); edits apply to the draft’s text', async () => {
    const s = await scene();
    await s.put('a.md', '# A\n\none\n');
    const draft = await s.store.drafts.create({
      principal: s.proposer,
      projectId: s.projectId,
      body: {
        title: 'Tidy',
        operations: [
          { op: 'edit', filename: 'a.md', edits: [{ op: 'replace', old: 'one', new: 'two' }] },
          { op: 'put', filename: 'new.md', content: 'new\n' },
        ],
      },
    });
    const base = await s.etag('a.md');
    expect(draft).toMatchObject({ state: 'open', authorKeyId: 'proposer-key', title: 'Tidy' });
    expect(draft.files).toEqual([
      { filename: 'a.md', op: 'edit', baseEtag: base, to: null },
      { filename: 'new.md', op: 'put', baseEtag: null, to: null },
    ]);
    // The live file changes; a second edit applies to the draft's text and keeps the first base.
    await s.put('a.md', '# A\n\nlive\n');
    const more = await s.store.drafts.addOperations({
      principal: s.proposer,
      projectId: s.projectId,
      draftId: draft.id,
      body: {
        operations: [{ op: 'edit', filename: 'a.md', edits: [{ op: 'replace', old: 'two', new: 'three' }] }],
      },
    });
    expect(more.files[0]).toEqual({ filename: 'a.md', op: 'edit', baseEtag: base, to: null });
    const text = await s.store.drafts.readFile({
      principal: s.principal,
      projectId: s.projectId,
      draftId: draft.id,
      filename: 'a.md',
    });
    expect(text.text).toBe('# A\n\nthree\n');
    // Nothing of it is live.
    expect(await textOf(s.f.records, s.projectId, 'new.md')).toBeNull();
    const diff = await s.store.drafts.diff({
      principal: s.principal,
      projectId: s.projectId,
      draftId: draft.id,
    });
    expect(diff.files.map((file) => [file.filename, file.stale])).toEqual([
      ['a.md', true],
      ['new.md', false],
    ]);
    expect(diff.files[0]!.diff).toContain('-one\n+three');
  });

  it('publishes as one changeset: revisions carry its id and the title; the draft is published with its event', async () => {
    const s = await scene();
    await s.put('a.md', 'a\n');
    await s.put('gone.md', 'g\n');
    const draft = await s.store.drafts.create({
      principal: s.proposer,
      projectId: s.projectId,
      body: {
        title: 'Release notes',
        operations: [
          { op: 'put', filename: 'a.md', content: 'A\n', metadata: { k: 1 } },
          { op: 'delete', filename: 'gone.md' },
          { op: 'put', filename: 'b.md', content: 'b\n' },
        ],
      },
    });
    const published = await s.store.drafts.publish({
      principal: s.principal,
      projectId: s.projectId,
      draftId: draft.id,
    });
    expect(published.merged).toEqual([]);
    expect(published.draft).toMatchObject({ state: 'published', changesetId: published.changesetId });
    expect(await textOf(s.f.records, s.projectId, 'a.md')).toBe('A\n');
    expect(await textOf(s.f.records, s.projectId, 'b.md')).toBe('b\n');
    expect(await textOf(s.f.records, s.projectId, 'gone.md')).toBeNull();
    const a = (await s.f.records.findFile({ projectId: s.projectId, filename: 'a.md' }))!;
    expect(a.metadataJson).toBe('{"k":1}');
    const [revision] = await s.f.records.listRevisions({ fileId: a.id, limit: 1 });
    expect(revision).toMatchObject({ changesetId: published.changesetId, message: 'Release notes' });
    expect((await s.events()).slice(-5)).toEqual([
      'draft.opened',
      'file.deleted',
      'file.updated',
      'file.created',
      'draft.published',
    ]);
    // Published: no more operations, reviews, closing or publishing.
    const again = { principal: s.principal, projectId: s.projectId, draftId: draft.id };
    expect(await codeOf(() => s.store.drafts.publish(again))).toBe('DRAFT_NOT_OPEN');
    expect(await codeOf(() => s.store.drafts.close(again))).toBe('DRAFT_NOT_OPEN');
    expect(
      await codeOf(() =>
        s.store.drafts.addOperations({
          ...again,
          body: { operations: [{ op: 'delete', filename: 'a.md' }] },
        }),
      ),
    ).toBe('DRAFT_NOT_OPEN');
  });

  it('refuses overlapping changes with every file’s hunks, and changes nothing', async () => {
    const s = await scene();
    await s.put('a.md', 'one\ntwo\nthree\n');
    await s.put('d.md', 'd\n');
    const draft = await s.store.drafts.create({
      principal: s.proposer,
      projectId: s.projectId,
      body: {
        title: 't',
        operations: [
          { op: 'edit', filename: 'a.md', edits: [{ op: 'replace', old: 'two', new: 'draft' }] },
          { op: 'delete', filename: 'd.md' },
          { op: 'put', filename: 'ok.md', content: 'fine\n' },
        ],
      },
    });
    await s.put('a.md', 'one\nlive\nthree\n');
    await s.put('d.md', 'd changed\n');
    const before = await s.events();
    const refused = await s.store.drafts
      .publish({ principal: s.principal, projectId: s.projectId, draftId: draft.id })
      .catch((error) => error);
    expect(refused).toBeInstanceOf(MergeConflictError);
    const conflicts = (refused as MergeConflictError).conflicts;
    expect(conflicts.map((c) => c.filename)).toEqual(['a.md', 'd.md']);
    expect(conflicts[0]!.hunks.some((h) => h.current.includes('live') && h.draft.includes('draft'))).toBe(
      true,
    );
    expect(conflicts[1]!.hunks).toEqual([{ line: 1, base: 'd\n', current: 'd changed\n', draft: '' }]);
    expect(await textOf(s.f.records, s.projectId, 'a.md')).toBe('one\nlive\nthree\n');
    expect(await textOf(s.f.records, s.projectId, 'ok.md')).toBeNull();
    expect(await s.events()).toEqual(before);
    expect(
      (await s.store.drafts.get({ principal: s.principal, projectId: s.projectId, draftId: draft.id })).state,
    ).toBe('open');
  });

  it('takes the live side when only the live file changed a part the draft left alone (metadata-only draft)', async () => {
    const s = await scene();
    await s.put('a.md', 'text\n', { owner: 'ann' });
    const draft = await s.store.drafts.create({
      principal: s.proposer,
      projectId: s.projectId,
      body: {
        title: 't',
        operations: [{ op: 'put', filename: 'a.md', content: 'text\n', metadata: { owner: 'bob' } }],
      },
    });
    await s.put('a.md', 'text changed live\n');
    const published = await s.store.drafts.publish({
      principal: s.principal,
      projectId: s.projectId,
      draftId: draft.id,
    });
    expect(await textOf(s.f.records, s.projectId, 'a.md')).toBe('text changed live\n');
    expect((await s.f.records.findFile({ projectId: s.projectId, filename: 'a.md' }))!.metadataJson).toBe(
      '{"owner":"bob"}',
    );
    expect(published.draft.state).toBe('published');
  });

  it.runIf(realMerge)('merges non-overlapping edits of a stale file and lists it in merged', async () => {
    const s = await scene();
    await s.put('a.md', '# T\n\none\n\ntwo\n\nthree\n\nfour\n');
    const draft = await s.store.drafts.create({
      principal: s.proposer,
      projectId: s.projectId,
      body: {
        title: 't',
        operations: [{ op: 'edit', filename: 'a.md', edits: [{ op: 'replace', old: 'four', new: 'FOUR' }] }],
      },
    });
    await s.put('a.md', '# T\n\nONE\n\ntwo\n\nthree\n\nfour\n');
    const published = await s.store.drafts.publish({
      principal: s.principal,
      projectId: s.projectId,
      draftId: draft.id,
    });
    expect(published.merged).toEqual(['a.md']);
    expect(await textOf(s.f.records, s.projectId, 'a.md')).toBe('# T\n\nONE\n\ntwo\n\nthree\n\nFOUR\n');
  });

  it('lets a propose key close its own draft only; a write key closes any', async () => {
    const s = await scene();
    const mine = await s.store.drafts.create({
      principal: s.proposer,
      projectId: s.projectId,
      body: { title: 'mine' },
    });
    const other: Principal = { ...s.proposer, keyId: 'other-proposer' };
    const args = { projectId: s.projectId, draftId: mine.id };
    expect(await codeOf(() => s.store.drafts.close({ ...args, principal: other }))).toBe(
      'OPERATION_NOT_ALLOWED',
    );
    expect((await s.store.drafts.close({ ...args, principal: s.proposer })).state).toBe('closed');
    const second = await s.store.drafts.create({
      principal: s.proposer,
      projectId: s.projectId,
      body: { title: 'x' },
    });
    expect(
      (await s.store.drafts.close({ projectId: s.projectId, draftId: second.id, principal: s.principal }))
        .state,
    ).toBe('closed');
    expect((await s.events()).filter((t) => t.startsWith('draft.'))).toEqual([
      'draft.opened',
      'draft.closed',
      'draft.opened',
      'draft.closed',
    ]);
  });

  it('bounds open drafts per project (409 COUNT_LIMIT_REACHED) and pages the list newest first', async () => {
    const s = await scene();
    for (let i = 0; i < DRAFT_LIMITS.maxOpenPerProject; i++) {
      s.f.clock.advance(1);
      await s.store.drafts.create({
        principal: s.proposer,
        projectId: s.projectId,
        body: { title: `d${i}` },
      });
    }
    expect(
      await codeOf(() =>
        s.store.drafts.create({ principal: s.proposer, projectId: s.projectId, body: { title: 'one more' } }),
      ),
    ).toBe('COUNT_LIMIT_REACHED');
    const first = await s.store.drafts.list({ principal: s.principal, projectId: s.projectId, limit: '30' });
    expect(first.drafts.map((d) => d.title).slice(0, 2)).toEqual([
      `d${DRAFT_LIMITS.maxOpenPerProject - 1}`,
      `d${DRAFT_LIMITS.maxOpenPerProject - 2}`,
    ]);
    const seen = [...first.drafts];
    let cursor = first.nextCursor;
    while (cursor) {
      const page = await s.store.drafts.list({
        principal: s.principal,
        projectId: s.projectId,
        limit: '30',
        cursor,
      });
      seen.push(...page.drafts);
      cursor = page.nextCursor;
    }
    expect(new Set(seen.map((d) => d.id)).size).toBe(DRAFT_LIMITS.maxOpenPerProject);
    const closed = await s.store.drafts.list({
      principal: s.principal,
      projectId: s.projectId,
      state: 'closed',
    });
    expect(closed.drafts).toEqual([]);
  });

  it('refuses a second operation on a file the draft deletes, and moves onto taken names', async () => {
    const s = await scene();
    await s.put('a.md', 'a\n');
    await s.put('b.md', 'b\n');
    const draft = await s.store.drafts.create({
      principal: s.proposer,
      projectId: s.projectId,
      body: { title: 't', operations: [{ op: 'delete', filename: 'a.md' }] },
    });
    const add = (operations: unknown[]) =>
      codeOf(() =>
        s.store.drafts.addOperations({
          principal: s.proposer,
          projectId: s.projectId,
          draftId: draft.id,
          body: { operations },
        }),
      );
    expect(await add([{ op: 'put', filename: 'a.md', content: 'again\n' }])).toBe('EDIT_CONFLICT');
    expect(await add([{ op: 'move', filename: 'b.md', to: 'a.md' }])).toBe('FILENAME_TAKEN');
    expect(
      await add([{ op: 'edit', filename: 'missing.md', edits: [{ op: 'replace', old: 'x', new: 'y' }] }]),
    ).toBe('FILE_MISSING');
    expect(await add([{ op: 'put', filename: 'c.md', content: 'c\n', if_match: '*' }])).toBe(
      'PRECONDITION_FAILED',
    );
  });

  it('property: a draft published with no concurrent write leaves every file as the draft’s text, in one changeset', async () => {
    const names = ['a.md', 'b.md', 'c.md'];
    const op = fc.oneof(
      fc.record({
        op: fc.constant('put'),
        filename: fc.constantFrom(...names),
        content: fc.stringMatching(/^[a-z]{1,8}\n$/),
      }),
      fc.record({ op: fc.constant('delete'), filename: fc.constantFrom(...names) }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.subarray(names),
        fc.array(op, { minLength: 1, maxLength: 6 }),
        async (existing, operations) => {
          const s = await scene();
          for (const name of existing) await s.put(name, `${name} live\n`);
          // What the draft should leave, and which operations it takes (one refused leaves the draft as it was).
          const expected = new Map(
            existing.map((name) => [name, `${name} live\n`] as [string, string | null]),
          );
          const draft = await s.store.drafts.create({
            principal: s.proposer,
            projectId: s.projectId,
            body: { title: 't' },
          });
          const deleted = new Set<string>();
          const touched = new Set<string>();
          for (const operation of operations) {
            const code = await codeOf(() =>
              s.store.drafts.addOperations({
                principal: s.proposer,
                projectId: s.projectId,
                draftId: draft.id,
                body: { operations: [operation] },
              }),
            );
            // A delete takes a live file the draft does not change yet; nothing follows a delete.
            const ok = deleted.has(operation.filename)
              ? false
              : operation.op === 'put' ||
                (existing.includes(operation.filename) && !touched.has(operation.filename));
            expect(code).toBe(ok ? 'OK' : code === 'OK' ? 'a refusal' : code);
            if (!ok) continue;
            touched.add(operation.filename);
            if (operation.op === 'delete') deleted.add(operation.filename);
            expected.set(
              operation.filename,
              operation.op === 'put' ? (operation as { content: string }).content : null,
            );
          }
          const rows = await s.f.records.listDraftFiles({ draftId: draft.id, limit: 10 });
          if (rows.length === 0) return;
          const published = await s.store.drafts.publish({
            principal: s.principal,
            projectId: s.projectId,
            draftId: draft.id,
          });
          for (const name of names)
            expect(await textOf(s.f.records, s.projectId, name)).toBe(expected.get(name) ?? null);
          const changesets = new Set(
            (
              await s.f.records.listChangeEvents({
                accountId: s.principal.accountId,
                afterSeq: 0,
                limit: 1000,
              })
            )
              .filter((e) => e.type.startsWith('file.') && e.changesetId !== null)
              .map((e) => e.changesetId),
          );
          expect([...changesets].filter((id) => id === published.changesetId)).toHaveLength(1);
        },
      ),
      { numRuns: 40 },
    );
  });
});
