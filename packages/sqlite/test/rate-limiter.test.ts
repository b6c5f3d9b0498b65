import { statSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../src/index.js';
import { tempDatabase } from './temp-db.js';

let database: Awaited<ReturnType<typeof tempDatabase>>;
let stores: SqliteStore[];
const open = async () => {
  const store = await openSqliteStore({ path: database.path });
  stores.push(store);
  return store;
};

beforeEach(async () => {
  database = await tempDatabase();
  stores = [];
});
afterEach(async () => {
  await Promise.all(stores.map((store) => store.close()));
  await database.remove();
});

describe('sqlite rate limiter', () => {
  it('keeps the count across close and reopen', async () => {
    const first = await open();
    const consume = (store: SqliteStore) =>
      store.rateLimiter.consume({ key: 'k', limit: 2, windowMs: 60_000, now: 1_000 });
    await consume(first);
    await first.close();
    const second = await open();
    expect(await consume(second)).toEqual({ allowed: true, used: 2, remaining: 0, resetAt: 61_000 });
    expect((await consume(second)).allowed).toBe(false);
  });

  it('applies a lowered limit inside the current window (a tier change)', async () => {
    const { rateLimiter } = await open();
    for (let index = 0; index < 3; index += 1) {
      await rateLimiter.consume({ key: 'k', limit: 10, windowMs: 60_000, now: 0 });
    }
    expect(await rateLimiter.consume({ key: 'k', limit: 2, windowMs: 60_000, now: 1 })).toEqual({
      allowed: false,
      used: 3,
      remaining: 0,
      resetAt: 60_000,
    });
  });

  it('refuses everything with a zero limit and opens no window', async () => {
    const { rateLimiter } = await open();
    expect(await rateLimiter.consume({ key: 'k', limit: 0, windowMs: 1_000, now: 5 })).toEqual({
      allowed: false,
      used: 0,
      remaining: 0,
      resetAt: 1_005,
    });
    expect(await rateLimiter.consume({ key: 'k', limit: 1, windowMs: 1_000, now: 500 })).toMatchObject({
      allowed: true,
      resetAt: 1_500,
    });
  });

  it('treats keys as exact strings (case and Unicode form matter)', async () => {
    const { rateLimiter } = await open();
    for (const key of ['key', 'KEY', 'caf\u00e9', 'cafe\u0301']) {
      expect(await rateLimiter.consume({ key, limit: 1, windowMs: 1_000, now: 0 })).toMatchObject({
        allowed: true,
      });
    }
  });

  it('lets SQLite checkpoint its WAL under sustained counting (the file does not grow without end)', async () => {
    // A write statement that is not stepped to its end (better-sqlite3's `.get()` on a RETURNING upsert)
    // never runs SQLite's automatic checkpoint: each count then appended a page to the WAL for ever.
    const { rateLimiter } = await open();
    for (let index = 0; index < 3_000; index += 1) {
      await rateLimiter.consume({ key: `k${index % 10}`, limit: 1_000_000, windowMs: 60_000, now: 0 });
    }
    // The automatic checkpoint restarts the WAL after about 1 000 pages (4 MiB with 4 KiB pages).
    expect(statSync(`${database.path}-wal`).size).toBeLessThan(8 * 1024 * 1024);
  });
});
