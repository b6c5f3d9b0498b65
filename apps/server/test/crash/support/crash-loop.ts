import { json, request } from './http-client.js';
import { type Model, newCycle, newStats, type Stats } from './model.js';
import { createRandom, sleep } from './random.js';
import { type LogRecord, runCli, type ServerChild, startServerChild } from './server-process.js';
import type { StoreInspector } from './store-inspection.js';
import { expireSomeTrash } from './trash.js';
import { verifyAfterRestart } from './verify.js';
import { runWorker } from './workload.js';

export interface CrashLoopOptions {
  /** The server's whole environment (the stores under test included). */
  readonly env: Record<string, string>;
  readonly inspector: StoreInspector;
  readonly maxFileBytes: number;
  /** Kills of a server under load to perform... */
  readonly kills: number;
  /** ...unless this much time has gone by first. */
  readonly budgetMs: number;
  readonly seed: number;
  readonly workers: number;
  /** Counts, instead of failing on, the 500 of the fs store's known put-vs-deleteBucket race. */
  /** Every child started, so the test can kill what a failure leaves running. */
  readonly children: Set<ServerChild>;
  /** Runs once the first server is up, before any load (e.g. creates a webhook). */
  readonly onFirstStart?: (server: { url: string; apiKey: string }) => Promise<void>;
  /** Runs after the load's random delay, right before the kill (e.g. waits for a webhook attempt in flight). */
  readonly beforeKill?: () => Promise<void>;
  /** Runs on the last server, after its verification and before its SIGTERM (e.g. checks deliveries). */
  readonly beforeLastStop?: (server: { url: string; apiKey: string }, model: Model) => Promise<void>;
}

export class CrashViolation extends Error {}

/**
 * Start, verify, load, SIGKILL, again: each cycle starts the server, waits for its start-up
 * reconciliation, checks every promise against what the client was told, runs random writes from
 * several workers and kills the process at a random moment. Sometimes the next start-up is itself killed
 * half-way (while it reconciles). Ends with a last verified start and a clean SIGTERM.
 */
export async function runCrashLoop(o: CrashLoopOptions): Promise<Stats> {
  const random = createRandom(o.seed);
  const stats = newStats();
  const account = await runCli(['accounts', 'create', '--name', 'crash'], o.env);
  const model: Model = { apiKey: String(account.api_key), active: new Map(), deleted: new Map() };
  let cycle = newCycle();
  let server = await start(o, stats);
  await registerDefaultProject(server.url, model, String(account.default_project_id));
  await o.onFirstStart?.({ url: server.url, apiKey: model.apiKey });
  const began = Date.now();
  for (;;) {
    await check(o, server, model, cycle, stats);
    if (stats.kills >= o.kills || Date.now() - began > o.budgetMs) break;
    cycle = newCycle();
    let killed = false;
    const ctx = {
      baseUrl: server.url,
      model,
      cycle,
      stats,
      random,
      maxFileBytes: o.maxFileBytes,
    };
    const workers = Array.from({ length: o.workers }, () => runWorker({ ...ctx, killed: () => killed }));
    // Mostly mid-load; sometimes right at the first requests.
    await sleep(random.chance(0.15) ? random.int(0, 60) : random.int(60, 1500));
    await o.beforeKill?.();
    killed = true;
    server.child.kill('SIGKILL');
    await server.child.exited;
    stats.kills++;
    await Promise.all(workers);
    if (cycle.violations.length > 0) {
      throw new CrashViolation(
        `${o.inspector.name}, seed ${o.seed}, while the server was up:\n${cycle.violations.slice(0, 10).join('\n')}` +
          `\nits stderr:\n${server.child.stderr.slice(-20).join('\n')}`,
      );
    }
    // Expiry (extensions §5) happens in the start-up reconciliation, which may itself be killed below.
    stats.trashExpired += await expireSomeTrash(
      o.inspector,
      model.active.values(),
      random,
      cycle.inFlightTrashIds,
    );
    if (random.chance(0.2)) await killDuringStartUp(o, random.int(150, 1100), stats);
    server = await start(o, stats);
  }
  await o.beforeLastStop?.({ url: server.url, apiKey: model.apiKey }, model);
  server.child.kill('SIGTERM');
  const code = await server.child.exited;
  if (code !== 0) throw new CrashViolation(`the last server exited ${code} on SIGTERM`);
  return stats;
}

