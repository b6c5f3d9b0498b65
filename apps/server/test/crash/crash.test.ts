import { randomBytes } from 'node:crypto';
import { describe, type ExpectStatic, it } from 'vitest';
import { CrashViolation, runCrashLoop, summary } from './support/crash-loop.js';
import { postgresS3Pair, Resources, type StorePair, skipPostgres, sqliteFsPair } from './support/pairs.js';

/**
 * The crash suite: what a 2xx promises must hold when the server process is SIGKILLed at any moment.
 * CI size: about 20 kills per store pair, bounded to ~90 s each. Full size: `MDSTORE_CRASH_FULL=1`
 * (200 kills per pair) or `MDSTORE_CRASH_KILLS=<n>`, with no time bound. `MDSTORE_CRASH_SEED` replays
 * a run's workload choices (timing still varies). See docs/reliability.md.
 */
const FULL = process.env.MDSTORE_CRASH_KILLS !== undefined || process.env.MDSTORE_CRASH_FULL === '1';
const KILLS = FULL ? Number(process.env.MDSTORE_CRASH_KILLS ?? 200) : 20;
const BUDGET_MS = FULL ? Number.POSITIVE_INFINITY : 90_000;
const TIMEOUT_MS = FULL ? KILLS * 20_000 : 150_000;
const MAX_FILE_BYTES = 262_144;
const SEED = Number(process.env.MDSTORE_CRASH_SEED ?? randomBytes(4).readUInt32BE());

if (!Number.isSafeInteger(KILLS) || KILLS < 1) throw new Error('MDSTORE_CRASH_KILLS must be a whole number');

async function crash(expect: ExpectStatic, resources: Resources, pair: StorePair): Promise<void> {
  const began = Date.now();
  try {
    const stats = await runCrashLoop({
      env: pair.env,
      inspector: pair.inspector,
      maxFileBytes: MAX_FILE_BYTES,
      kills: KILLS,
      budgetMs: BUDGET_MS,
      seed: SEED,
      workers: 6,
      children: resources.children,
    });
    console.log(summary(pair.name, SEED, stats, Date.now() - began));
    expect(stats.kills).toBeGreaterThan(0);
    if (FULL) expect(stats.kills).toBeGreaterThanOrEqual(KILLS);
  } catch (error) {
    if (error instanceof CrashViolation) expect.fail(error.message);
    throw error;
  } finally {
    pair.inspector.close();
    await resources.dispose();
  }
}

// The two pairs share nothing, so they run side by side to keep the CI run short.
describe.concurrent('the crash suite', () => {
  it(`on sqlite + fs keeps every acknowledged write through ${KILLS} SIGKILLs`, {
    timeout: TIMEOUT_MS,
  }, async ({ expect }) => {
    const resources = new Resources();
    await crash(expect, resources, await sqliteFsPair(resources, MAX_FILE_BYTES));
  });

  it.skipIf(skipPostgres)(
    `on postgres + s3 keeps every acknowledged write through ${KILLS} SIGKILLs`,
    { timeout: TIMEOUT_MS },
    async ({ expect }) => {
      const resources = new Resources();
      await crash(expect, resources, await postgresS3Pair(resources, MAX_FILE_BYTES));
    },
  );
});
