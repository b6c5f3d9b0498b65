import { DAY_MS } from '@mdstore/core';
import { expectedAccounting } from '@mdstore/core/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeTrashPosition, encodeTrashPosition, trashListBinding } from '../src/listing/cursors.js';
import { anAccount, blobKeys, codeOf, createFixture, readText, textStream } from './support/fixture.js';

/**
 * The trash's rules as properties (extensions §5), over random sequences of uploads, content updates,
 * deletes into the trash, restores, removals and time passing with reconciliation, in both storage forms:
 * - the project's counters are always what its records add up to (`trash_size_bytes` included), and
 *   the bytes it holds in all never grow through the trash (restores move bytes, they do not add any);
 * - the trash lists exactly the model's unexpired deletions, newest first; a restored file has the
 *   content it was deleted with; an expired item is never listed or restored;
 * - after reconciliation no blob is left that no record points to.
 */
const RUNS = Number(process.env.MDSTORE_PBT_RUNS) || 60;
const NAMES = ['a.md', 'b.md', 'c.md'] as const;
const RETENTION_DAYS = 3;

type Step =
  | { op: 'upload'; name: string; size: number }
  | { op: 'update'; name: string; size: number }
  | { op: 'delete'; name: string }
  | { op: 'restore'; pick: number; rename: boolean }
  | { op: 'purge'; pick: number }
  | { op: 'wait'; hours: number };

const name = fc.constantFrom(...NAMES);
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant('upload' as const), name, size: fc.integer({ min: 0, max: 300 }) }),
  fc.record({ op: fc.constant('update' as const), name, size: fc.integer({ min: 0, max: 300 }) }),
  fc.record({ op: fc.constant('delete' as const), name }),
  fc.record({ op: fc.constant('restore' as const), pick: fc.nat(), rename: fc.boolean() }),
  fc.record({ op: fc.constant('purge' as const), pick: fc.nat() }),
  fc.record({ op: fc.constant('wait' as const), hours: fc.integer({ min: 1, max: 60 }) }),
);

interface Trashed {
  readonly name: string;
  readonly content: string;
  readonly expiresAt: number;
}

let versions = 0;
const contentOf = (size: number) => `# v${versions++}\n${'x'.repeat(size)}`;

