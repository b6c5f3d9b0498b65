import type { BlobIntentRecord, InstanceRecord } from '../model/records.js';
import { expireAudit } from './audit.js';
import { claimStaged, removeResource } from './blob-intents.js';
import { expireChanges } from './changes/list.js';
import type { MdStoreContext } from './context.js';
import { finishProjectDeletion } from './projects.js';
import { expireTrash } from './trash/expire.js';

export interface ReconcileReport {
  /** Abandoned notes resolved, and how many of their resources were removed. */
  readonly intentsResolved: number;
  readonly resourcesRemoved: number;
  /** Interrupted project deletions brought to their end. */
  readonly deletionsCompleted: number;
  /** Trash items past their `expiresAt` purged by this run (extensions §5). */
  readonly trashItemsExpired: number;
  /** Audit entries older than `auditRetentionDays` removed by this run (extensions §8). */
  readonly auditEntriesExpired: number;
  /** Change events older than `changesRetentionDays` removed by this run (extensions §7). */
  readonly changeEventsExpired: number;
  /** Notes left alone because their write may still be in progress. */
  readonly intentsInProgress: number;
  /** Resources whose removal failed this time (their notes stay for the next run). */
  readonly failures: number;
}

const BATCH = 500;

/** Records this process as a running instance; repeated as a heartbeat. */
export async function heartbeat(ctx: MdStoreContext, startedAt: number): Promise<void> {
  const probe = ctx.probe;
  const instance: InstanceRecord = {
    id: ctx.instanceId,
    hostname: probe?.hostname ?? 'unknown',
    pid: probe?.pid ?? 0,
    startedAt,
    heartbeatAt: ctx.clock.now(),
  };
  await ctx.records.withTransaction((tx) => tx.upsertInstance({ instance }));
}

export async function unregisterInstance(ctx: MdStoreContext): Promise<void> {
  await ctx.records.withTransaction((tx) => tx.deleteInstance({ instanceId: ctx.instanceId }));
}

/** An instance is gone when its process is known to have ended or its heartbeat is too old. */
function goneInstances(ctx: MdStoreContext, instances: InstanceRecord[], now: number): Set<string> {
  const gone = new Set<string>();
  for (const instance of instances) {
    if (instance.id === ctx.instanceId) continue;
    const running = ctx.probe?.isRunning(instance);
    if (running === false || instance.heartbeatAt + ctx.settings.instanceLeaseMs < now) gone.add(instance.id);
  }
  return gone;
}

/**
 * Brings the stores back to agreement after crashes: resources noted as staged by writes that can no
 * longer finish are removed unless a record points to them, doomed ones are removed, and interrupted
 * project deletions are completed. Records are never deleted (but for expired trash items, purged first
 * so that their blob notes are resolved by the same run), and writes that may still be running (their
 * instance lives and their deadline has not passed) are left alone.
 */
export async function reconcile(ctx: MdStoreContext): Promise<ReconcileReport> {
  const now = ctx.clock.now();
  const instances = await ctx.records.listInstances();
  const gone = goneInstances(ctx, instances, now);
  const expiry = await expireTrash(ctx);
  const auditEntriesExpired = await expireAudit(ctx);
  const changeEventsExpired = await expireChanges(ctx, ctx.settings.changesRetentionDays);
  const report = {
    auditEntriesExpired,
    changeEventsExpired,
    intentsResolved: 0,
    resourcesRemoved: 0,
    deletionsCompleted: 0,
    trashItemsExpired: expiry.purged,
    intentsInProgress: 0,
    failures: expiry.failures,
  };
  const isAbandoned = (intent: BlobIntentRecord) =>
    intent.kind === 'doomed' || intent.expiresAt <= now || gone.has(intent.ownerInstanceId);

  let afterId: string | undefined;
  for (;;) {
    const batch = await ctx.records.listBlobIntents({ limit: BATCH, afterId });
    if (batch.length === 0) break;
    afterId = batch[batch.length - 1]!.id;
    for (const intent of batch) {
      if (!isAbandoned(intent)) {
        report.intentsInProgress++;
        continue;
      }
      const outcome = await resolveIntent(ctx, intent);
      if (outcome === 'failed') report.failures++;
      else {
        report.intentsResolved++;
        if (outcome === 'removed') report.resourcesRemoved++;
      }
    }
  }
  for (const project of await ctx.records.listProjectsByStatus({ status: 'deleting' })) {
    try {
      await finishProjectDeletion(ctx, project);
      report.deletionsCompleted++;
    } catch {
      report.failures++;
    }
  }
  if (gone.size > 0) {
    await ctx.records.withTransaction(async (tx) => {
      for (const instanceId of gone) await tx.deleteInstance({ instanceId });
    });
  }
  return report;
}

/** A staged note is first claimed (see `claimStaged`); then the resource and the doomed note are removed. */
async function resolveIntent(
  ctx: MdStoreContext,
  intent: BlobIntentRecord,
): Promise<'removed' | 'kept' | 'failed'> {
  const doomed = intent.kind === 'doomed' ? intent : await claimStaged(ctx, intent);
  if (!doomed) return 'kept';
  try {
    if (!(await ctx.records.isBlobReferenced({ bucket: doomed.bucket, key: doomed.key }))) {
      await removeResource(ctx, doomed);
    }
    await ctx.records.withTransaction((tx) => tx.deleteBlobIntent({ intentId: doomed.id }));
    return 'removed';
  } catch {
    return 'failed';
  }
}
