// Micro-benchmark of the rate limiter's options, in process, on SQLite and PostgreSQL:
//   node --conditions=mdstore-source --import tsx bench/support/rate-limiter-options.ts [--quick] [--sqlite-only]
// Each "request" does the store work of an authenticated GET project: the key lookup, the account lookup,
// one `consume` and the project lookup, 10 requests in flight. The variants are measured in alternating
// rounds on the same database; each variant's median round is printed. See docs/performance.md.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import {
  type AccountRecord,
  createLeasedRateLimiter,
  DEFAULT_PROJECT_SETTINGS,
  type RateLimiter,
  type RecordsRepository,
  type SharedBudget,
} from '@mdstore/core';
import { openPostgresStore } from '@mdstore/postgres';
import pg from 'pg';
import { createPool } from '../../packages/postgres/src/pool.js';
import { createPostgresSharedBudget } from '../../packages/postgres/src/rate-limiter.js';
import {
  createWriteLockSignal,
  type Db,
  enableWal,
  openConnection,
  waitForWriteLockAsynchronously,
} from '../../packages/sqlite/src/connections.js';
import { applyMigrations } from '../../packages/sqlite/src/migrations.js';
import { createSqliteSharedBudget, RATE_LIMIT_MIGRATIONS } from '../../packages/sqlite/src/rate-limiter.js';
import { createSqliteRecords } from '../../packages/sqlite/src/records/repository.js';
import { runLoop } from '../lib/load.js';

const { values: flags } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, 'sqlite-only': { type: 'boolean', default: false } },
});
const ROUND_MS = flags.quick ? 300 : 1_500;
const ROUNDS = flags.quick ? 1 : 3;
const IN_FLIGHT = 10;
const LIMIT = 1_000_000_000;
const WINDOW_MS = 3_600_000;
const BUSY_TIMEOUT_MS = 5_000;

/** Today's limiter: one shared take of one unit per request, nothing held, no queueing in process. */
const perRequest = (shared: SharedBudget): RateLimiter => ({
  async consume(r) {
    const grant = await shared.take({ ...r, want: 1 });
    const allowed = grant.granted === 1;
    return {
      allowed,
      used: grant.used,
      remaining: allowed ? r.limit - grant.used : 0,
      resetAt: grant.resetAt,
    };
  },
  close: () => shared.close(),
});

const leased = (shared: SharedBudget, maxLease: number): RateLimiter =>
  createLeasedRateLimiter(shared, { maxLease, divisor: 64, idleReturnMs: 1_000 });

interface Variant {
  readonly name: string;
  readonly limiter: RateLimiter;
}

interface Fixture {
  readonly records: RecordsRepository;
  readonly keyHash: string;
  readonly accountId: string;
  readonly projectId: string;
}

/** One account with one key and one project, written through the records repository. */
async function seed(records: RecordsRepository): Promise<Fixture> {
  const account: AccountRecord = {
    id: randomUUID(),
    name: `rl-${randomUUID()}`,
    tier: 'standard',
    createdAt: 0,
  };
  const keyHash = randomBytes(32).toString('hex');
  const projectId = randomUUID();
  await records.withTransaction(async (tx) => {
    await tx.insertAccount({ account });
    await tx.insertApiKey({
      apiKey: {
        id: randomUUID(),
        accountId: account.id,
        keyHash,
        name: 'bench',
        role: 'admin',
        projectIds: null,
        pathPrefixes: null,
        expiresAt: null,
        createdAt: 0,
        revokedAt: null,
        lastUsedAt: null,
      },
    });
    await tx.insertProject({
      project: {
        id: projectId,
        accountId: account.id,
        name: 'bench',
        description: null,
        bucketName: `b-${projectId}`,
        isDefault: true,
        status: 'active',
        fileCount: 0,
        totalSizeBytes: 0,
        historySizeBytes: 0,
        trashSizeBytes: 0,
        attachmentCount: 0,
        attachmentBytes: 0,
        ...DEFAULT_PROJECT_SETTINGS,
        createdAt: 0,
        updatedAt: 0,
      },
    });
  });
  return { records, keyHash, accountId: account.id, projectId };
}

