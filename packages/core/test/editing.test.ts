import type { BlobStore, RecordsRepository } from '@mdstore/core';
import { MAX_EDIT_ATTEMPTS } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { anAccount, blobKeys, codeOf, createFixture, readText, textStream } from './support/fixture.js';

/**
 * The edit use case's optimistic write, with a concurrent write forced between the read of the
 * content and the commit: the edits are applied again to the newer content (or fail as they would on
 * it), a file that keeps changing ends in a clear 409 after `MAX_EDIT_ATTEMPTS`, `If-Match` turns the
 * race into a 412, and a discarded attempt leaves no content behind. On both storage forms.
 */

const FORMS = [
  { form: 'blob', settings: { inlineMaxBytes: 0 } },
  { form: 'inline', settings: { inlineMaxBytes: 64 * 1024 } },
] as const;

/** Calls `onRead` whenever a content version is read (from the blob store or inline). */
function readHooks() {
  let onRead: (() => Promise<void>) | undefined;
  const fire = async () => {
    const hook = onRead;
    if (hook) await hook();
  };
  return {
    set: (hook: (() => Promise<void>) | undefined) => {
      onRead = hook;
    },
    wrapBlobs: (inner: BlobStore): BlobStore => ({
      ...inner,
      get: async (o) => {
        const opened = await inner.get(o);
        await fire();
        return opened;
      },
    }),
    wrapRecords: (inner: RecordsRepository): RecordsRepository =>
      new Proxy(inner, {
        get(target, property) {
          const value = Reflect.get(target, property, target);
          if (property === 'readInlineContent') {
            return async (q: Parameters<RecordsRepository['readInlineContent']>[0]) => {
              const bytes = await target.readInlineContent(q);
              await fire();
              return bytes;
            };
          }
          return typeof value === 'function' ? value.bind(target) : value;
        },
      }),
  };
}

async function sceneOn(settings: { inlineMaxBytes: number }) {
  const hooks = readHooks();
  const fixture = createFixture({ settings, wrapBlobs: hooks.wrapBlobs, wrapRecords: hooks.wrapRecords });
  const { store } = fixture;
  const alice = await anAccount(store, 'alice');
  const projectId = alice.defaultProjectId;
  const principal = alice.principal;
  await store.files.upload({ principal, projectId, filename: 'a.md', content: textStream('one\nfoo\n') });
  const file = { principal, projectId, filename: 'a.md' };
  const writeContent = (text: string) => store.files.updateContent({ ...file, content: textStream(text) });
  const content = async () => readText((await store.files.download(file)).content);
  /** Every revision's change and the content keys the kept revisions reference. */
  const history = async () => {
    const record = (await fixture.records.findFile({ projectId, filename: 'a.md' }))!;
    const revisions = await fixture.records.listRevisions({ fileId: record.id, limit: 100 });
    return { record, revisions };
  };
  /** Content versions stored anywhere that no kept revision references: must be none. */
  const orphans = async () => {
    const { revisions } = await history();
    const referenced = new Set(revisions.map((revision) => revision.contentKey));
    const project = (await fixture.records.findProjectById({ projectId }))!;
    const stored = await blobKeys(fixture.blobs, project.bucketName);
    return stored.filter((key) => !referenced.has(key));
  };
  return { ...fixture, hooks, store, file, writeContent, content, history, orphans };
}

/**
 * Records whose reads outside a transaction see commits up to `lagMs` late, as SQLite's reader
 * connection does with group commit (a transaction is released into a batch that commits a few
 * milliseconds later, and the writer's own transactions see it before the reader does).
 */
