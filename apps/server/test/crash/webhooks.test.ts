import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { describe, type ExpectStatic, it } from 'vitest';
import { type Receiver, startReceiver } from '../webhooks/receiver.js';
import { CrashViolation, runCrashLoop, summary } from './support/crash-loop.js';
import { postgresS3Pair, Resources, type StorePair, skipPostgres, sqliteFsPair } from './support/pairs.js';
import { sleep } from './support/random.js';
import { createCrashWebhook, type HookState, verifyDeliveries } from './support/webhook-checks.js';

/**
 * Webhooks under SIGKILL (extensions §7, issue 24): the real server, its outbox (`change_events`) and
 * its delivery engine, under the crash suite's workload (uploads, edits, moves, deletes, changesets,
 * trash, history), killed mid-load, mostly while an attempt is in flight, and restarted. The receiver
 * answers 500 to the first attempt of every third event, so retries happen too; `MDSTORE_WEBHOOK_TIME_SCALE=0.05` brings the retry schedule
 * (250 ms, 15 s, …), the lease (3 s, what a killed instance leaves behind) and the sweep (1.5 s) into a
 * test's time. After the last restart, once delivery has caught up, the feed (`GET /api/changes`) is
 * the record: every event after the webhook's creation delivered at least once, first deliveries in
 * `seq` order, one `webhook-id` per event and a valid signature on every attempt. The crash loop's own
 * verification (verify-changes.ts) has checked at each restart that every acknowledged write is in the
 * feed; here each acknowledged version's ETag is also found among the deliveries.
 */
const KILLS = Number(process.env.MDSTORE_CRASH_WEBHOOK_KILLS ?? 3);
const BUDGET_MS = 12_000;
const MAX_FILE_BYTES = 262_144;
const SEED = Number(process.env.MDSTORE_CRASH_SEED ?? randomBytes(4).readUInt32BE());

if (!Number.isSafeInteger(KILLS) || KILLS < 1)
  throw new Error('MDSTORE_CRASH_WEBHOOK_KILLS must be a whole number');

/**
 * The receiver's behaviour: the first attempt of every third event answers 500 (a retry 250 ms later);
 * the others are held 100 ms before their 200, so that a kill can land while an attempt is in flight.
 * An attempt held when the kill is decided never gets its answer (its connection is destroyed): the
 * killed sender cannot have seen it succeed, so the event must come again.
 */
function flakyReceiver(receiver: Receiver) {
  const state = { failed: 0, cut: 0, killsMidDelivery: 0, events: 0 };
  const accepted = new Set<string>();
  const seen = new Set<string>();
  /** Attempts waiting for their answer: webhook-id → doomed (a kill was decided meanwhile). */
  const held = new Map<ServerResponse, { id: string; doomed: boolean }>();
  /** Events with an attempt that failed or was cut: each must have been sent again. */
  const mustRepeat = new Set<string>();
  receiver.answer = (res, request) => {
    const id = String(request.headers['webhook-id']);
    const first = !seen.has(id);
    seen.add(id);
    state.events = seen.size;
    if (first && seen.size % 3 === 0) {
      state.failed++;
      mustRepeat.add(id);
      res.writeHead(500).end('down for a moment');
      return;
    }
    const attempt = { id, doomed: false };
    held.set(res, attempt);
    setTimeout(() => {
      held.delete(res);
      if (attempt.doomed) res.destroy();
      else {
        accepted.add(id);
        res.writeHead(200).end('ok');
      }
    }, 100);
  };
  /** Before a kill: waits (at most 3 s) for an attempt in flight, and dooms the ones in flight. */
  const beforeKill = async () => {
    const until = Date.now() + 3_000;
    while (held.size === 0 && Date.now() < until) await sleep(5);
    if (held.size > 0) state.killsMidDelivery++;
    for (const attempt of held.values()) {
      attempt.doomed = true;
      state.cut++;
      mustRepeat.add(attempt.id);
    }
  };
  return { state, accepted, mustRepeat, beforeKill };
}

async function crashWithWebhook(expect: ExpectStatic, resources: Resources, pair: StorePair): Promise<void> {
  const began = Date.now();
  const receiver = await startReceiver();
  resources.onDispose(() => receiver.close());
  const flaky = flakyReceiver(receiver);
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
      beforeKill: flaky.beforeKill,
      onFirstStart: async (server) => {
        hook.webhook = await createCrashWebhook(server, `${receiver.url}/hook`);
      },
      beforeLastStop: async (server, model) => {
        const report = await verifyDeliveries(expect, server, model, hook, receiver, flaky.accepted);
        console.log(
          `[crash] ${pair.name} webhooks: ${report.events} events delivered (${report.requests} requests; ` +
            `${report.repeated} events delivered more than once; ${flaky.state.failed} first attempts ` +
            `answered 500; ${flaky.state.cut} attempts cut by ${flaky.state.killsMidDelivery} kills), caught up ` +
            `${(report.catchUpMs / 1000).toFixed(1)} s after the last restart`,
        );
        // Retries happened, and every attempt a kill cut short was made again (with the same webhook-id).
        // The receiver fails the first attempt of every third event: on a machine so loaded that fewer
        // than three events were committed in the whole run there was none to fail.
        if (flaky.state.events >= 3) expect(flaky.state.failed).toBeGreaterThan(0);
        expect(flaky.state.cut).toBeGreaterThan(0);
        const sent = new Map<string, number>();
        for (const r of receiver.received) {
          const id = String(r.headers['webhook-id']);
          sent.set(id, (sent.get(id) ?? 0) + 1);
        }
        for (const id of flaky.mustRepeat)
          expect(sent.get(id), `attempts of ${id}`).toBeGreaterThanOrEqual(2);
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
