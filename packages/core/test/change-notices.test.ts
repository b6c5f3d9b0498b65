import { type ChangeEventInput, LocalChangeNotifier, noticingRecords } from '@mdstore/core';
import { createMemoryRecords } from '@mdstore/memory';
import { describe, expect, it } from 'vitest';

const anEvent = (accountId: string): ChangeEventInput => ({
  accountId,
  type: 'project.updated',
  projectId: 'p',
  filename: null,
  from: null,
  revision: null,
  etag: null,
  sizeBytes: null,
  sha256: null,
  changesetId: null,
  at: 1,
});

/** Extensions §7: held reads are woken after a commit with events, never before it, never for a rollback. */
describe('noticingRecords and LocalChangeNotifier', () => {
  it('publishes each account once per commit, after the commit, with how many events it got', async () => {
    const published: Array<[string, number]> = [];
    const inner = createMemoryRecords();
    const records = noticingRecords(inner, (accountId, events) => {
      published.push([accountId, events]);
    });
    await records.withTransaction(async (tx) => {
      await tx.appendChangeEvents({ events: [anEvent('a'), anEvent('b')] });
      await tx.appendChangeEvents({ events: [anEvent('a')] });
      expect(published).toEqual([]);
    });
    expect(published).toEqual([
      ['a', 2],
      ['b', 1],
    ]);
    expect((await inner.listChangeEvents({ accountId: 'a', afterSeq: 0, limit: 10 })).length).toBe(2);
    await records
      .withTransaction(async (tx) => {
        await tx.appendChangeEvents({ events: [anEvent('c')] });
        throw new Error('refused');
      })
      .catch(() => undefined);
    await records.withTransaction((tx) => tx.findChangeFeedHead({ accountId: 'a' }));
    expect(published.map(([account]) => account)).toEqual(['a', 'b']);
    // Reads go straight through.
    expect(await records.findChangeFeedHead({ accountId: 'a' })).toEqual({ lastSeq: 2, prunedThrough: 0 });
  });

  it('tells every subscriber until it unsubscribes; a throwing listener does not stop the others', () => {
    const notifier = new LocalChangeNotifier();
    const heard: string[] = [];
    const off = notifier.subscribe((accountId) => heard.push(`one:${accountId}`));
    notifier.subscribe(() => {
      throw new Error('listener failed');
    });
    notifier.subscribe((accountId) => heard.push(`two:${accountId}`));
    notifier.publish('a');
    off();
    notifier.publish('b');
    expect(heard).toEqual(['one:a', 'two:a', 'two:b']);
    expect(notifier.listenerCount).toBe(2);
  });
});
