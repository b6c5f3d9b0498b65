import { DEFAULT_LEASE_POLICY } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { createPool } from '../src/pool.js';
import { TAKE_SQL } from '../src/rate-limiter.js';
import { useStores } from './support/fixtures.js';
import { adminQuery, skipPostgres, TEST_DATABASE_URL } from './support/pg-available.js';

describe.skipIf(skipPostgres)('postgres rate limiter', () => {
  const { open, newSchema } = useStores();

  it('opens a window at the first request and counts down to a refusal', async () => {
    const { rateLimiter } = await open();
    const consume = (now: number) => rateLimiter.consume({ key: 'k', limit: 2, windowMs: 1000, now });
    await expect(consume(5_000)).resolves.toEqual({ allowed: true, used: 1, remaining: 1, resetAt: 6_000 });
    await expect(consume(5_500)).resolves.toEqual({ allowed: true, used: 2, remaining: 0, resetAt: 6_000 });
    await expect(consume(5_999)).resolves.toEqual({ allowed: false, used: 2, remaining: 0, resetAt: 6_000 });
    // At the window's end exactly a new one opens.
    await expect(consume(6_000)).resolves.toEqual({ allowed: true, used: 1, remaining: 1, resetAt: 7_000 });
  });

  it('does not count refused requests', async () => {
    const { rateLimiter } = await open();
    const consume = (now: number) => rateLimiter.consume({ key: 'k', limit: 1, windowMs: 1000, now });
    await consume(0);
    for (let i = 0; i < 5; i++)
      await expect(consume(10 + i)).resolves.toMatchObject({ allowed: false, used: 1 });
    await expect(consume(1_000)).resolves.toEqual({ allowed: true, used: 1, remaining: 0, resetAt: 2_000 });
  });

  it('keeps keys apart', async () => {
    const { rateLimiter } = await open();
    await rateLimiter.consume({ key: 'a', limit: 1, windowMs: 1000, now: 0 });
    await expect(rateLimiter.consume({ key: 'b', limit: 1, windowMs: 1000, now: 0 })).resolves.toMatchObject({
      allowed: true,
    });
  });

  it('refuses everything with a limit of zero and counts nothing', async () => {
    const { rateLimiter } = await open();
    await expect(rateLimiter.consume({ key: 'z', limit: 0, windowMs: 1000, now: 10 })).resolves.toEqual({
      allowed: false,
      used: 0,
      remaining: 0,
      resetAt: 1_010,
    });
    await expect(rateLimiter.consume({ key: 'z', limit: 1, windowMs: 1000, now: 20 })).resolves.toMatchObject(
      {
        allowed: true,
        used: 1,
      },
    );
  });

  it('never lets two stores on one database exceed the limit together', async () => {
    const schema = await newSchema();
    const one = await open({ schema, poolMax: 4 });
    const two = await open({ schema, poolMax: 4 });
    const limit = 25;
    const attempts = Array.from({ length: 80 }, (_, i) =>
      (i % 2 === 0 ? one : two).rateLimiter.consume({ key: 'shared', limit, windowMs: 60_000, now: 1_000 }),
    );
    const decisions = await Promise.all(attempts);
    const allowed = decisions.filter((d) => d.allowed);
    expect(allowed).toHaveLength(limit);
    expect(allowed.map((d) => d.used).sort((a, b) => a - b)).toEqual(
      Array.from({ length: limit }, (_, i) => i + 1),
    );
    expect(decisions.filter((d) => !d.allowed).every((d) => d.used === limit && d.remaining === 0)).toBe(
      true,
    );
    const { rows } = await adminQuery<{ used: number }>(
      `SELECT used FROM ${schema}.rate_limits WHERE key = 'shared'`,
    );
    expect(rows).toEqual([{ used: limit }]);
  });

  it('rejects nonsensical arguments', async () => {
    const { rateLimiter } = await open();
    await expect(rateLimiter.consume({ key: 'k', limit: 1.5, windowMs: 1000, now: 0 })).rejects.toThrow(
      RangeError,
    );
    await expect(rateLimiter.consume({ key: 'k', limit: 1, windowMs: 0, now: 0 })).rejects.toThrow(
      RangeError,
    );
  });
});

describe.skipIf(skipPostgres)('postgres rate limiter leases between two stores', () => {
  const { open, newSchema } = useStores();
  const limit = 10_000;
  const HOUR = 3_600_000;
  type Store = Awaited<ReturnType<typeof open>>;
  const consume = (store: Store) => store.rateLimiter.consume({ key: 'k', limit, windowMs: HOUR, now: 0 });
  const drain = async (store: Store) => {
    let allowed = 0;
    while ((await consume(store)).allowed) allowed += 1;
    return allowed;
  };
  const count = async (schema: string) =>
    (await adminQuery<{ used: number }>(`SELECT used FROM ${schema}.rate_limits WHERE key = 'k'`)).rows[0]
      ?.used;

  it('takes one block per maxLease requests, refuses at most one block early, and gets it back at close', async () => {
    const schema = await newSchema();
    // Idle blocks go back after an hour here, not a second: on a loaded machine the drain below can
    // outlast the default's second, and `first` would rightly return its block in the middle of it.
    const leases = { ...DEFAULT_LEASE_POLICY, idleReturnMs: HOUR };
    const [first, second] = [
      await open({ schema, rateLimitLeases: leases }),
      await open({ schema, rateLimitLeases: leases }),
    ];
    for (let i = 0; i < 10; i += 1) await consume(first);
    // One shared write for ten requests: the block of maxLease units.
    expect(await count(schema)).toBe(DEFAULT_LEASE_POLICY.maxLease);
    const held = DEFAULT_LEASE_POLICY.maxLease - 10;
    expect(await drain(second)).toBe(limit - 10 - held);
    await first.close();
    expect(await count(schema)).toBe(limit - held);
    expect(await drain(second)).toBe(held);
    expect(await count(schema)).toBe(limit);
  });

  it('falls back to one unit when a block no longer fits, so that the budget is spent to the last unit', async () => {
    const schema = await newSchema();
    const store = await open({ schema });
    await consume(store); // a block of maxLease units: 1 spent, the rest held
    // Other instances take all but 5 units meanwhile; this store's next block (sized from its stale view)
    // no longer fits, and only single units do.
    await adminQuery(`UPDATE ${schema}.rate_limits SET used = ${limit - 5} WHERE key = 'k'`);
    expect(await drain(store)).toBe(DEFAULT_LEASE_POLICY.maxLease - 1 + 5);
    expect(await count(schema)).toBe(limit);
  });
});

describe.skipIf(skipPostgres)('postgres rate limiter commit', () => {
  const { open, newSchema } = useStores();

  it('turns synchronous_commit off for its own transaction only', async () => {
    const schema = await newSchema();
    await open({ schema });
    const { pool } = createPool({
      connectionString: TEST_DATABASE_URL,
      schema,
      poolMax: 1,
      connectTimeoutMs: 2_000,
      statementTimeoutMs: 2_000,
      idleInTransactionTimeoutMs: 2_000,
    });
    const client = await pool.connect();
    const setting = async () =>
      (await client.query<{ s: string }>(`SELECT current_setting('synchronous_commit') AS s`)).rows[0]?.s;
    try {
      await client.query('BEGIN');
      await client.query(TAKE_SQL, ['k', 0, 1000, 1, 1]);
      expect(await setting()).toBe('off');
      await client.query('COMMIT');
      expect(await setting()).toBe('on');
    } finally {
      client.release();
      await pool.end();
    }
  });
});
