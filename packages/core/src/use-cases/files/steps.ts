import type { BlobIntentRecord, FileRecord, ProjectRecord, RevisionChange } from '../../model/records.js';
import type { RecordsTransaction } from '../../ports/records.js';
import { emitFileEvent, type FileEventOptions } from '../changes/emit.js';
import type { MdStoreContext } from '../context.js';
import { notBefore } from '../context.js';
import { indexFileWrite } from '../links/index-step.js';
import { moveToTrash } from '../trash/move-to-trash.js';
import type { StoredContent } from './content.js';
import { applyPlan, planRemoval, recordRevision } from './revisions.js';
import type { CounterChange } from './shared.js';

/**
 * The per-file steps of the write path, run inside a commit transaction under the project lock. Each
 * writes one file's records (file, search index, revision with pruning) and says how the project's
 * counters move, without writing the project: a single write applies its one step and moves the
 * counters; a changeset (extensions §9) applies one step per touched file and moves them once, for the
 * net result. Whatever is added to a step (change events, link indexing) applies to both alike.
 */

/** The changeset a step is part of (extensions §9): its id and message go to the revision. */
export interface ChangesetTag {
  readonly id: string;
  readonly message: string | null;
}

export interface StepResult {
  /** The file as written; null for a delete. */
  readonly file: FileRecord | null;
  readonly counters: CounterChange;
  /** Blob versions to remove once the transaction has committed. */
  readonly doomed: readonly BlobIntentRecord[];
}

/** Adds the counter changes of several steps (a changeset's net result). */
export function sumCounters(
  changes: readonly CounterChange[],
): Required<Omit<CounterChange, 'attachments' | 'attachmentBytes'>> {
  const sum = { files: 0, bytes: 0, historyBytes: 0, trashBytes: 0 };
  for (const change of changes) {
    sum.files += change.files ?? 0;
    sum.bytes += change.bytes ?? 0;
    sum.historyBytes += change.historyBytes ?? 0;
    sum.trashBytes += change.trashBytes ?? 0;
  }
  return sum;
}

/** A file's dates given from elsewhere (an import that keeps a note's dates), in milliseconds since 1970. */
export interface FileDates {
  readonly createdAt: number;
  readonly updatedAt: number;
}

/**
 * A new file (upload, a changeset's put of a new name): record, search index, first revision. With
 * `dates`, the record takes them (each at most `at`, `createdAt` at most `updatedAt`: never in the
 * future); its revision and event are still dated `at`, when they were written.
 */
export async function createFileStep(
  ctx: MdStoreContext,
  tx: RecordsTransaction,
  o: {
    project: ProjectRecord;
    fileId: string;
    filename: string;
    stored: StoredContent;
    metadataJson: string | null;
    at: number;
    changeset?: ChangesetTag;
    /** The key whose request writes it, null without one (the revision's `keyId`). */
    author: string | null;
    dates?: FileDates;
  },
): Promise<StepResult> {
  const { stored, at } = o;
  const updatedAt = o.dates ? Math.min(o.dates.updatedAt, at) : at;
  const createdAt = o.dates ? Math.min(o.dates.createdAt, updatedAt) : at;
  const file: FileRecord = {
    id: o.fileId,
    projectId: o.project.id,
    filename: o.filename,
    sizeBytes: stored.sizeBytes,
    sha256: stored.sha256,
    metadataJson: o.metadataJson,
    frontmatterJson: stored.frontmatterJson,
    contentKey: stored.contentKey,
    inline: stored.inline,
    revision: 1,
    createdAt,
    updatedAt,
  };
  await tx.insertFile({ file });
  await indexFileWrite(ctx, tx, { file, contentText: stored.searchText, links: stored.links });
  const recorded = await recordRevision(ctx, tx, {
    project: o.project,
    file,
    at,
    change: 'created',
    before: [],
    changeset: o.changeset,
    author: o.author,
  });
  return {
    file,
    counters: { files: 1, bytes: file.sizeBytes, historyBytes: recorded.historyDelta },
    doomed: recorded.doomed,
  };
}

