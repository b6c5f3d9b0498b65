import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { ChangeEventInput } from '../../model/changes.js';
import { BASE_TIME } from '../builders.js';
import type { SuiteContext } from './support.js';

const anEvent = (overrides: Partial<ChangeEventInput> = {}): ChangeEventInput => ({
  accountId: randomUUID(),
  type: 'file.updated',
  projectId: randomUUID(),
  filename: 'notes/ü.md',
  from: null,
  revision: 2,
  etag: '"abc-2"',
  sizeBytes: 12,
  sha256: 'a'.repeat(64),
  changesetId: null,
  at: BASE_TIME,
  ...overrides,
});

/** The change feed (extensions §7): the outbox written by the change's transaction, and its reads. */
export function changesSuite({ adapterName, test }: SuiteContext): void {
  describe('change feed', () => {
    test('gives seqs per account, contiguous within one call, and returns every field as written', async ({
      repository,
    }) => {
      const [a, b] = [randomUUID(), randomUUID()];
      const moved = anEvent({ accountId: a, type: 'file.moved', from: 'old.md', changesetId: randomUUID() });
      const first = await repository.withTransaction((tx) =>
        tx.appendChangeEvents({ events: [moved, anEvent({ accountId: a }), anEvent({ accountId: b })] }),
      );
      expect(first.map((e) => [e.accountId, e.seq])).toEqual([
        [a, 1],
        [a, 2],
        [b, 1],
      ]);
      const second = await repository.withTransaction((tx) =>
        tx.appendChangeEvents({
          events: [anEvent({ accountId: a, type: 'project.deleted', filename: null })],
        }),
      );
      expect(second[0]?.seq).toBe(3);
      const listed = await repository.listChangeEvents({ accountId: a, afterSeq: 0, limit: 10 });
      expect(listed).toEqual([{ ...moved, seq: 1 }, first[1], second[0]]);
      expect(await repository.findChangeFeedHead({ accountId: a })).toEqual({ lastSeq: 3, prunedThrough: 0 });
      expect(await repository.findChangeFeedHead({ accountId: randomUUID() })).toEqual({
        lastSeq: 0,
        prunedThrough: 0,
      });
    });

    test('pages after a seq, oldest first, at most the limit, of some projects only', async ({
      repository,
    }) => {
      const accountId = randomUUID();
      const [p1, p2] = [randomUUID(), randomUUID()];
      await repository.withTransaction((tx) =>
        tx.appendChangeEvents({
          events: [p1, p2, p1, p2, p1].map((projectId) => anEvent({ accountId, projectId })),
        }),
      );
      const seqs = async (q: { afterSeq: number; limit: number; projectIds?: string[] }) =>
        (await repository.listChangeEvents({ accountId, ...q })).map((e) => e.seq);
      expect(await seqs({ afterSeq: 0, limit: 10 })).toEqual([1, 2, 3, 4, 5]);
      expect(await seqs({ afterSeq: 2, limit: 2 })).toEqual([3, 4]);
      expect(await seqs({ afterSeq: 0, limit: 10, projectIds: [p2] })).toEqual([2, 4]);
      expect(await seqs({ afterSeq: 1, limit: 10, projectIds: [p1, p2] })).toEqual([2, 3, 4, 5]);
      expect(await seqs({ afterSeq: 0, limit: 10, projectIds: [] })).toEqual([]);
    });

    test('a rolled-back transaction leaves no event and uses no seq a later commit could skip', async ({
      repository,
    }) => {
      const accountId = randomUUID();
      await expect(
        repository.withTransaction(async (tx) => {
          await tx.appendChangeEvents({ events: [anEvent({ accountId })] });
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      expect(await repository.listChangeEvents({ accountId, afterSeq: 0, limit: 10 })).toEqual([]);
      const [event] = await repository.withTransaction((tx) =>
        tx.appendChangeEvents({ events: [anEvent({ accountId })] }),
      );
      expect(event?.seq).toBe(1);
    });

    test('retention deletes old events and raises the pruned watermark', async ({ repository }) => {
      const accountId = randomUUID();
      const other = randomUUID();
      await repository.withTransaction((tx) =>
        tx.appendChangeEvents({
          events: [
            ...[1, 2, 3, 10].map((offset) => anEvent({ accountId, at: BASE_TIME + offset })),
            anEvent({ accountId: other, at: BASE_TIME + 20 }),
          ],
        }),
      );
      const expire = (before: number, limit: number) =>
        repository.withTransaction((tx) => tx.deleteChangeEventsBefore({ before, limit }));
      expect(await expire(BASE_TIME + 5, 2)).toBe(2);
      expect(await repository.findChangeFeedHead({ accountId })).toEqual({ lastSeq: 4, prunedThrough: 2 });
      expect(await expire(BASE_TIME + 5, 10)).toBe(1);
      expect(await expire(BASE_TIME + 5, 10)).toBe(0);
      expect(
        (await repository.listChangeEvents({ accountId, afterSeq: 0, limit: 10 })).map((e) => e.seq),
      ).toEqual([4]);
      expect(await repository.findChangeFeedHead({ accountId })).toEqual({ lastSeq: 4, prunedThrough: 3 });
      expect(await repository.findChangeFeedHead({ accountId: other })).toEqual({
        lastSeq: 1,
        prunedThrough: 0,
      });
      // The next event still follows the last one handed out.
      const [next] = await repository.withTransaction((tx) =>
        tx.appendChangeEvents({ events: [anEvent({ accountId })] }),
      );
      expect(next?.seq).toBe(5);
    });

    test('keeps the first value of a store secret', async ({ repository }) => {
      expect(await repository.findStoreSecret({ name: 'cursor' })).toBeNull();
      const keep = (value: string) =>
        repository.withTransaction((tx) => tx.keepStoreSecret({ name: 'cursor', value }));
      expect(await keep('first')).toBe('first');
      expect(await keep('second')).toBe('first');
      expect(await repository.findStoreSecret({ name: 'cursor' })).toBe('first');
    });

    test('two handles writing one account at once: seqs are distinct and contiguous', async (harness, {
      skip,
    }) => {
      if (!harness.repository.supports.sharedBetweenProcesses) skip(`${adapterName} is not shared`);
      if (!harness.openSecond) throw new Error('the harness must provide openSecond()');
      const second = await harness.openSecond();
      const accountId = randomUUID();
      const write = (repo: typeof harness.repository) =>
        repo.withTransaction((tx) => tx.appendChangeEvents({ events: [anEvent({ accountId })] }));
      const written = await Promise.all(
        Array.from({ length: 10 }, (_, i) => write(i % 2 ? second : harness.repository)),
      );
      const seqs = written.map(([e]) => e?.seq ?? 0).sort((x, y) => x - y);
      expect(seqs).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    });
  });
}
