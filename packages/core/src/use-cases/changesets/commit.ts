import { isRecordConflict } from '../../errors.js';
import { giveTurn, LARGE_TEXT } from '../../markdown/work-budget.js';
import type { BlobIntentRecord, FileRecord, ProjectRecord } from '../../model/records.js';
import type { ByteStream } from '../../ports/blobs.js';
import type { RecordsTransaction } from '../../ports/records.js';
import { SEARCH_LIMITS } from '../../search/limits.js';
import type { Principal } from '../authentication.js';
import { removeDoomed, withStagedResources } from '../blob-intents.js';
import { type MdStoreContext, notBefore } from '../context.js';
import { putBlob, type StoredContent, searchFields } from '../files/content.js';
import { lockActiveProject, newContentKey, withCounterChange } from '../files/shared.js';
import {
  type ChangesetTag,
  createFileStep,
  deleteFileStep,
  reviseFileStep,
  type StepResult,
  sumCounters,
} from '../files/steps.js';
import { type ChangesetPlan, encodeText, operationFailed, type PlannedFile, StalePlan } from './plan.js';

/**
 * The commit of a planned changeset (extensions §9), by the write path's rules: every new content is
 * stored before the transaction (inline contents are buffered; blob contents are noted staged and
 * written), then ONE transaction locks the project, checks that the store still holds what the plan
 * read, applies the same per-file steps as the single writes (one revision per touched file, carrying
 * the changeset's id and message), moves the counters once for the net result and drops the staged
 * notes. On any failure every blob written is removed again; a crash leaves the notes to reconciliation.
 */

/** Blob contents of one changeset written at once (each is a whole content, at most `maxFileBytes`). */
const BLOB_WRITES_AT_ONCE = 4;

interface PreparedContent {
  readonly file: PlannedFile;
  readonly bytes: Uint8Array;
  readonly contentKey: string;
  readonly inline: boolean;
  readonly sha256: string;
  readonly search: Pick<StoredContent, 'searchText' | 'frontmatterJson'>;
}

/**
 * The content versions the commit writes: each new content encoded and hashed once, its form chosen by
 * its size. The contents are bounded (`maxFileBytes` × 4 of puts, edits within `maxFileBytes` each);
 * other requests get a turn after every megabyte worked on.
 */
export async function prepareContents(ctx: MdStoreContext, plan: ChangesetPlan): Promise<PreparedContent[]> {
  const prepared: PreparedContent[] = [];
  let sinceTurn = 0;
  for (const file of plan.files) {
    if (file.deleted || file.text === null) continue;
    sinceTurn += file.text.length;
    if (sinceTurn >= LARGE_TEXT) {
      sinceTurn = 0;
      await giveTurn();
    }
    const bytes = encodeText(file.text);
    const hash = ctx.hashing.sha256();
    hash.update(bytes);
    prepared.push({
      file,
      bytes,
      contentKey: newContentKey(ctx, file.fileId),
      inline: bytes.byteLength <= ctx.settings.inlineMaxBytes,
      sha256: hash.digestHex(),
      search: searchFields(file.text.slice(0, SEARCH_LIMITS.contentMaxBytes)),
    });
  }
  return prepared;
}

async function* oneChunk(bytes: Uint8Array): ByteStream {
  yield bytes;
}

export interface CommittedChangeset {
  readonly project: ProjectRecord;
  /** The record each planned file ends as (absent: deleted). */
  readonly records: ReadonlyMap<PlannedFile, FileRecord>;
}

export async function commitChangeset(
  ctx: MdStoreContext,
  o: { principal: Principal; plan: ChangesetPlan; changeset: ChangesetTag; signal?: AbortSignal },
): Promise<CommittedChangeset> {
  const { plan } = o;
  const project = plan.project;
  const contents = await prepareContents(ctx, plan);
  const blobs = contents.filter((content) => !content.inline);
  const commit = async (tx: RecordsTransaction, stored: ReadonlyMap<PlannedFile, StoredContent>) => {
    for (const content of contents) {
      if (content.inline) {
        await tx.insertInlineContent({
          projectId: project.id,
          contentKey: content.contentKey,
          bytes: content.bytes,
        });
      }
    }
    return applyPlan(ctx, tx, { ...o, stored });
  };
  const storedOf = (sizes: ReadonlyMap<PreparedContent, { sizeBytes: number; sha256: string }>) =>
    new Map(
      contents.map((content) => {
        const blob = sizes.get(content);
        const version: StoredContent = {
          contentKey: content.contentKey,
          inline: content.inline,
          sizeBytes: blob?.sizeBytes ?? content.bytes.byteLength,
          sha256: blob?.sha256 ?? content.sha256,
          ...content.search,
        };
        return [content.file, version] as const;
      }),
    );
  let done: { committed: CommittedChangeset; doomed: readonly BlobIntentRecord[] };
  try {
    done =
      blobs.length === 0
        ? await ctx.records.withTransaction((tx) => commit(tx, storedOf(new Map())))
        : await withStagedResources(
            ctx,
            blobs.map((content) => ({ bucket: project.bucketName, key: content.contentKey })),
            (deadline) => writeBlobs(ctx, project, blobs, [o.signal, deadline]),
            (tx, written) => commit(tx, storedOf(written)),
          );
  } catch (error) {
    // Another write took a name the plan found free: plan again (it then answers as it should).
    if (isRecordConflict(error, 'filename')) throw new StalePlan();
    throw error;
  }
  for (const intent of done.doomed) await removeDoomed(ctx, intent);
  return done.committed;
}

