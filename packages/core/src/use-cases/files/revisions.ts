import { DAY_MS } from '../../defaults/trash.js';
import type {
  BlobIntentRecord,
  ContentLocation,
  FileRecord,
  ProjectRecord,
  RevisionChange,
  RevisionRecord,
} from '../../model/records.js';
import type { RecordsTransaction, RevisionContent } from '../../ports/records.js';
import { doomResource } from '../blob-intents.js';
import { emitFileEvent, type FileEventOptions, fileEventType } from '../changes/emit.js';
import type { MdStoreContext } from '../context.js';

/**
 * Bytes kept only by earlier revisions: each content version counted once (revisions that only changed
 * metadata share their content), the current one not at all.
 */
export function historyBytes(revisions: readonly RevisionContent[], currentKey: string | null): number {
  const counted = new Set<string>();
  let total = 0;
  for (const revision of revisions) {
    if (revision.contentKey === currentKey || counted.has(revision.contentKey)) continue;
    counted.add(revision.contentKey);
    total += revision.sizeBytes;
  }
  return total;
}

/** Content versions referenced by `dropped` and by none of `kept`, each once. */
function unreferenced(
  dropped: readonly RevisionContent[],
  kept: readonly RevisionContent[],
): ContentLocation[] {
  const keptKeys = new Set(kept.map((revision) => revision.contentKey));
  const freed = new Map<string, ContentLocation>();
  for (const { contentKey, inline } of dropped) {
    if (!keptKeys.has(contentKey)) freed.set(contentKey, { contentKey, inline });
  }
  return [...freed.values()];
}

export interface RevisionPlan {
  /** Revision numbers to delete (older than the newest `keep`). */
  readonly prune: readonly number[];
  /** Content versions no kept revision references any more. */
  readonly freed: readonly ContentLocation[];
  /** Change of the project's `historySizeBytes`. */
  readonly historyDelta: number;
}

/**
 * How much history a project keeps (extensions §2, §16): the newest `count` revisions, and beyond them
 * every revision written after `since` (younger than `keep_revisions_days`; none when it is 0).
 */
export interface Retention {
  readonly count: number;
  /** Revisions written strictly after this time are kept whatever their number (Infinity: none). */
  readonly since: number;
}

/** The retention of `project` at `now`. */
export function retentionOf(
  project: Pick<ProjectRecord, 'keepRevisions' | 'keepRevisionsDays'>,
  now: number,
): Retention {
  return {
    count: project.keepRevisions,
    since:
      project.keepRevisionsDays > 0 ? now - project.keepRevisionsDays * DAY_MS : Number.POSITIVE_INFINITY,
  };
}

/** `revisions` (newest first) split into those the retention keeps and those it drops. */
function splitKept(revisions: readonly RevisionContent[], keep: Retention | number) {
  const { count, since } = typeof keep === 'number' ? { count: keep, since: Number.POSITIVE_INFINITY } : keep;
  // Revisions are numbered in the order they are written, so the kept ones are always the newest.
  let index = 0;
  while (index < revisions.length && (index < count || revisions[index]!.createdAt > since)) index++;
  return { kept: revisions.slice(0, index), dropped: revisions.slice(index) };
}

/**
 * The history after adding `added` to a file whose kept revisions are `before` (newest first, the
 * current one included): the newest `keep` stay (and, with a `Retention`, the young ones beyond them),
 * older ones go, and so does any content only they held.
 */
export function planRevision(
  before: readonly RevisionContent[],
  added: RevisionContent,
  keep: Retention | number,
): RevisionPlan {
  const after = [added, ...before];
  const { kept, dropped } = splitKept(after, keep);
  const previousKey = before[0]?.contentKey ?? null;
  return {
    prune: dropped.map((revision) => revision.revision),
    freed: unreferenced(dropped, kept),
    historyDelta: historyBytes(kept, added.contentKey) - historyBytes(before, previousKey),
  };
}