interface Started {
  readonly child: ServerChild;
  readonly url: string;
  readonly instanceId: string;
}

async function start(o: CrashLoopOptions, stats: Stats): Promise<Started> {
  const child = startServerChild(o.env);
  o.children.add(child);
  void child.exited.then(() => o.children.delete(child));
  const report: LogRecord = await child.logLine(/^reconciliation finished$/);
  const ready = await child.logLine(/^mdstore listening on /);
  stats.cycles++;
  stats.checks++;
  if (report.failures !== 0)
    throw new CrashViolation(`start-up reconciliation failed: ${JSON.stringify(report)}`);
  stats.intentsResolved += Number(report.intentsResolved);
  stats.resourcesRemoved += Number(report.resourcesRemoved);
  stats.deletionsCompleted += Number(report.deletionsCompleted);
  return { child, url: String(ready.url), instanceId: String(ready.instanceId) };
}

/** Kills a start-up after `delayMs`, wherever it is: opening stores, reconciling, or already serving. */
async function killDuringStartUp(o: CrashLoopOptions, delayMs: number, stats: Stats): Promise<void> {
  const child = startServerChild(o.env);
  o.children.add(child);
  await sleep(delayMs);
  child.kill('SIGKILL');
  await child.exited;
  o.children.delete(child);
  stats.startupKills++;
}

async function registerDefaultProject(baseUrl: string, model: Model, id: string): Promise<void> {
  const reply = await request(baseUrl, {
    method: 'GET',
    path: `/api/projects/${id}`,
    headers: { authorization: `Bearer ${model.apiKey}` },
  });
  const view = json(reply) as { name: string; bucket_name: string };
  model.active.set(id, { id, name: view.name, bucket: view.bucket_name, isDefault: true, files: new Map() });
}

async function check(
  o: CrashLoopOptions,
  server: Started,
  model: Model,
  cycle: ReturnType<typeof newCycle>,
  stats: Stats,
): Promise<void> {
  const violations = [
    ...cycle.violations,
    ...(await verifyAfterRestart({
      baseUrl: server.url,
      model,
      cycle,
      stats,
      instanceId: server.instanceId,
      snapshot: () => o.inspector.snapshot(),
    })),
  ];
  if (violations.length > 0) {
    throw new CrashViolation(
      `${o.inspector.name}, seed ${o.seed}, after ${stats.kills} kills:\n${violations.slice(0, 20).join('\n')}`,
    );
  }
}

/** The lines the lead quotes. */
export function summary(name: string, seed: number, stats: Stats, elapsedMs: number): string {
  const list = (counts: Record<string, number>) =>
    Object.entries(counts)
      .map(([kind, count]) => `${kind} ${count}`)
      .join(', ') || 'none';
  return [
    `[crash] ${name}: ${stats.kills} kills under load + ${stats.startupKills} kills during start-up, ` +
      `${stats.cycles} verified restarts, seed ${seed}, ${(elapsedMs / 1000).toFixed(1)} s`,
    `[crash]   acknowledged writes: ${list(stats.acknowledged)}; refused (project being deleted): ${stats.rejected}`,
    `[crash]   in flight at a kill: ${list(stats.inFlight)}; after restart landed whole ${stats.inFlightLanded}, ` +
      `absent ${stats.inFlightNotLanded}`,
    `[crash]   read-after-write checks during the load: ${stats.readBacks}; kept revisions checked: ${stats.revisionsVerified}`,
    `[crash]   verified: ${stats.filesVerified} file reads (${stats.bytesVerified} bytes) byte for byte, ` +
      `${stats.blobsVerified} blobs against records, ${stats.projectsVerified} project states; ${stats.checks} checks`,
    `[crash]   start-up reconciliation: ${stats.intentsResolved} intents resolved, ` +
      `${stats.resourcesRemoved} resources removed, ${stats.deletionsCompleted} deletions completed`,
    `[crash]   change feed: ${stats.changeEventsVerified} events read across restarts, every committed version announced`,
    `[crash]   trash: ${stats.trashVerified} items verified after restarts, ${stats.trashExpired} made expired ` +
      'and purged by start-up reconciliation',
    `[crash]   attachments: ${stats.attachmentsVerified} read back after restarts, byte for byte`,
  ].join('\n');
}