/** The store work of one GET project; `keys` spreads the requests over that many rate-limit keys. */
function request(fixture: Fixture, limiter: RateLimiter, prefix: string, keys: number) {
  return async (index: number) => {
    // A request arrives from a socket: one event-loop turn, so timers and group commits get their turn
    // as in a server (without it, loops of synchronous SQLite calls would starve every macrotask).
    await nextTurn();
    const key = await fixture.records.findApiKeyByHash({ keyHash: fixture.keyHash });
    const account = await fixture.records.findAccountById({ accountId: fixture.accountId });
    if (!key || !account) throw new Error('fixture missing');
    const decision = await limiter.consume({
      key: `${prefix}:${index % keys}`,
      limit: LIMIT,
      windowMs: WINDOW_MS,
      now: Date.now(),
    });
    if (!decision.allowed) throw new Error('refused');
    if (!(await fixture.records.findProjectById({ projectId: fixture.projectId })))
      throw new Error('no project');
  };
}

interface Workload {
  readonly name: string;
  readonly keys: number;
  readonly inFlight: number;
  /** Runs records write transactions next to the requests (uploads, metadata PUTs). */
  readonly writers: number;
  /** Only `consume`, no records reads. */
  readonly consumeOnly?: boolean;
}

const WORKLOADS: readonly Workload[] = [
  { name: 'GET project work, 1 key', keys: 1, inFlight: IN_FLIGHT, writers: 0 },
  { name: 'GET project work, 100 keys', keys: 100, inFlight: IN_FLIGHT, writers: 0 },
  { name: 'GET project work, 1 key, 2 records writers busy', keys: 1, inFlight: IN_FLIGHT, writers: 2 },
  // The limiter's own cost per call (no event-loop turn between calls).
  { name: 'consume alone, 1 key, 1 in flight', keys: 1, inFlight: 1, writers: 0, consumeOnly: true },
];

/** Closed loops of records write transactions until `stop()`; reports transactions per second. */
function startWriters(records: RecordsRepository, count: number) {
  let running = true;
  let done = 0;
  const started = performance.now();
  const loops = Array.from({ length: count }, async () => {
    while (running) {
      const account: AccountRecord = {
        id: randomUUID(),
        name: `w-${randomUUID()}`,
        tier: 'standard',
        createdAt: 0,
      };
      await records.withTransaction((tx) => tx.insertAccount({ account }));
      done += 1;
    }
  });
  return async () => {
    running = false;
    await Promise.all(loops);
    return done / ((performance.now() - started) / 1000);
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;

async function measure(fixture: Fixture, variants: readonly Variant[], workload: Workload) {
  const rates = variants.map(() => [] as number[]);
  const writes = variants.map(() => [] as number[]);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, variant] of variants.entries()) {
      const prefix = `${variant.name}:${workload.name}`;
      const work = workload.consumeOnly
        ? async () => {
            await variant.limiter.consume({
              key: prefix,
              limit: LIMIT,
              windowMs: WINDOW_MS,
              now: Date.now(),
            });
          }
        : request(fixture, variant.limiter, prefix, workload.keys);
      const stopWriters = workload.writers > 0 ? startWriters(fixture.records, workload.writers) : undefined;
      const result = await runLoop({ concurrency: workload.inFlight, durationMs: ROUND_MS, task: work });
      writes[index]!.push((await stopWriters?.()) ?? 0);
      rates[index]!.push(result.requestsPerSecond);
    }
  }
  for (const [index, variant] of variants.entries()) {
    const rate = median(rates[index]!);
    const perOp = workload.consumeOnly ? ` (${(1e6 / rate).toFixed(1)} µs each)` : '';
    const writers = workload.writers > 0 ? `, writer tx/s ${median(writes[index]!).toFixed(0)}` : '';
    console.log(`| ${workload.name} | ${variant.name} | ${rate.toFixed(0)}${perOp}${writers} |`);
  }
}

