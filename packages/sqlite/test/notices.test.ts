import type { ChangeEventInput } from '@mdstore/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../src/index.js';
import { tempDatabase } from './temp-db.js';

/**
 * Extensions §7 on SQLite: a commit made through one store (another process, in production) reaches the
 * held reads of another store on the same file within 2 s, through its change notices.
 */
let database: Awaited<ReturnType<typeof tempDatabase>>;
const stores: SqliteStore[] = [];
beforeEach(async () => {
  database = await tempDatabase();
});
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  await database.remove();
});

const open = async () => {
  const store = await openSqliteStore({ path: database.path });
  stores.push(store);
  return store;
};

const event = (accountId: string): ChangeEventInput => ({
  accountId,
  type: 'project.created',
  projectId: crypto.randomUUID(),
  filename: null,
  from: null,
  revision: null,
  etag: null,
  sizeBytes: null,
  sha256: null,
  changesetId: null,
  at: Date.now(),
});

describe('SQLite change notices', () => {
  it("announce another store's commits on the same file, by account, within 2 s", async () => {
    const writer = await open();
    const watcher = await open();
    const heard: Array<{ accountId: string; at: number }> = [];
    watcher.changeNotices.subscribe((accountId) => heard.push({ accountId, at: Date.now() }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const [a, b] = [crypto.randomUUID(), crypto.randomUUID()];
    const committed = Date.now();
    await writer.records.withTransaction((tx) => tx.appendChangeEvents({ events: [event(a), event(b)] }));
    await expect
      .poll(() => new Set(heard.map((h) => h.accountId)), { timeout: 2_000, interval: 20 })
      .toEqual(new Set([a, b]));
    expect(Math.max(...heard.map((h) => h.at)) - committed).toBeLessThan(2_000);
    // Nothing new, nothing announced: a quiet file costs one pragma read per tick.
    const count = heard.length;
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(heard).toHaveLength(count);
    await writer.records.withTransaction((tx) => tx.appendChangeEvents({ events: [event(a)] }));
    await expect.poll(() => heard.slice(count).map((h) => h.accountId), { timeout: 2_000 }).toEqual([a]);
  });

  it('announce nothing that was committed before the first subscription', async () => {
    const writer = await open();
    await writer.records.withTransaction((tx) => tx.appendChangeEvents({ events: [event('old')] }));
    const watcher = await open();
    const heard: string[] = [];
    watcher.changeNotices.subscribe((accountId) => heard.push(accountId));
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(heard).toEqual([]);
  });
});
