import { isMdStoreError, type RestoreResult } from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anAccount, createFixture, readText } from './support/fixture.js';

/**
 * A project as it was (extensions §16) as a model-based property: random writes, moves, metadata
 * changes and deletes at increasing times (some contents inline, some in the blob store), then a restore
 * as of a random time. The model keeps every state the project went through and, per file, the times of
 * its revisions and which of them `keep_revisions` (and `keep_revisions_days`) keep. When every file of
 * then and of now can be told from kept history, the project afterwards is exactly the model's state at
 * that time, and the report says what changed; otherwise the files reported `unrecoverable` are left as
 * they were and every other file is as it was then. A dry run writes nothing and reports the same.
 */

const RUNS = Number(process.env.MDSTORE_PBT_RUNS) || 60;
const NAMES = ['a.md', 'b.md', 'd/c.md', 'e.mdx'] as const;
/** Contents above this go to the blob store. */
const INLINE_MAX = 12;

type Step =
  | { kind: 'put'; name: string; content: string; metadata: number | null; gap: number }
  | { kind: 'meta'; name: string; metadata: number | null; gap: number }
  | { kind: 'move'; name: string; to: string; gap: number }
  | { kind: 'delete'; name: string; gap: number };

const name = fc.constantFrom(...NAMES);
const gap = fc.integer({ min: 1, max: 1000 });
const metadata = fc.option(fc.nat(3));
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('put' as const),
      name,
      content: fc.stringMatching(/^[a-z]{1,20}$/),
      metadata,
      gap,
    }),
  },
  fc.record({ kind: fc.constant('meta' as const), name, metadata, gap }),
  fc.record({ kind: fc.constant('move' as const), name, to: name, gap }),
  fc.record({ kind: fc.constant('delete' as const), name, gap }),
);

interface ModelFile {
  readonly id: number;
  readonly content: string;
  readonly metadata: number | null;
}
/** A file's identity across its life: its revisions' times; where it is now. */
interface Identity {
  readonly times: number[];
  state: 'live' | 'trash' | 'gone';
}

type State = ReadonlyMap<string, ModelFile>;

const metaJson = (n: number | null) => (n === null ? null : { n });

