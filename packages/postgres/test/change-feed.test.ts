import { randomUUID } from 'node:crypto';
import type { ChangeEventInput } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { useStores } from './support/fixtures.js';
import { skipPostgres } from './support/pg-available.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const anEvent = (accountId: string, filename: string): ChangeEventInput => ({
  accountId,
  type: 'file.updated',
  projectId: randomUUID(),
  filename,
  from: null,
  revision: 1,
  etag: null,
  sizeBytes: 1,
  sha256: null,
  changesetId: null,
  at: Date.now(),
});

/**
 * Extensions §7 on Postgres: `seq` order is commit order within an account. The trap it avoids: a value
 * taken from a sequence by a slow transaction commits after a faster one's larger value, and a reader
 * that saw the larger one never looks back. Here many writers on two pools hold their transactions
 * open for random times after taking their `seq`, while a reader polls "after the last seq I saw": it
 * must end up having seen every event, and never a seq at or below one it had seen before.
 */
describe.skipIf(skipPostgres)('postgres change feed', () => {
  const { open, newSchema } = useStores();

  it('a reader polling after the last seq it saw misses nothing while slow writers commit out of order', async () => {
    const schema = await newSchema();
    const [one, two] = [await open({ schema, poolMax: 6 }), await open({ schema, poolMax: 6 })];
    const accountId = randomUUID();
    const writers = 48;
    let writing = true;
    const seen: number[] = [];
    const reader = (async () => {
      let after = 0;
      for (;;) {
        const done = !writing;
        const page = await one.records.listChangeEvents({ accountId, afterSeq: after, limit: 1000 });
        for (const event of page) {
          expect(event.seq).toBeGreaterThan(after);
          seen.push(event.seq);
          after = event.seq;
        }
        if (done && page.length === 0) return;
        await sleep(1);
      }
    })();
    await Promise.all(
      Array.from({ length: writers }, (_, i) =>
        (i % 2 ? two : one).records.withTransaction(async (tx) => {
          // Some take their seq, then stay open a while: the slow transactions of the trap.
          await tx.appendChangeEvents({ events: [anEvent(accountId, `${i}.md`)] });
          await sleep(Math.floor(Math.random() * 40));
        }),
      ),
    );
    writing = false;
    await reader;
    expect(seen).toEqual(Array.from({ length: writers }, (_, i) => i + 1));
  }, 60_000);

  it('a commit on one store notifies the listeners of another on the same schema, not of another schema', async () => {
    const schema = await newSchema();
    const [writer, listener, elsewhere] = [await open({ schema }), await open({ schema }), await open()];
    const heard: string[] = [];
    const strayed: string[] = [];
    listener.changeNotices.subscribe((accountId) => heard.push(accountId));
    elsewhere.changeNotices.subscribe((accountId) => strayed.push(accountId));
    const accountId = randomUUID();
    // The listening connection may still be opening: commit until it hears, within a bound.
    const started = Date.now();
    while (!heard.includes(accountId) && Date.now() - started < 5000) {
      await writer.records.withTransaction((tx) =>
        tx.appendChangeEvents({ events: [anEvent(accountId, 'n.md')] }),
      );
      await sleep(100);
    }
    expect(heard).toContain(accountId);
    expect(strayed).toEqual([]);
    // A rolled-back transaction notifies nobody.
    const quiet = randomUUID();
    await writer.records
      .withTransaction(async (tx) => {
        await tx.appendChangeEvents({ events: [anEvent(quiet, 'q.md')] });
        throw new Error('refused');
      })
      .catch(() => undefined);
    await sleep(300);
    expect(heard).not.toContain(quiet);
  });
});
