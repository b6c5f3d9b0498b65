import {
  type ChangesetOperationInput,
  isMdStoreError,
  type MdStore,
  OperationFailedError,
  type Principal,
  wireBody,
} from '@mdstore/core';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { anAccount, blobKeys, createFixture, readText, textStream } from './support/fixture.js';

/**
 * Changesets (extensions §9) as a property: a random changeset over a few files, some of its contents
 * inline and some in the blob store, either
 * - succeeds, and then leaves the project exactly as applying its operations one by one with the single
 *   use cases does (names, contents, metadata, counters), with one new revision per touched file; or
 * - fails at the operation a plain model says fails first, and changes nothing (files, revisions,
 *   counters, blobs, intents).
 */

const RUNS = Number(process.env.MDSTORE_PBT_RUNS) || 100;
const NAMES = ['a.md', 'b.md', 'd/c.md', 'd/e.md'] as const;
const MAX_FILE_BYTES = 48;
/** Contents above this go to the blob store. */
const INLINE_MAX = 12;

type Name = (typeof NAMES)[number];
type IfMatch = 'absent' | 'null' | 'star' | 'etag' | 'stale';
type Op =
  | { op: 'put'; filename: Name; content: string; metadata?: { n: number }; ifMatch: IfMatch }
  | { op: 'edit'; filename: Name; kind: 'append' | 'replace'; text: string; ifMatch: IfMatch }
  | { op: 'delete'; filename: Name; ifMatch: IfMatch }
  | { op: 'move'; filename: Name; to: Name; ifMatch: IfMatch };

const name = fc.constantFrom(...NAMES);
const text = fc.stringMatching(/^[a-z \n]{0,30}$/);
const ifMatch = fc.oneof(
  { weight: 6, arbitrary: fc.constant<IfMatch>('absent') },
  { weight: 1, arbitrary: fc.constantFrom<IfMatch>('null', 'star', 'etag', 'stale') },
);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constant('put' as const),
    filename: name,
    content: text,
    metadata: fc.option(fc.record({ n: fc.nat(9) }), { nil: undefined }),
    ifMatch,
  }),
  fc.record({
    op: fc.constant('edit' as const),
    filename: name,
    kind: fc.constantFrom('append' as const, 'append' as const, 'append' as const, 'replace' as const),
    text: fc.stringMatching(/^[a-c]{1,2}$/),
    ifMatch,
  }),
  fc.record({ op: fc.constant('delete' as const), filename: name, ifMatch }),
  fc.record({ op: fc.constant('move' as const), filename: name, to: name, ifMatch }),
);
const seed = fc.dictionary(name, fc.stringMatching(/^[a-e \n]{1,30}$/), { minKeys: 2, maxKeys: 4 });

interface ModelFile {
  content: string;
  metadata: string | null;
  /** The stored file it was at the start (its ETag), or null for a file the changeset made. */
  origin: Name | null;
}

const countOf = (haystack: string, needle: string) => haystack.split(needle).length - 1;
const bytes = (s: string) => new TextEncoder().encode(s).byteLength;

/** The model of §9: the index of the first failing operation, or the files after all of them. */
function model(
  start: ReadonlyMap<string, ModelFile>,
  ops: readonly Op[],
): { failsAt: number } | { files: Map<string, ModelFile> } {
  const files = new Map(start);
  let total = 0;
  for (const [i, o] of ops.entries()) {
    const file = files.get(o.filename);
    const matches = (f: ModelFile | undefined) => {
      if (o.ifMatch === 'absent') return true;
      if (o.ifMatch === 'null') return f === undefined;
      if (o.ifMatch === 'star') return f !== undefined;
      // The ETag of the seed file of that name, or one it never had.
      return o.ifMatch === 'etag' && f !== undefined && f.origin === o.filename;
    };
    if (o.op === 'put') {
      const size = bytes(o.content);
      total += size;
      if (size === 0 || size > MAX_FILE_BYTES || total > 4 * MAX_FILE_BYTES || !matches(file))
        return { failsAt: i };
      const metadata = o.metadata === undefined ? (file?.metadata ?? null) : JSON.stringify(o.metadata);
      files.set(o.filename, { content: o.content, metadata, origin: file?.origin ?? null });
      continue;
    }
    if (!file || !matches(file)) return { failsAt: i };
    if (o.op === 'delete') files.delete(o.filename);
    if (o.op === 'move') {
      if (files.has(o.to)) return { failsAt: i };
      files.delete(o.filename);
      files.set(o.to, file);
    }
    if (o.op === 'edit') {
      const after =
        o.kind === 'append'
          ? // An append starts on a line of its own (extensions §4).
            `${file.content}${file.content.endsWith('\n') ? '' : '\n'}${o.text}`
          : countOf(file.content, o.text) === 1
            ? file.content.replace(o.text, 'X')
            : null;
      if (after === null || bytes(after) > MAX_FILE_BYTES) return { failsAt: i };
      files.set(o.filename, { ...file, content: after });
    }
  }
  return { files };
}

