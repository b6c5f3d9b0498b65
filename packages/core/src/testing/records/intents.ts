import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { aBlobIntent, anInstance, BASE_TIME } from '../builders.js';
import { ascendingIds, type SuiteContext, scramble } from './support.js';

export function intentsSuite({ test }: SuiteContext): void {
  describe('blob intents and instances', () => {
    test('inserts blob intents and lists them in id order, with a limit and after an id', async ({
      repository,
    }) => {
      const owner = anInstance();
      await repository.withTransaction((tx) => tx.upsertInstance({ instance: owner }));
      const [id1, id2, id3, id4] = ascendingIds(4) as [string, string, string, string];
      // createdAt runs against id order: the list must follow the ids.
      const intents = [
        aBlobIntent({ id: id1, ownerInstanceId: owner.id, kind: 'staged', createdAt: BASE_TIME + 3 }),
        aBlobIntent({
          id: id2,
          ownerInstanceId: owner.id,
          kind: 'doomed',
          key: null,
          createdAt: BASE_TIME + 2,
        }),
        aBlobIntent({ id: id3, ownerInstanceId: owner.id, kind: 'doomed', createdAt: BASE_TIME + 1 }),
        aBlobIntent({ id: id4, ownerInstanceId: owner.id, kind: 'staged', createdAt: BASE_TIME }),
      ];
      for (const intent of scramble(intents)) {
        await repository.withTransaction((tx) => tx.insertBlobIntent({ intent }));
      }
      expect(await repository.listBlobIntents({ limit: 10 })).toEqual(intents);
      expect(await repository.listBlobIntents({ limit: 2 })).toEqual(intents.slice(0, 2));
      expect(await repository.listBlobIntents({ limit: 2, afterId: id2 })).toEqual(intents.slice(2, 4));
      expect(await repository.listBlobIntents({ limit: 10, afterId: id4 })).toEqual([]);
    });

    test('deleteBlobIntent returns true once, then false', async ({ repository }) => {
      const owner = anInstance();
      await repository.withTransaction((tx) => tx.upsertInstance({ instance: owner }));
      const [kept, doomed] = [
        aBlobIntent({ ownerInstanceId: owner.id }),
        aBlobIntent({ ownerInstanceId: owner.id }),
      ];
      await repository.withTransaction(async (tx) => {
        await tx.insertBlobIntent({ intent: kept });
        await tx.insertBlobIntent({ intent: doomed });
      });
      const remove = (intentId: string) =>
        repository.withTransaction((tx) => tx.deleteBlobIntent({ intentId }));
      expect(await remove(doomed.id)).toBe(true);
      expect(await remove(doomed.id)).toBe(false);
      expect(await remove(randomUUID())).toBe(false);
      expect(await repository.listBlobIntents({ limit: 10 })).toEqual([kept]);
    });

    test('upserts, lists and deletes instances', async ({ repository }) => {
      const instance = anInstance({ startedAt: BASE_TIME, heartbeatAt: BASE_TIME });
      const other = anInstance({ hostname: 'other-host', pid: 7 });
      await repository.withTransaction((tx) => tx.upsertInstance({ instance }));
      await repository.withTransaction((tx) => tx.upsertInstance({ instance: other }));
      const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
      expect((await repository.listInstances()).sort(byId)).toEqual([instance, other].sort(byId));

      const beat = { ...instance, heartbeatAt: BASE_TIME + 15_001 };
      await repository.withTransaction((tx) => tx.upsertInstance({ instance: beat }));
      expect((await repository.listInstances()).sort(byId)).toEqual([beat, other].sort(byId));

      await repository.withTransaction((tx) => tx.deleteInstance({ instanceId: other.id }));
      expect(await repository.listInstances()).toEqual([beat]);
    });
  });
}
