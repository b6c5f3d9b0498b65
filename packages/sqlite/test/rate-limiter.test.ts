import { existsSync, statSync } from 'node:fs';
import { DEFAULT_LEASE_POLICY, type LeasePolicy } from '@mdstore/core';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore, type SqliteStoreOptions } from '../src/index.js';
import { tempDatabase } from './temp-db.js';

let database: Awaited<ReturnType<typeof tempDatabase>>;
let stores: SqliteStore[];
const open = async (options: Partial<SqliteStoreOptions> = {}) => {
  const store = await openSqliteStore({ path: database.path, ...options });
  stores.push(store);
  return store;
};
const limiterFile = () => `${database.path}.rate-limits`;
/** Every take is one unit: one shared write per request, as without leases. */
const NO_LEASES: LeasePolicy = { maxLease: 1, divisor: 1, idleReturnMs: 0 };
const HOUR = 3_600_000;

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
    const { rateLimiter } = await open({ rateLimitLeases: NO_LEASES });
    for (let index = 0; index < 3_000; index += 1) {
      await rateLimiter.consume({ key: `k${index % 10}`, limit: 1_000_000, windowMs: 60_000, now: 0 });
    }
    // The automatic checkpoint restarts the WAL after about 1 000 pages (4 MiB with 4 KiB pages).
    expect(statSync(`${limiterFile()}-wal`).size).toBeLessThan(8 * 1024 * 1024);
  });

  it('keeps the counts in a file of its own, with its own schema version; the records file is not written', async () => {
    const { rateLimiter } = await open();
    await rateLimiter.consume({ key: 'k', limit: 10, windowMs: 60_000, now: 0 });
    const records = new Database(database.path, { readonly: true });
    const limits = new Database(limiterFile(), { readonly: true });
    try {
      expect(records.prepare('SELECT count(*) AS n FROM rate_limits').get()).toEqual({ n: 0 });
      expect(limits.prepare('SELECT key, used FROM rate_limits').all()).toEqual([{ key: 'k', used: 1 }]);
      expect(limits.pragma('user_version', { simple: true })).toBe(1);
      expect(limits.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      records.close();
      limits.close();
    }
  });

  it('puts the counts where rateLimitPath says', async () => {
    const elsewhere = `${database.path}-elsewhere`;
    const { rateLimiter } = await open({ rateLimitPath: elsewhere });
    await rateLimiter.consume({ key: 'k', limit: 10, windowMs: 60_000, now: 0 });
    expect(existsSync(elsewhere)).toBe(true);
    expect(existsSync(limiterFile())).toBe(false);
  });

  it('does not wait for a write lock held on the records file', async () => {
    const { rateLimiter } = await open({ busyTimeoutMs: 200 });
    const holder = new Database(database.path);
    holder.exec('BEGIN IMMEDIATE');
    try {
      // Were it the records file's lock, the 200 ms busy timeout would end in an error, not an answer.
      await expect(
        rateLimiter.consume({ key: 'k', limit: 10, windowMs: 60_000, now: 0 }),
      ).resolves.toMatchObject({ allowed: true, used: 1 });
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
  });

  it('refuses a rate-limit file written by a newer schema', async () => {
    const newer = new Database(limiterFile());
    newer.pragma('user_version = 2');
    newer.close();
    await expect(openSqliteStore({ path: database.path })).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
    });
  });
});

describe('sqlite rate limiter leases between two stores on one file', () => {
  const limit = 10_000;
  const consume = (store: SqliteStore) =>
    store.rateLimiter.consume({ key: 'k', limit, windowMs: HOUR, now: 0 });
  /** Consumes through `store` until it is refused; returns how many were allowed. */
  const drain = async (store: SqliteStore) => {
    let allowed = 0;
    while ((await consume(store)).allowed) allowed += 1;
    return allowed;
  };

  it('refuses at most one block early while the other store holds units, and serves them once given back', async () => {
    const [first, second] = [await open(), await open()];
    for (let i = 0; i < 10; i += 1) await consume(first);
    const held = DEFAULT_LEASE_POLICY.maxLease - 10;
    // The first store took one block of maxLease units and holds what it has not spent.
    expect(await drain(second)).toBe(limit - 10 - held);
    await first.close();
    expect(await drain(second)).toBe(held);
    expect(await consume(second)).toEqual({ allowed: false, used: limit, remaining: 0, resetAt: HOUR });
  });

  it('gets back the units an idle store holds within two sweep intervals', async () => {
    const leases = { ...DEFAULT_LEASE_POLICY, idleReturnMs: 50 };
    const [first, second] = [
      await open({ rateLimitLeases: leases }),
      await open({ rateLimitLeases: leases }),
    ];
    await consume(first);
    expect(await drain(second)).toBe(limit - DEFAULT_LEASE_POLICY.maxLease);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await drain(second)).toBe(DEFAULT_LEASE_POLICY.maxLease - 1);
  });
});