async function snapshot(store: MdStore, principal: Principal, projectId: string) {
  const { files } = await store.files.list({ principal, projectId });
  const state: Record<string, unknown> = {};
  for (const file of files) {
    const read = await store.files.read({ principal, projectId, filename: file.filename });
    const revisions = await store.files.listRevisions({ principal, projectId, filename: file.filename });
    state[file.filename] = {
      content: read.kind === 'not-modified' ? null : await readText(read.content!),
      metadata: file.metadata,
      revisions: revisions.revisions.map((r) => [r.revision, r.change, r.changesetId]),
    };
  }
  const project = await store.projects.get({ principal, projectId });
  const { fileCount, totalSizeBytes, historySizeBytes } = project;
  return { state, counters: { fileCount, totalSizeBytes, historySizeBytes }, project };
}

async function scene(seeded: Record<string, string>) {
  const f = createFixture({ settings: { maxFileBytes: MAX_FILE_BYTES, inlineMaxBytes: INLINE_MAX } });
  const account = await anAccount(f.store, 'cs');
  const { principal } = account;
  const created = await f.store.projects.create({ principal, body: { name: 'p' } });
  const projectId = created.id;
  const etags = new Map<string, string>();
  for (const [filename, content] of Object.entries(seeded)) {
    const file = await f.store.files.upload({ principal, projectId, filename, content: textStream(content) });
    etags.set(filename, file.etag);
  }
  return { f, principal, projectId, etags, bucket: created.bucketName };
}

function wire(o: Op, etags: ReadonlyMap<string, string>): ChangesetOperationInput {
  const if_match = {
    absent: undefined,
    null: null,
    star: '*',
    etag: etags.get(o.filename) ?? '"0-1"',
    stale: '"00000000000000000000000000000000-9"',
  }[o.ifMatch];
  const base = if_match === undefined ? {} : { if_match };
  if (o.op === 'put')
    return {
      op: 'put',
      filename: o.filename,
      content: o.content,
      ...(o.metadata && { metadata: o.metadata }),
      ...base,
    };
  if (o.op === 'edit') {
    const edit =
      o.kind === 'append'
        ? { op: 'append' as const, text: o.text }
        : { op: 'replace' as const, old: o.text, new: 'X' };
    return { op: 'edit', filename: o.filename, edits: [edit], ...base };
  }
  if (o.op === 'delete') return { op: 'delete', filename: o.filename, ...base };
  return { op: 'move', filename: o.filename, to: o.to, ...base };
}

/** The same operations one by one, with the single use cases (no preconditions). */
async function oneByOne(store: MdStore, principal: Principal, projectId: string, ops: readonly Op[]) {
  for (const o of ops) {
    const target = { principal, projectId, filename: o.filename };
    if (o.op === 'put') {
      const exists = await store.files
        .read({ ...target })
        .then(() => true)
        .catch((error) => (isMdStoreError(error, 'FILE_NOT_FOUND') ? false : Promise.reject(error)));
      if (exists) {
        await store.files.updateContent({ ...target, content: textStream(o.content) });
        if (o.metadata)
          await store.files.updateMetadata({ ...target, body: wireBody({ metadata: o.metadata }) });
      } else {
        await store.files.upload({
          principal,
          projectId,
          filename: o.filename,
          content: textStream(o.content),
          ...(o.metadata && { metadata: JSON.stringify(o.metadata) }),
        });
      }
    } else if (o.op === 'edit') {
      const edit =
        o.kind === 'append' ? { op: 'append', text: o.text } : { op: 'replace', old: o.text, new: 'X' };
      await store.files.edit({ ...target, body: wireBody({ edits: [edit] }) });
    } else if (o.op === 'delete') await store.files.delete(target);
    else await store.files.move({ ...target, body: wireBody({ to: o.to }) });
  }
}