/** What a new version of an existing file changes: its content, its name, its metadata (any of them). */
export interface FileChange {
  readonly stored?: StoredContent;
  readonly filename?: string;
  readonly metadataJson?: string | null;
}

/**
 * The next revision of an existing file (content update, edit, move, or a changeset's net change of
 * one file): record, search index (the text only when the content changed), revision with pruning.
 * `current` is the record as read under the lock.
 */
export async function reviseFileStep(
  ctx: MdStoreContext,
  tx: RecordsTransaction,
  o: {
    project: ProjectRecord;
    current: FileRecord;
    change: FileChange;
    kind: RevisionChange;
    at: number;
    changeset?: ChangesetTag;
    /** The key whose request writes it, null without one (the revision's `keyId`). */
    author: string | null;
    /** What the event says beyond the revision (a trash restore's type); a rename implies `file.moved`. */
    event?: FileEventOptions;
  },
): Promise<StepResult> {
  const { current, change } = o;
  const renamed = change.filename !== undefined && change.filename !== current.filename;
  const before = await tx.listRevisionContents({ fileId: current.id });
  const at = notBefore(o.at, current.updatedAt);
  const { stored } = change;
  const updated: FileRecord = {
    ...current,
    ...(stored && {
      contentKey: stored.contentKey,
      inline: stored.inline,
      sizeBytes: stored.sizeBytes,
      sha256: stored.sha256,
      frontmatterJson: stored.frontmatterJson,
    }),
    ...(change.filename !== undefined && { filename: change.filename }),
    ...(change.metadataJson !== undefined && { metadataJson: change.metadataJson }),
    revision: current.revision + 1,
    updatedAt: at,
  };
  await tx.updateFile({ file: updated });
  // Same content: the search index keeps its text and takes the new filename and metadata; the link
  // index keeps the links, resolved again from the file's (maybe new) folder (extensions §9).
  await indexFileWrite(
    ctx,
    tx,
    stored
      ? { file: updated, contentText: stored.searchText, links: stored.links }
      : { file: updated, contentText: null, links: 'kept' },
  );
  const recorded = await recordRevision(ctx, tx, {
    project: o.project,
    file: updated,
    change: o.kind,
    before,
    changeset: o.changeset,
    author: o.author,
    event: renamed ? { type: 'file.moved', from: current.filename, ...o.event } : o.event,
  });
  return {
    file: updated,
    counters: { bytes: updated.sizeBytes - current.sizeBytes, historyBytes: recorded.historyDelta },
    doomed: recorded.doomed,
  };
}

/**
 * A file's removal: its record goes, and with the project's `trashRetentionDays` above 0 it goes to the
 * trash (revisions and inline contents left in place); with 0 its revisions and inline contents go too,
 * and its blob versions are noted doomed.
 */
export async function deleteFileStep(
  ctx: MdStoreContext,
  tx: RecordsTransaction,
  o: { project: ProjectRecord; file: FileRecord; at: number; changeset?: ChangesetTag },
): Promise<StepResult> {
  const { project, file, at } = o;
  const revisions = await tx.listRevisionContents({ fileId: file.id });
  await tx.deleteFile({ fileId: file.id });
  await emitFileEvent(ctx, tx, {
    project,
    type: 'file.deleted',
    filename: file.filename,
    file: null,
    changesetId: o.changeset?.id ?? null,
  });
  if (project.trashRetentionDays > 0) {
    const counters = await moveToTrash(ctx, tx, { project, file, revisions, at });
    return { file: null, counters, doomed: [] };
  }
  const plan = planRemoval(revisions);
  const doomed = await applyPlan(ctx, tx, { fileId: file.id, project }, plan);
  return {
    file: null,
    counters: { files: -1, bytes: -file.sizeBytes, historyBytes: plan.historyDelta },
    doomed,
  };
}
