import { randomBytes } from 'node:crypto';
import { describe, type ExpectStatic, it } from 'vitest';
import { type Receiver, startReceiver } from '../webhooks/receiver.js';
import { CrashViolation, runCrashLoop, summary } from './support/crash-loop.js';
import { postgresS3Pair, Resources, type StorePair, skipPostgres, sqliteFsPair } from './support/pairs.js';
import { createCrashWebhook, type HookState, verifyDeliveries } from './support/webhook-checks.js';

/**
 * Webhooks under SIGKILL (extensions §7, issue 24): the real server, its outbox (`change_events`) and
 * its delivery engine, under the crash suite's workload (uploads, edits, moves, deletes, changesets,
 * trash, history), killed mid-load and therefore mid-delivery, and restarted. The receiver answers 500
 * in short windows, so retries happen too; `MDSTORE_WEBHOOK_TIME_SCALE=0.05` brings the retry schedule
 * (250 ms, 15 s, …), the lease (3 s, what a killed instance leaves behind) and the sweep (1.5 s) into a
 * test's time. After the last restart, once delivery has caught up, the feed (`GET /api/changes`) is
 * the record: every event after the webhook's creation delivered at least once, first deliveries in
 * `seq` order, one `webhook-id` per event and a valid signature on every attempt. The crash loop's own
 * verification (verify-changes.ts) has checked at each restart that every acknowledged write is in the
 * feed; here each acknowledged version's ETag is also found among the deliveries.
 */
const KILLS = Number(process.env.MDSTORE_CRASH_WEBHOOK_KILLS ?? 6);
const BUDGET_MS = 35_000;
const MAX_FILE_BYTES = 262_144;
const SEED = Number(process.env.MDSTORE_CRASH_SEED ?? randomBytes(4).readUInt32BE());

if (!Number.isSafeInteger(KILLS) || KILLS < 1)
  throw new Error('MDSTORE_CRASH_WEBHOOK_KILLS must be a whole number');

/** 500 for 150 ms every 2 s: the first retry (250 ms later) falls outside the window. */
function failInWindows(receiver: Receiver): { failed: () => number; accepted: Set<string> } {
  let failed = 0;
  const accepted = new Set<string>();
  receiver.answer = (res, request) => {
    if (Date.now() % 2_000 < 150) {
      failed++;
      res.writeHead(500).end('down for a moment');
      return;
    }
    // A short wait, so that a kill often lands while an attempt is in flight.
    setTimeout(() => {
      accepted.add(String(request.headers['webhook-id']));
      res.writeHead(200).end('ok');
    }, 5);
  };
  return { failed: () => failed, accepted };
}

async function crashWithWebhook(expect: ExpectStatic, resources: Resources, pair: StorePair): Promise<void> {
  const began = Date.now();
  const receiver = await startReceiver();
  resources.onDispose(() => receiver.close());
  const failures = failInWindows(receiver);
  const hook: HookState = { webhook: undefined };
  try {
    const stats = await runCrashLoop({
      env: { ...pair.env, MDSTORE_WEBHOOK_ALLOW_PRIVATE: 'true', MDSTORE_WEBHOOK_TIME_SCALE: '0.05' },
      inspector: pair.inspector,
      maxFileBytes: MAX_FILE_BYTES,
      kills: KILLS,
      budgetMs: BUDGET_MS,
      seed: SEED,
      workers: 4,
      children: resources.children,
      onFirstStart: async (server) => {
        hook.webhook = await createCrashWebhook(server, `${receiver.url}/hook`);
      },
      beforeLastStop: async (server, model) => {
        const report = await verifyDeliveries(expect, server, model, hook, receiver, failures.accepted);
        console.log(
          `[crash] ${pair.name} webhooks: ${report.events} events delivered (${report.requests} requests, ` +
            `${report.repeated} events delivered more than once, ${failures.failed()} answered 500), ` +
            `caught up ${(report.catchUpMs / 1000).toFixed(1)} s after the last restart`,
        );
        expect(failures.failed()).toBeGreaterThan(0);
      },
    });
    console.log(summary(pair.name, SEED, stats, Date.now() - began));
    expect(stats.kills).toBeGreaterThan(0);
  } catch (error) {
    if (error instanceof CrashViolation) expect.fail(error.message);
    throw error;
  } finally {
    pair.inspector.close();
    await resources.dispose();
  }
}

describe.concurrent('webhooks through SIGKILLs', () => {
  it(`sqlite + fs: every committed change delivered at least once, in order, through ${KILLS} kills`, {
    timeout: 120_000,
  }, async ({ expect }) => {
    const resources = new Resources();
    await crashWithWebhook(expect, resources, await sqliteFsPair(resources, MAX_FILE_BYTES));
  });

  it.skipIf(skipPostgres)(
    `postgres + s3: every committed change delivered at least once, in order, through ${KILLS} kills`,
    { timeout: 120_000 },
    async ({ expect }) => {
      const resources = new Resources();
      await crashWithWebhook(expect, resources, await postgresS3Pair(resources, MAX_FILE_BYTES));
    },
  );
});
