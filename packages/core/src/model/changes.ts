import type { EpochMillis } from './records.js';

/** The kinds of committed change the feed reports (extensions §7). */
export type ChangeEventType =
  | 'file.created'
  | 'file.updated'
  | 'file.moved'
  | 'file.deleted'
  | 'file.restored'
  | 'attachment.created'
  | 'attachment.updated'
  | 'attachment.deleted'
  | 'attachment.moved'
  | 'project.created'
  | 'project.updated'
  | 'project.deleted'
  // Drafts (extensions §13): `filename` null, `changeset_id` the publish's changeset for `draft.published`.
  | 'draft.opened'
  | 'draft.updated'
  | 'draft.published'
  | 'draft.closed';

/**
 * One committed change, written by the transaction that made it (extensions §7). File fields describe
 * the file after the change (null where there is none: a deleted file, a project event).
 */
export interface ChangeEventRecord {
  readonly accountId: string;
  /** Grows with commit order within the account: a reader that has seen `seq` never later sees a smaller one appear. */
  readonly seq: number;
  readonly type: ChangeEventType;
  readonly projectId: string;
  readonly filename: string | null;
  /** The old name of a moved file. */
  readonly from: string | null;
  readonly revision: number | null;
  readonly etag: string | null;
  readonly sizeBytes: number | null;
  readonly sha256: string | null;
  /** The changeset (§9) that made the change, when one did. */
  readonly changesetId: string | null;
  readonly at: EpochMillis;
}

/** An event as a write hands it to the store, which gives it its `seq` at commit. */
export type ChangeEventInput = Omit<ChangeEventRecord, 'seq'>;