function laggingReads(inner: RecordsRepository, lagMs: number): RecordsRepository {
  const seen = new Map<string, { at: number; file: Awaited<ReturnType<RecordsRepository['findFile']>> }>();
  return new Proxy(inner, {
    get(target, property) {
      if (property === 'findFile') {
        return async (q: Parameters<RecordsRepository['findFile']>[0]) => {
          const key = `${q.projectId}\0${q.filename}`;
          const cached = seen.get(key);
          if (cached && performance.now() - cached.at < lagMs) return cached.file;
          const file = await target.findFile(q);
          seen.set(key, { at: performance.now(), file });
          return file;
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe('editing when reads lag behind commits', () => {
  it('a retry waits for reads to show the newer revision instead of failing on the old one again', async () => {
    const hooks = readHooks();
    const fixture = createFixture({
      wrapRecords: (inner) => hooks.wrapRecords(laggingReads(inner, 20)),
    });
    const { store } = fixture;
    const alice = await anAccount(store, 'alice');
    const file = { principal: alice.principal, projectId: alice.defaultProjectId, filename: 'a.md' };
    await store.files.upload({ ...file, content: textStream('one\n') });
    await new Promise((resolve) => setTimeout(resolve, 25));
    hooks.set(async () => {
      hooks.set(undefined);
      await store.files.updateContent({ ...file, content: textStream('newer\n') });
    });
    const result = await store.files.edit({ ...file, body: { edits: [{ op: 'append', text: 'edited\n' }] } });
    expect(result.file.revision).toBe(3);
    const inner = (await fixture.records.findFile({ projectId: file.projectId, filename: 'a.md' }))!;
    expect(inner.revision).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 25));
    expect(await readText((await store.files.download(file)).content)).toBe('newer\nedited\n');
  });
});

describe.each(FORMS)('editing against concurrent writes ($form content)', ({ settings }) => {
  it('a write between the read and the commit: the edits are applied again to the newer content', async () => {
    const s = await sceneOn(settings);
    let fired = 0;
    s.hooks.set(async () => {
      if (fired++ > 0) return;
      s.hooks.set(undefined);
      await s.writeContent('newer\nfoo\n');
    });
    const result = await s.store.files.edit({
      ...s.file,
      body: { edits: [{ op: 'replace', old: 'foo', new: 'bar' }] },
    });
    expect(fired).toBe(1);
    expect(await s.content()).toBe('newer\nbar\n');
    expect(result.file.revision).toBe(3);
    expect(result.diff).toBe('--- a/a.md\n+++ b/a.md\n@@ -1,2 +1,2 @@\n newer\n-foo\n+bar\n');
    const { revisions } = await s.history();
    expect(revisions.map((revision) => [revision.revision, revision.change])).toEqual([
      [3, 'edit'],
      [2, 'content'],
      [1, 'created'],
    ]);
    expect(await s.orphans()).toEqual([]);
  });

  it('fails as it would on the newer content, which stays', async () => {
    const s = await sceneOn(settings);
    s.hooks.set(async () => {
      s.hooks.set(undefined);
      await s.writeContent('no match here\n');
    });
    const edit = () =>
      s.store.files.edit({ ...s.file, body: { edits: [{ op: 'replace', old: 'foo', new: 'bar' }] } });
    expect(await codeOf(edit)).toBe('EDIT_CONFLICT');
    expect(await s.content()).toBe('no match here\n');
    expect((await s.history()).record.revision).toBe(2);
    expect(await s.orphans()).toEqual([]);
  });

  it('a file that keeps changing: 409 concurrent_writes after MAX_EDIT_ATTEMPTS, no edit stored', async () => {
    const s = await sceneOn(settings);
    let writes = 0;
    const hook = async () => {
      s.hooks.set(undefined);
      await s.writeContent(`foo ${++writes}\n`);
      s.hooks.set(hook);
    };
    s.hooks.set(hook);
    let caught: unknown;
    try {
      await s.store.files.edit({ ...s.file, body: { edits: [{ op: 'append', text: 'edited' }] } });
    } catch (error) {
      caught = error;
    }
    s.hooks.set(undefined);
    expect(caught).toMatchObject({
      code: 'EDIT_CONFLICT',
      issues: [{ loc: ['body', 'edits'], type: 'concurrent_writes' }],
    });
    expect(writes).toBe(MAX_EDIT_ATTEMPTS);
    expect(await s.content()).toBe(`foo ${writes}\n`);
    expect((await s.history()).revisions.every((revision) => revision.change !== 'edit')).toBe(true);
    expect(await s.orphans()).toEqual([]);
  });

  it('with If-Match, a write that came first makes the edit 412 instead of a retry', async () => {
    const s = await sceneOn(settings);
    const ifMatch = (await s.store.files.read({ ...s.file, open: false })).file.etag;
    s.hooks.set(async () => {
      s.hooks.set(undefined);
      await s.writeContent('newer\nfoo\n');
    });
    const edit = () =>
      s.store.files.edit({
        ...s.file,
        body: { edits: [{ op: 'replace', old: 'foo', new: 'bar' }] },
        conditions: { ifMatch },
      });
    expect(await codeOf(edit)).toBe('PRECONDITION_FAILED');
    expect(await s.content()).toBe('newer\nfoo\n');
    expect(await s.orphans()).toEqual([]);
  });

  it('a dry run stores nothing and records no revision', async () => {
    const s = await sceneOn(settings);
    const before = await s.history();
    const result = await s.store.files.edit({
      ...s.file,
      body: { edits: [{ op: 'append', text: 'x\n' }], dry_run: true },
    });
    expect(result).toMatchObject({ dryRun: true, file: { revision: 1, sizeBytes: 10 } });
    expect(result.file.etag).toBe((await s.store.files.read({ ...s.file, open: false })).file.etag);
    expect(await s.history()).toEqual(before);
    expect(await s.orphans()).toEqual([]);
  });
});
