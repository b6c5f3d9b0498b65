import { MdStoreError, StoreUnavailableError } from '../errors.js';
import type { BlobIntentRecord } from '../model/records.js';
import type { RecordsTransaction } from '../ports/records.js';
import type { MdStoreContext } from './context.js';

/** A blob-store resource: an object, or with `key` null a whole bucket. */
export interface BlobResource {
  readonly bucket: string;
  readonly key: string | null;
}

export async function removeResource(ctx: MdStoreContext, resource: BlobResource): Promise<void> {
  if (resource.key === null) await ctx.blobs.deleteBucket({ bucket: resource.bucket });
  else await ctx.blobs.delete({ bucket: resource.bucket, key: resource.key });
}

function newIntent(
  ctx: MdStoreContext,
  kind: BlobIntentRecord['kind'],
  resource: BlobResource,
): BlobIntentRecord {
  const now = ctx.clock.now();
  return {
    id: ctx.ids.uuid(),
    kind,
    bucket: resource.bucket,
    key: resource.key,
    ownerInstanceId: ctx.instanceId,
    createdAt: now,
    // A staged write cannot outlive its deadline; a doomed resource may be removed by anyone at once.
    expiresAt: kind === 'staged' ? now + ctx.settings.writeDeadlineMs : now,
  };
}

/**
 * The write path for anything that lives in the blob store and is pointed to by a record:
 * 1. note the new resource as `staged` (a tiny transaction),
 * 2. create it (blob I/O, no transaction open),
 * 3. commit the records that point to it and drop the note in one short transaction,
 * and on any failure remove the new resource again. A crash between the steps leaves the note behind
 * for reconciliation, which removes the resource unless a record points to it.
 */
export async function withStagedResource<Created, Result>(
  ctx: MdStoreContext,
  resource: BlobResource,
  create: (signal: AbortSignal) => Promise<Created>,
  commit: (tx: RecordsTransaction, created: Created) => Promise<Result>,
): Promise<Result> {
  const intent = newIntent(ctx, 'staged', resource);
  await ctx.records.withTransaction((tx) => tx.insertBlobIntent({ intent }));
  try {
    const created = await create(AbortSignal.timeout(ctx.settings.writeDeadlineMs));
    return await ctx.records.withTransaction(async (tx) => {
      const result = await commit(tx, created);
      // Reconciliation claims abandoned notes by deleting them; if ours is gone, so may be the resource.
      if (!(await tx.deleteBlobIntent({ intentId: intent.id }))) {
        throw new StoreUnavailableError('The write outlived its deadline and was reclaimed');
      }
      return result;
    });
  } catch (error) {
    await discardStaged(ctx, intent);
    throw error;
  }
}

/**
 * `withStagedResource` for several resources at once (a changeset's blob contents, extensions §9): one
 * transaction notes them all as staged, `create` writes them (no transaction open), and one commit
 * transaction commits the records and drops every note; on any failure every resource is removed again
 * (each note claimed first, as for one). A crash leaves the notes for reconciliation.
 */
export async function withStagedResources<Created, Result>(
  ctx: MdStoreContext,
  resources: readonly BlobResource[],
  create: (signal: AbortSignal) => Promise<Created>,
  commit: (tx: RecordsTransaction, created: Created) => Promise<Result>,
): Promise<Result> {
  const staged = await stageResources(ctx, resources);
  try {
    const created = await create(AbortSignal.timeout(ctx.settings.writeDeadlineMs));
    return await ctx.records.withTransaction(async (tx) => {
      const result = await commit(tx, created);
      await staged.drop(tx);
      return result;
    });
  } catch (error) {
    await staged.discard();
    throw error;
  }
}

/** Resources noted as staged, for a commit that runs in a transaction of its own making. */
export interface StagedResources {
  /** Inside the commit transaction: drops every note (fails when reconciliation reclaimed one). */
  drop(tx: RecordsTransaction): Promise<void>;
  /** After a failure: removes every resource no record points to, and its note. */
  discard(): Promise<void>;
}

/**
 * Step 1 of the write path for resources whose commit is another use case's transaction (an import's
 * attachments join its changeset, extensions §10): one transaction notes them all as staged; the caller
 * writes them, calls `drop` inside the transaction that commits the records pointing to them, and
 * `discard` on any failure. A crash leaves the notes for reconciliation.
 */
export async function stageResources(
  ctx: MdStoreContext,
  resources: readonly BlobResource[],
): Promise<StagedResources> {
  const intents = resources.map((resource) => newIntent(ctx, 'staged', resource));
  await ctx.records.withTransaction(async (tx) => {
    for (const intent of intents) await tx.insertBlobIntent({ intent });
  });
  return {
    async drop(tx) {
      for (const intent of intents) {
        if (!(await tx.deleteBlobIntent({ intentId: intent.id }))) {
          throw new StoreUnavailableError('The write outlived its deadline and was reclaimed');
        }
      }
    },
    async discard() {
      for (const intent of intents) await discardStaged(ctx, intent);
    },
  };
}

/**
 * Undoes a staged write that failed. The note is claimed first: if it is already gone, the commit did
 * happen (only its acknowledgement was lost) or reconciliation took over, and the resource must stay.
 * If even the claim fails, the note stays behind for reconciliation, which checks references itself.
 */
async function discardStaged(ctx: MdStoreContext, intent: BlobIntentRecord): Promise<void> {
  try {
    const doomed = await claimStaged(ctx, intent);
    if (doomed) await removeDoomed(ctx, doomed);
  } catch (error) {
    ctx.events.warn('Could not discard a staged blob; reconciliation will remove it', {
      bucket: intent.bucket,
      key: intent.key,
      error: describe(error),
    });
  }
}

/**
 * Takes over a staged note: deletes it in a transaction (so a late commit of the same write fails
 * instead of pointing at a removed resource) and, when no record points to the resource, notes it as
 * doomed by this instance. Returns null when there is nothing to remove.
 */
export async function claimStaged(
  ctx: MdStoreContext,
  intent: BlobIntentRecord,
): Promise<BlobIntentRecord | null> {
  return ctx.records.withTransaction(async (tx) => {
    if (!(await tx.deleteBlobIntent({ intentId: intent.id }))) return null;
    if (await tx.isBlobReferenced({ bucket: intent.bucket, key: intent.key })) return null;
    return doomResource(ctx, tx, intent);
  });
}

/** Inside a transaction that stops referencing `resource`: note it as doomed, to be removed after commit. */
export async function doomResource(
  ctx: MdStoreContext,
  tx: RecordsTransaction,
  resource: BlobResource,
): Promise<BlobIntentRecord> {
  const intent = newIntent(ctx, 'doomed', resource);
  await tx.insertBlobIntent({ intent });
  return intent;
}

/** After the commit: remove a doomed resource and its note. A failure leaves both for reconciliation. */
export async function removeDoomed(ctx: MdStoreContext, intent: BlobIntentRecord): Promise<void> {
  try {
    await removeResource(ctx, intent);
    await ctx.records.withTransaction((tx) => tx.deleteBlobIntent({ intentId: intent.id }));
  } catch (error) {
    ctx.events.warn('Could not remove a replaced blob; reconciliation will remove it', {
      bucket: intent.bucket,
      key: intent.key,
      error: describe(error),
    });
  }
}

const describe = (error: unknown) =>
  error instanceof MdStoreError ? error.code : error instanceof Error ? error.message : String(error);