describe.each([
  { form: 'blob', settings: { inlineMaxBytes: 0 } },
  { form: 'inline', settings: { inlineMaxBytes: 64 * 1024 } },
])('the trash ($form content)', ({ settings }) => {
  it('keeps counters exact, lists and restores exactly the unexpired deletions, leaves no orphan', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
        const { store, records, blobs, clock } = createFixture({ settings });
        const { principal } = await anAccount(store, `a${versions}`);
        const project = await store.projects.create({
          principal,
          body: { name: 'p', settings: { trash_retention_days: RETENTION_DAYS } },
        });
        const projectId = project.id;
        const files = new Map<string, string>();
        let trash: Trashed[] = [];
        for (const s of steps) {
          clock.advance(1); // deletions at distinct instants: the list order is the model's
          const held = async () => {
            const p = (await records.findProjectById({ projectId }))!;
            return p.totalSizeBytes + p.historySizeBytes + p.trashSizeBytes;
          };
          const live = () => trash.filter((item) => item.expiresAt > clock.now());
          const listed = async () => (await store.trash.list({ principal, projectId })).trash;
          if (s.op === 'upload' && !files.has(s.name)) {
            const content = contentOf(s.size);
            await store.files.upload({
              principal,
              projectId,
              filename: s.name,
              content: textStream(content),
            });
            files.set(s.name, content);
          } else if (s.op === 'update' && files.has(s.name)) {
            const content = contentOf(s.size);
            await store.files.updateContent({
              principal,
              projectId,
              filename: s.name,
              content: textStream(content),
            });
            files.set(s.name, content);
          } else if (s.op === 'delete' && files.has(s.name)) {
            await store.files.delete({ principal, projectId, filename: s.name });
            trash.push({
              name: s.name,
              content: files.get(s.name)!,
              expiresAt: clock.now() + RETENTION_DAYS * DAY_MS,
            });
            files.delete(s.name);
          } else if (s.op === 'restore' || s.op === 'purge') {
            const items = await listed();
            const item = items[s.pick % Math.max(items.length, 1)];
            if (!item) continue;
            const known = live()[live().length - 1 - items.indexOf(item)]!;
            const before = await held();
            if (s.op === 'purge') {
              await store.trash.delete({ principal, projectId, trashId: item.trashId });
              expect(await held()).toBeLessThanOrEqual(before);
            } else {
              const to = s.rename ? `r${versions++}.md` : item.filename;
              const outcome = await codeOf(() =>
                store.trash.restore({ principal, projectId, trashId: item.trashId, body: { to } }),
              );
              if (files.has(to)) {
                expect(outcome).toBe('FILENAME_TAKEN');
                continue;
              }
              expect(outcome).toBe('OK');
              expect(await held()).toBeLessThanOrEqual(before);
              const download = await store.files.download({ principal, projectId, filename: to });
              expect(await readText(download.content)).toBe(known.content);
              files.set(to, known.content);
            }
            trash = trash.filter((candidate) => candidate !== known);
          } else if (s.op === 'wait') {
            clock.advance(s.hours * 3_600_000);
            // Expired, not yet purged: never listed, never restored.
            const names = live().map((item) => item.name);
            expect((await listed()).map((item) => item.filename)).toEqual(names.reverse());
            for (const stored of await records.listExpiredTrash({ now: clock.now(), limit: 100 })) {
              const restore = () => store.trash.restore({ principal, projectId, trashId: stored.id });
              expect(await codeOf(restore)).toBe('TRASH_ITEM_NOT_FOUND');
            }
            await store.maintenance.reconcile();
            trash = trash.filter((item) => item.expiresAt > clock.now());
          }
          // Newest deletion first, expired ones never listed.
          expect((await listed()).map((item) => item.filename)).toEqual(
            live()
              .map((item) => item.name)
              .reverse(),
          );
          const stored = (await records.findProjectById({ projectId }))!;
          const expected = await expectedAccounting(records, stored);
          expect([
            stored.fileCount,
            stored.totalSizeBytes,
            stored.historySizeBytes,
            stored.trashSizeBytes,
          ]).toEqual([
            expected.fileCount,
            expected.totalSizeBytes,
            expected.historySizeBytes,
            expected.trashSizeBytes,
          ]);
        }
        await store.maintenance.reconcile();
        const stored = (await records.findProjectById({ projectId }))!;
        const { blobKeys: referenced } = await expectedAccounting(records, stored);
        expect(await blobKeys(blobs, stored.bucketName)).toEqual([...referenced].sort());
      }),
      { numRuns: RUNS },
    );
  });
});

describe('trash cursors', () => {
  it('decode to the position they were made of, for their account and project only', async () => {
    const key = new Uint8Array(32).fill(7);
    await fc.assert(
      fc.asyncProperty(
        fc.uuid(),
        fc.uuid(),
        fc.record({ deletedAt: fc.integer({ min: 0, max: 2 ** 50 }), id: fc.uuid() }),
        async (projectId, other, position) => {
          const binding = trashListBinding('account', projectId);
          const cursor = await encodeTrashPosition(position, binding, key);
          expect(await decodeTrashPosition(cursor, binding, key)).toEqual(position);
          if (other !== projectId) {
            await expect(
              decodeTrashPosition(cursor, trashListBinding('account', other), key),
            ).rejects.toThrow();
          }
          await expect(
            decodeTrashPosition(cursor, trashListBinding('another', projectId), key),
          ).rejects.toThrow();
        },
      ),
      { numRuns: 50 },
    );
  });
});