const contentsOnly = (state: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(state).map(([k, v]) => [
      k,
      { content: (v as { content: string }).content, metadata: (v as { metadata: unknown }).metadata },
    ]),
  );

const tally = { ok: 0, failed: 0 };

describe('changesets: all or nothing, and the same as their operations one by one', () => {
  afterAll(() => {
    // Both outcomes must be exercised, or the property says little.
    expect(tally.ok).toBeGreaterThan(RUNS / 10);
    expect(tally.failed).toBeGreaterThan(RUNS / 10);
    console.log(`changesets property: ${tally.ok} applied, ${tally.failed} refused`);
  });

  it('a random changeset succeeds as the model says and equals its operations one by one, or changes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(seed, fc.array(op, { minLength: 1, maxLength: 5 }), async (seeded, ops) => {
        const s = await scene(seeded);
        const start = new Map(
          Object.entries(seeded).map(([filename, content]) => [
            filename,
            { content, metadata: null, origin: filename as Name } satisfies ModelFile,
          ]),
        );
        const expected = model(start, ops);
        const before = await snapshot(s.f.store, s.principal, s.projectId);
        const blobsBefore = await blobKeys(s.f.blobs, s.bucket);
        let outcome: { ok: true; id: string | null } | { ok: false; at: number };
        try {
          const result = await s.f.store.changesets.apply({
            principal: s.principal,
            projectId: s.projectId,
            message: 'm',
            operations: ops.map((o) => wire(o, s.etags)),
          });
          outcome = { ok: true, id: result.changesetId };
        } catch (error) {
          if (!(error instanceof OperationFailedError)) throw error;
          outcome = { ok: false, at: error.operation };
        }
        expect(await s.f.records.listBlobIntents({ limit: 10 })).toEqual([]);
        tally[outcome.ok ? 'ok' : 'failed']++;
        if ('failsAt' in expected) {
          expect(outcome).toEqual({ ok: false, at: expected.failsAt });
          expect(await snapshot(s.f.store, s.principal, s.projectId)).toEqual(before);
          expect(await blobKeys(s.f.blobs, s.bucket)).toEqual(blobsBefore);
          return;
        }
        expect(outcome.ok).toBe(true);
        const after = await snapshot(s.f.store, s.principal, s.projectId);
        expect(contentsOnly(after.state)).toEqual(
          Object.fromEntries(
            [...expected.files].map(([k, v]) => [
              k,
              { content: v.content, metadata: v.metadata && JSON.parse(v.metadata) },
            ]),
          ),
        );
        // One new revision per touched file that is left, carrying the changeset's id.
        for (const [filename, file] of Object.entries(after.state)) {
          const revisions = (file as { revisions: [number, string, string | null][] }).revisions;
          const touched = ops.some((o) => o.filename === filename || (o.op === 'move' && o.to === filename));
          if (touched) expect(revisions[0]![2]).toBe((outcome as { id: string }).id);
          const inChangeset = revisions.filter((r) => r[2] !== null).length;
          expect(inChangeset).toBeLessThanOrEqual(1);
        }
        // The same operations one by one, on a store seeded alike.
        const t = await scene(seeded);
        await oneByOne(t.f.store, t.principal, t.projectId, ops);
        const sequential = await snapshot(t.f.store, t.principal, t.projectId);
        expect(contentsOnly(after.state)).toEqual(contentsOnly(sequential.state));
        expect(after.counters.fileCount).toBe(sequential.counters.fileCount);
        expect(after.counters.totalSizeBytes).toBe(sequential.counters.totalSizeBytes);
        // Every blob of the store is one a kept revision points to (nothing leaked).
        const referenced = new Set<string>();
        for (const { filename } of (
          await s.f.store.files.list({ principal: s.principal, projectId: s.projectId })
        ).files) {
          const file = await s.f.records.findFile({ projectId: s.projectId, filename });
          for (const r of await s.f.records.listRevisionContents({ fileId: file!.id }))
            if (!r.inline) referenced.add(r.contentKey);
        }
        expect(await blobKeys(s.f.blobs, s.bucket)).toEqual([...referenced].sort());
      }),
      { numRuns: RUNS },
    );
  }, 120_000);
});