async function sqliteOptions(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mdstore-rl-bench-'));
  const recordsPath = path.join(dir, 'mdstore.db');
  const limiterPath = path.join(dir, 'limits.db');
  const connections: Db[] = [];
  const open = (file: string, synchronous: 'FULL' | 'NORMAL', readonly = false) => {
    const db = openConnection({ path: file, busyTimeoutMs: BUSY_TIMEOUT_MS, synchronous, readonly });
    connections.push(db);
    return db;
  };
  const writer = open(recordsPath, 'FULL');
  await enableWal(writer, BUSY_TIMEOUT_MS);
  await applyMigrations(writer, { busyTimeoutMs: BUSY_TIMEOUT_MS });
  waitForWriteLockAsynchronously(writer);
  const lockSignal = createWriteLockSignal();
  const records = createSqliteRecords({
    writer,
    reader: open(recordsPath, 'FULL', true),
    busyTimeoutMs: BUSY_TIMEOUT_MS,
    onPhysicalTransactionEnd: () => lockSignal.released(),
  });
  const ownFile = open(limiterPath, 'NORMAL');
  await enableWal(ownFile, BUSY_TIMEOUT_MS);
  await applyMigrations(ownFile, { busyTimeoutMs: BUSY_TIMEOUT_MS, migrations: RATE_LIMIT_MIGRATIONS });
  // Each variant gets its own limiter connection, on the records file (as today) or on its own file.
  const budget = (onRecordsFile: boolean): SharedBudget => {
    const db = open(onRecordsFile ? recordsPath : limiterPath, 'NORMAL');
    waitForWriteLockAsynchronously(db);
    return createSqliteSharedBudget({
      db,
      busyTimeoutMs: BUSY_TIMEOUT_MS,
      ...(onRecordsFile && { lockSignal }),
    });
  };
  const variants: Variant[] = [
    { name: 'per request, records file (before)', limiter: perRequest(budget(true)) },
    { name: 'per request, own file', limiter: perRequest(budget(false)) },
    { name: 'batching, own file', limiter: leased(budget(false), 1) },
    { name: 'leases ≤64, records file', limiter: leased(budget(true), 64) },
    { name: 'leases ≤16, own file', limiter: leased(budget(false), 16) },
    { name: 'leases ≤64, own file', limiter: leased(budget(false), 64) },
    { name: 'leases ≤256, own file', limiter: leased(budget(false), 256) },
  ];
  try {
    const fixture = await seed(records);
    console.log(
      '\n### SQLite (requests/s, median of rounds)\n\n| workload | variant | result |\n|---|---|---|',
    );
    for (const workload of WORKLOADS) await measure(fixture, variants, workload);
  } finally {
    for (const variant of variants) await variant.limiter.close().catch(() => undefined);
    await records.close();
    for (const db of connections) if (db.open) db.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function postgresOptions(): Promise<void> {
  const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/test' });
  await admin.connect();
  const schema = `rl_bench_${randomBytes(4).toString('hex')}`;
  const connectionString = 'postgres://postgres@127.0.0.1:5432/test';
  const store = await openPostgresStore({ connectionString, schema });
  const pools: pg.Pool[] = [];
  // Each variant has a pool of its own, as the limiter of a store shares the store's pool of 10.
  const budget = (): SharedBudget => {
    const { pool } = createPool({
      connectionString,
      schema,
      poolMax: 10,
      connectTimeoutMs: 5_000,
      statementTimeoutMs: 10_000,
      idleInTransactionTimeoutMs: 15_000,
    });
    pools.push(pool);
    return createPostgresSharedBudget({
      query: (text, values) => pool.query(text, values),
      close: async () => {},
    });
  };
  const variants: Variant[] = [
    { name: 'per request (before)', limiter: perRequest(budget()) },
    { name: 'batching', limiter: leased(budget(), 1) },
    { name: 'leases ≤16', limiter: leased(budget(), 16) },
    { name: 'leases ≤64', limiter: leased(budget(), 64) },
    { name: 'leases ≤256', limiter: leased(budget(), 256) },
  ];
  try {
    const fixture = await seed(store.records);
    console.log(
      '\n### PostgreSQL (requests/s, median of rounds)\n\n| workload | variant | result |\n|---|---|---|',
    );
    for (const workload of WORKLOADS) await measure(fixture, variants, workload);
  } finally {
    for (const variant of variants) await variant.limiter.close().catch(() => undefined);
    for (const pool of pools) await pool.end();
    await store.close();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }
}

await sqliteOptions();
if (!flags['sqlite-only']) await postgresOptions();
