import { deferredBody } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { anAccount, codeOf, createFixture, readText, textStream } from './support/fixture.js';
import { failure } from './support/store-scene.js';

/**
 * Editing (extensions §4) through the store's use case where the project requires `If-Match`: when the
 * body is read, which answer wins (428 or 412), a dry run without `If-Match`, and the size rules of the
 * result. (The mutation run found these reached only by the HTTP suites; see docs/testing.md.)
 */

const TEXT = '# Title\n\nbody\n';

async function scene(settings: { maxFileBytes?: number } = {}) {
  const fixture = createFixture({ settings });
  const alice = await anAccount(fixture.store, 'alice');
  const project = await fixture.store.projects.create({
    principal: alice.principal,
    body: { name: 'strict', settings: { require_if_match: true } },
  });
  const file = { principal: alice.principal, projectId: project.id, filename: 'a.md' };
  const uploaded = await fixture.store.files.upload({ ...file, content: textStream(TEXT) });
  const current = async () => readText((await fixture.store.files.download(file)).content);
  return { ...fixture, file, uploaded, current };
}

/** A deferred body that says whether it was read, and can fail when read. */
function body(value: unknown, o: { fail?: boolean } = {}) {
  const seen = { read: false };
  return {
    seen,
    body: deferredBody({
      check: () => undefined,
      read: async () => {
        seen.read = true;
        if (o.fail) throw Object.assign(new Error('the connection closed'), { code: 'ECONNRESET' });
        return value;
      },
    }),
  };
}

const APPEND = { edits: [{ op: 'append', text: 'more\n' }] };

describe('editing in a project that requires If-Match', () => {
  it('without If-Match: reads the body, then 428 unless it is a dry run; nothing changes', async () => {
    const { store, file, current } = await scene();
    const sent = body(APPEND);
    expect(await codeOf(() => store.files.edit({ ...file, body: sent.body }))).toBe('PRECONDITION_REQUIRED');
    expect(sent.seen.read).toBe(true);
    expect(await current()).toBe(TEXT);
  });

  it('without If-Match, a body that cannot be read is still 428', async () => {
    const { store, file } = await scene();
    const sent = body(APPEND, { fail: true });
    expect(await codeOf(() => store.files.edit({ ...file, body: sent.body }))).toBe('PRECONDITION_REQUIRED');
  });

  it('without If-Match, a body that is not an object is 428', async () => {
    const { store, file } = await scene();
    expect(await codeOf(() => store.files.edit({ ...file, body: body([APPEND]).body }))).toBe(
      'PRECONDITION_REQUIRED',
    );
    expect(
      await codeOf(() => store.files.edit({ ...file, body: body({ ...APPEND, dry_run: 'yes' }).body })),
    ).toBe('PRECONDITION_REQUIRED');
  });

  it('a dry run without If-Match goes on and changes nothing', async () => {
    const { store, file, uploaded, current } = await scene();
    const result = await store.files.edit({ ...file, body: { ...APPEND, dry_run: true } });
    expect(result.dryRun).toBe(true);
    expect(result.diff).toContain('+more');
    expect(result.file.revision).toBe(uploaded.revision);
    expect(await current()).toBe(TEXT);
  });

  it('a dry run without If-Match still honours the other preconditions (If-None-Match: * on a file that exists)', async () => {
    const { store, file } = await scene();
    expect(
      await codeOf(() =>
        store.files.edit({ ...file, body: { ...APPEND, dry_run: true }, conditions: { ifNoneMatch: '*' } }),
      ),
    ).toBe('PRECONDITION_FAILED');
  });

  it('a stale If-Match is 412 before the body is read; the current one edits', async () => {
    const { store, file, uploaded, current } = await scene();
    const sent = body(APPEND);
    expect(
      await codeOf(() => store.files.edit({ ...file, body: sent.body, conditions: { ifMatch: '"stale"' } })),
    ).toBe('PRECONDITION_FAILED');
    expect(sent.seen.read).toBe(false);
    const result = await store.files.edit({ ...file, body: APPEND, conditions: { ifMatch: uploaded.etag } });
    expect(result.file.revision).toBe(uploaded.revision + 1);
    expect(await current()).toBe(`${TEXT}more\n`);
  });
});

describe('the size of an edit result', () => {
  it('may reach the limit exactly, not pass it (413), and may not be empty (400 at body.edits)', async () => {
    const limit = TEXT.length + 5;
    const { store, file, uploaded, current } = await scene({ maxFileBytes: limit });
    const conditions = { ifMatch: uploaded.etag };
    const over = await failure(() =>
      store.files.edit({ ...file, conditions, body: { edits: [{ op: 'append', text: 'more!\n' }] } }),
    );
    expect(over.code).toBe('CONTENT_TOO_LARGE');
    const exact = await store.files.edit({ ...file, conditions, body: APPEND });
    expect(exact.file.sizeBytes).toBe(limit);
    const emptied = await failure(() =>
      store.files.edit({
        ...file,
        conditions: { ifMatch: exact.file.etag },
        body: { edits: [{ op: 'replace', old: `${TEXT}more\n`, new: '' }] },
      }),
    );
    expect([emptied.code, emptied.issues]).toEqual([
      'MALFORMED_INPUT',
      [{ loc: ['body', 'edits'], msg: 'Value error, content must not be empty', type: 'value_error' }],
    ]);
    expect(await current()).toBe(`${TEXT}more\n`);
  });
});