/** The history of a file whose revisions are all going (a delete without trash, a project lowering…). */
export function planRemoval(before: readonly RevisionContent[]): RevisionPlan {
  return {
    prune: before.map((revision) => revision.revision),
    freed: unreferenced(before, []),
    historyDelta: -historyBytes(before, before[0]?.contentKey ?? null),
  };
}

/** Of a file's kept revisions, those the retention no longer keeps go (a setting was lowered). */
export function planPrune(before: readonly RevisionContent[], keep: Retention | number): RevisionPlan {
  const { kept, dropped } = splitKept(before, keep);
  const currentKey = before[0]?.contentKey ?? null;
  return {
    prune: dropped.map((revision) => revision.revision),
    freed: unreferenced(dropped, kept),
    historyDelta: historyBytes(kept, currentKey) - historyBytes(before, currentKey),
  };
}

/**
 * Carries out a plan inside the transaction: revisions and inline contents are deleted at once; blob
 * versions are noted as doomed, to be removed once the transaction has committed (`removeDoomed`).
 */
export async function applyPlan(
  ctx: MdStoreContext,
  tx: RecordsTransaction,
  target: { fileId: string; project: ProjectRecord },
  plan: RevisionPlan,
): Promise<BlobIntentRecord[]> {
  if (plan.prune.length > 0) await tx.deleteRevisions({ fileId: target.fileId, revisions: plan.prune });
  const doomed: BlobIntentRecord[] = [];
  for (const location of plan.freed) {
    if (location.inline) {
      await tx.deleteInlineContent({ projectId: target.project.id, contentKey: location.contentKey });
    } else {
      doomed.push(
        await doomResource(ctx, tx, { bucket: target.project.bucketName, key: location.contentKey }),
      );
    }
  }
  return doomed;
}

export interface RecordedRevision {
  readonly historyDelta: number;
  readonly doomed: BlobIntentRecord[];
}

/**
 * Records the file's new state (already written to `files`) as its newest revision and prunes the
 * history to the project's `keepRevisions`. `before` is the file's kept revisions, newest first (empty
 * for a new file).
 */
export async function recordRevision(
  ctx: MdStoreContext,
  tx: RecordsTransaction,
  o: {
    project: ProjectRecord;
    file: FileRecord;
    /** When the revision is written; the file's `updatedAt` when not given. */
    at?: number;
    change: RevisionChange;
    before: readonly RevisionContent[];
    /** What the change feed's event says beyond the revision (extensions §7). */
    event?: FileEventOptions;
    /** The changeset the revision is written by (extensions §9); its event carries the id too. */
    changeset?: { readonly id: string; readonly message: string | null };
    /** The key whose request writes it (`Principal.keyId`), null without one. */
    author: string | null;
  },
): Promise<RecordedRevision> {
  const { file } = o;
  const revision: RevisionRecord = {
    fileId: file.id,
    projectId: file.projectId,
    revision: file.revision,
    sizeBytes: file.sizeBytes,
    sha256: file.sha256,
    metadataJson: file.metadataJson,
    change: o.change,
    contentKey: file.contentKey,
    inline: file.inline,
    createdAt: o.at ?? file.updatedAt,
    changesetId: o.changeset?.id ?? null,
    message: o.changeset?.message ?? null,
    filename: file.filename,
    keyId: o.author,
  };
  await tx.insertRevision({ revision });
  const plan = planRevision(o.before, revision, retentionOf(o.project, revision.createdAt));
  const doomed = await applyPlan(ctx, tx, { fileId: file.id, project: o.project }, plan);
  // Every new revision is one committed change: its event goes in the same transaction.
  await emitFileEvent(ctx, tx, {
    project: o.project,
    type: fileEventType(o.change, o.event),
    filename: file.filename,
    file,
    from: o.event?.from ?? null,
    changesetId: o.changeset?.id ?? o.event?.changesetId ?? null,
  });
  return { historyDelta: plan.historyDelta, doomed };
}