type WrittenBlobs = Map<PreparedContent, { sizeBytes: number; sha256: string }>;

/**
 * Writes the blob contents, a few at once: many small blobs are bound by round trips, not by bytes.
 * After a failure no new write starts, and every write under way is waited for before the failure is
 * thrown: compensation must not run while a blob may still be landing.
 */
async function writeBlobs(
  ctx: MdStoreContext,
  project: ProjectRecord,
  blobs: readonly PreparedContent[],
  signals: readonly (AbortSignal | undefined)[],
): Promise<WrittenBlobs> {
  const written: WrittenBlobs = new Map();
  let next = 0;
  let failed = false;
  const writer = async () => {
    while (next < blobs.length && !failed) {
      const content = blobs[next++]!;
      try {
        const stream = oneChunk(content.bytes);
        written.set(content, await putBlob(ctx, project, content.contentKey, stream, signals));
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const writers = Array.from({ length: Math.min(BLOB_WRITES_AT_ONCE, blobs.length) }, writer);
  const failure = (await Promise.allSettled(writers)).find((result) => result.status === 'rejected');
  if (failure) throw failure.reason;
  return written;
}

/** Inside the commit transaction: the plan's per-file steps, and the counters once. */
async function applyPlan(
  ctx: MdStoreContext,
  tx: RecordsTransaction,
  o: {
    principal: Principal;
    plan: ChangesetPlan;
    changeset: ChangesetTag;
    stored: ReadonlyMap<PlannedFile, StoredContent>;
  },
): Promise<{ committed: CommittedChangeset; doomed: BlobIntentRecord[] }> {
  const { plan, changeset } = o;
  const locked = await lockActiveProject(tx, o.principal, plan.project.id);
  // The plan judged the operations against these files: they must still be exactly these (one read).
  const names = [...plan.seen.keys()];
  const found = await tx.findFiles({ projectId: locked.id, filenames: names });
  const byName = new Map(found.map((file) => [file.filename, file]));
  const current = new Map<string, FileRecord>();
  for (const [filename, seen] of plan.seen) {
    const now = byName.get(filename) ?? null;
    if ((now === null) !== (seen === null)) throw new StalePlan();
    if (now && seen && (now.id !== seen.id || now.revision !== seen.revision)) throw new StalePlan();
    if (now) current.set(now.id, now);
  }
  if (locked.requireIfMatch !== plan.project.requireIfMatch) throw new StalePlan();
  const at = notBefore(ctx.clock.now(), locked.updatedAt);
  const steps: StepResult[] = [];
  const records = new Map<PlannedFile, FileRecord>();
  const existing = plan.files.filter((file) => file.origin !== null);
  // Deletes first (they free names), then the changed files (renames ordered so that no two files ever
  // hold one name), then the new files.
  for (const file of existing.filter((f) => f.deleted)) {
    steps.push(
      await deleteFileStep(ctx, tx, { project: locked, file: current.get(file.fileId)!, at, changeset }),
    );
  }
  const pending = existing.filter((f) => !f.deleted);
  while (pending.length > 0) {
    const holders = new Set(pending.map((f) => current.get(f.fileId)!.filename));
    const index = pending.findIndex(
      (f) => f.filename === current.get(f.fileId)!.filename || !holders.has(f.filename),
    );
    if (index < 0) {
      // A cycle of renames (a swap): one file steps aside, for the rest of this transaction, under a name
      // no other file has (it holds the changeset's id; nothing else is written under the project lock).
      const aside = pending[0]!;
      const record = current.get(aside.fileId)!;
      const moved = { ...record, filename: `${record.filename}.changeset-${changeset.id}` };
      await tx.updateFile({ file: moved });
      current.set(aside.fileId, moved);
      continue;
    }
    const [file] = pending.splice(index, 1);
    const record = current.get(file!.fileId)!;
    const step = await reviseFileStep(ctx, tx, {
      project: locked,
      current: record,
      change: {
        stored: o.stored.get(file!),
        ...(file!.filename !== record.filename && { filename: file!.filename }),
        ...(file!.metadataJson !== record.metadataJson && { metadataJson: file!.metadataJson }),
      },
      kind: file!.kind,
      at,
      changeset,
    });
    records.set(file!, step.file!);
    steps.push(step);
  }
  for (const file of plan.files.filter((f) => f.origin === null && !f.deleted)) {
    const step = await createFileStep(ctx, tx, {
      project: locked,
      fileId: file.fileId,
      filename: file.filename,
      stored: o.stored.get(file)!,
      metadataJson: file.metadataJson,
      at,
      changeset,
    });
    records.set(file, step.file!);
    steps.push(step);
  }
  let project: ProjectRecord;
  try {
    project = withCounterChange(ctx, locked, sumCounters(steps.map((step) => step.counters)), at);
  } catch (error) {
    throw operationFailed(error as never, -1, ['body', 'operations']);
  }
  await tx.updateProject({ project });
  return { committed: { project, records }, doomed: steps.flatMap((step) => step.doomed) };
}