describe('a project as it was (extensions §16)', () => {
  it('restoring as of a time gives the model state of then, for every file whose history reaches it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.boolean(),
        fc.boolean(),
        fc.array(step, { minLength: 1, maxLength: 14 }),
        // Where as_of falls between the project's creation and now, in thousandths.
        fc.integer({ min: 0, max: 1000 }),
        fc.boolean(),
        async (keep, byDays, trash, steps, where, dryRunFirst) => {
          const f = createFixture({ settings: { inlineMaxBytes: INLINE_MAX } });
          const { principal } = await anAccount(f.store, 'acme');
          const project = await f.store.projects.create({
            principal,
            body: {
              name: 'p',
              settings: {
                keep_revisions: keep,
                keep_revisions_days: byDays ? 1 : 0,
                trash_retention_days: trash ? 7 : 0,
              },
            },
          });
          const projectId = project.id;
          const history: { at: number; state: State }[] = [{ at: f.clock.now(), state: new Map() }];
          const identities: Identity[] = [];
          let files = new Map<string, ModelFile>();
          const revise = (id: number) => identities[id]!.times.push(f.clock.now());
          for (const s of steps) {
            f.clock.advance(s.gap);
            const file = files.get(s.name);
            const next = new Map(files);
            if (s.kind === 'put') {
              const id = file?.id ?? identities.push({ times: [], state: 'live' }) - 1;
              await f.store.changesets.apply({
                principal,
                projectId,
                operations: [
                  { op: 'put', filename: s.name, content: s.content, metadata: metaJson(s.metadata) },
                ],
              });
              next.set(s.name, { id, content: s.content, metadata: s.metadata });
              revise(id);
            } else if (!file) {
              continue;
            } else if (s.kind === 'meta') {
              await f.store.files.updateMetadata({
                principal,
                projectId,
                filename: s.name,
                body: { metadata: metaJson(s.metadata) },
              });
              next.set(s.name, { ...file, metadata: s.metadata });
              revise(file.id);
            } else if (s.kind === 'move') {
              if (files.has(s.to)) continue;
              await f.store.changesets.apply({
                principal,
                projectId,
                operations: [{ op: 'move', filename: s.name, to: s.to }],
              });
              next.delete(s.name);
              next.set(s.to, file);
              revise(file.id);
            } else {
              await f.store.changesets.apply({
                principal,
                projectId,
                operations: [{ op: 'delete', filename: s.name }],
              });
              next.delete(s.name);
              identities[file.id]!.state = trash ? 'trash' : 'gone';
            }
            files = next;
            history.push({ at: f.clock.now(), state: next });
          }
          f.clock.advance(1);
          const start = history[0]!.at;
          const asOf = Math.floor(start + (where / 1000) * (f.clock.now() - start));
          const then = [...history].reverse().find((h) => h.at <= asOf)!.state;

          // What the model can tell: the revision of each file current at `asOf`, and whether it is kept.
          const recoverable = (id: number) => {
            const { times, state } = identities[id]!;
            if (state === 'gone') return false;
            const index = times.findLastIndex((t) => t <= asOf);
            if (index < 0) return true; // created after: nothing to recover, it just goes
            const fromNewest = times.length - 1 - index;
            return byDays || fromNewest < keep;
          };
          const involved = new Set([...then.values(), ...files.values()].map((file) => file.id));
          const exact = [...involved].every(recoverable);

          const before = await snapshot(f, principal, projectId);
          const restore = (dryRun: boolean) =>
            f.store.restore.asOf({
              principal,
              projectId,
              body: { as_of: new Date(asOf).toISOString(), dry_run: dryRun },
            });
          let dry: RestoreResult | undefined;
          if (dryRunFirst) {
            dry = await restore(true);
            expect(dry.changesetId).toBeNull();
            expect(await snapshot(f, principal, projectId)).toEqual(before);
          }
          const result = await restore(false);
          if (dry) expect({ ...dry, dryRun: false }).toEqual({ ...result, changesetId: null });
          const after = await snapshot(f, principal, projectId);
          const expected = new Map(
            [...then].map(([n, file]) => [n, { content: file.content, metadata: metaJson(file.metadata) }]),
          );
          if (exact) {
            expect(result.unrecoverable).toEqual([]);
            expect(after).toEqual(expected);
            const changes = result.counts.created + result.counts.changed + result.counts.deleted;
            expect(result.changesetId === null).toBe(changes === 0);
          } else {
            const leftAlone = new Set(result.unrecoverable.map((u) => u.filename));
            for (const [n, file] of after) {
              if (leftAlone.has(n)) expect(file).toEqual(before.get(n));
              else expect(file).toEqual(expected.get(n));
            }
          }
        },
      ),
      { numRuns: RUNS },
    );
  }, 120_000);

  it('refuses an as_of in the future, before the project, or not a date, with 422 at its loc', async () => {
    const f = createFixture();
    const { principal } = await anAccount(f.store, 'acme');
    const { id: projectId, createdAt } = await f.store.projects.create({ principal, body: { name: 'p' } });
    const cases: unknown[] = [
      { as_of: new Date(f.clock.now() + 60_000).toISOString() },
      { as_of: new Date(createdAt - 60_000).toISOString() },
      { as_of: 'yesterday' },
      { as_of: '2024-01-15T09:30:00Z', dry_run: 'yes' },
      {},
      { as_of: '2024-01-15T09:30:00Z', extra: 1 },
    ];
    for (const body of cases) {
      try {
        await f.store.restore.asOf({ principal, projectId, body });
        expect.unreachable(JSON.stringify(body));
      } catch (error) {
        expect(isMdStoreError(error, 'INVALID_INPUT')).toBe(true);
        expect((error as { issues: { loc: unknown[] }[] }).issues[0]!.loc[0]).toBe('body');
      }
    }
  });
});

async function snapshot(
  f: ReturnType<typeof createFixture>,
  principal: Parameters<ReturnType<typeof createFixture>['store']['files']['download']>[0]['principal'],
  projectId: string,
) {
  const out = new Map<string, { content: string; metadata: unknown }>();
  for (const file of await f.records.listFiles({ projectId })) {
    const { file: view, content } = await f.store.files.download({
      principal,
      projectId,
      filename: file.filename,
    });
    out.set(file.filename, { content: await readText(content), metadata: view.metadata });
  }
  return out;
}
