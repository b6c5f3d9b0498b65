import { createHash } from 'node:crypto';
import type { InFlightChangeset } from './changesets.js';

export type JsonObject = { [key: string]: unknown };

/** One whole version of a file: what a reader must see, all of it or none of it. */
export interface FileState {
  readonly content: Buffer;
  readonly sha256: string;
  readonly metadata: JsonObject | null;
  /** The ETag this version was acknowledged (or observed) with; unknown for a version still in flight. */
  readonly etag?: string;
  /** An ETag the file had before this version: a stale If-Match must fail against it. */
  readonly previousEtag?: string;
  /** The file's revision number in this version, when known (acknowledged or observed). */
  readonly revision?: number;
  /** Acknowledged (or observed) earlier versions of this file and this one, oldest first (history.ts). */
  readonly history?: readonly KeptRevision[];
}

/** One version of a file whose revision number is known: it must stay readable until pruned. */
export interface KeptRevision {
  readonly revision: number;
  readonly content: Buffer;
  readonly sha256: string;
  readonly metadata: JsonObject | null;
}

export const fileState = (content: Buffer, metadata: JsonObject | null, etag?: string): FileState => ({
  content,
  sha256: sha256(content),
  metadata,
  ...(etag === undefined ? {} : { etag }),
});

export const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

export interface ProjectModel {
  readonly id: string;
  readonly name: string;
  readonly bucket: string;
  readonly isDefault: boolean;
  /** `settings.keep_revisions` of the project (20, the default, when absent). */
  keepRevisions?: number;
  /** The files as acknowledged: after every restart, the state observed and checked. */
  readonly files: Map<string, FileState>;
  /**
   * Projects with a trash (`trash_retention_days` > 0, extensions §5): the files deleted into it, oldest
   * deletion first; `trashId` is learnt at the next restart's verification (see trash.ts).
   */
  readonly trash?: TrashedFile[];
  /** The attachments as acknowledged, by path (made on the first attachment write). */
  attachments?: Map<string, AttachmentState>;
}

/** An attachment as the client knows it (extensions §12; attachments.ts). */
export interface AttachmentState {
  readonly bytes: Buffer;
  readonly sha256: string;
  readonly contentType: string;
  /** The ETag it was acknowledged (or observed) with; unknown for a write still in flight. */
  readonly etag?: string;
}

/** A file in a project's trash, as the client knows it. */
export interface TrashedFile {
  readonly filename: string;
  readonly state: FileState;
  trashId?: string;
}

/** What the client knows for certain: every acknowledged write, and nothing else. */
export interface Model {
  readonly apiKey: string;
  readonly active: Map<string, ProjectModel>;
  /** Projects whose deletion was acknowledged or observed; id → bucket. */
  readonly deleted: Map<string, string>;
}

/**
 * One run of the workload between a start and a kill. Acknowledged writes go straight into the model
 * (writes to one file never overlap, so acknowledgement order is commit order); requests cut off by
 * the kill are kept here as the versions that may or may not have landed.
 */
export interface Cycle {
  /** `projectId\0filename` → the state the in-flight write would leave (null: the file deleted). */
  readonly inFlightFiles: Map<string, FileState | null>;
  /** Names of projects whose creation was in flight. */
  readonly inFlightCreates: Set<string>;
  /** Names of projects whose creation was acknowledged but whose answer was cut off (id unknown). */
  readonly acknowledgedCreates: Set<string>;
  /** Projects whose deletion was in flight. */
  readonly inFlightDeletes: Set<string>;
  /** Projects whose deletion started this cycle: no new work is sent to them. */
  readonly deleting: Set<string>;
  /** Projects a request was told were not found: their deletion must have committed. */
  readonly reportedGone: Set<string>;
  readonly busyFiles: Set<string>;
  /** Moves cut off by the kill: after the restart the file is under exactly one of the two names. */
  readonly inFlightMoves: { projectId: string; from: string; to: string }[];
  /** Things that must never happen, found while the server was alive. */
  readonly violations: string[];
  /** Deletes into a trash cut off by the kill: `projectId\0filename` → what went to the trash if it landed. */
  readonly inFlightTrash: Map<string, TrashedFile>;
  /**
   * Trash items whose restore (→ the name restored to) or removal (→ null) was cut off by the kill: after
   * the restart, gone or not.
   */
  readonly inFlightTrashIds: Map<string, string | null>;
  /** Trash items in use by a request of this cycle. */
  readonly busyTrash: Set<string>;
  /** Changesets cut off by the kill (extensions §9): after the restart, all of their files new or none. */
  readonly inFlightChangesets: InFlightChangeset[];
  /** `projectId\0path` → what an attachment write cut off by the kill would leave (null: deleted). */
  readonly inFlightAttachments: Map<string, AttachmentState | null>;
  /** Attachment moves cut off by the kill: after the restart, at exactly one of the two paths. */
  readonly inFlightAttachmentMoves: { projectId: string; from: string; to: string }[];
  readonly busyAttachments: Set<string>;
}

export const newCycle = (): Cycle => ({
  inFlightFiles: new Map(),
  inFlightCreates: new Set(),
  acknowledgedCreates: new Set(),
  inFlightDeletes: new Set(),
  deleting: new Set(),
  reportedGone: new Set(),
  busyFiles: new Set(),
  inFlightMoves: [],
  violations: [],
  inFlightTrash: new Map(),
  inFlightTrashIds: new Map(),
  busyTrash: new Set(),
  inFlightChangesets: [],
  inFlightAttachments: new Map(),
  inFlightAttachmentMoves: [],
  busyAttachments: new Set(),
});

export const fileKey = (projectId: string, filename: string) => `${projectId}\0${filename}`;

/** Counters for the summary the lead quotes. */
export interface Stats {
  kills: number;
  startupKills: number;
  cycles: number;
  acknowledged: Record<string, number>;
  /** Change events read from the feed and checked against the writes (extensions §7). */
  changeEventsVerified: number;
  rejected: number;
  inFlight: Record<string, number>;
  inFlightLanded: number;
  inFlightNotLanded: number;
  /** Reads right after an acknowledged write that saw exactly that write. */
  readBacks: number;
  /** Kept revisions checked against the acknowledged versions (listed, and read back). */
  revisionsVerified: number;
  filesVerified: number;
  bytesVerified: number;
  blobsVerified: number;
  projectsVerified: number;
  intentsResolved: number;
  resourcesRemoved: number;
  deletionsCompleted: number;
  /** Trash items verified (listed, counted, their content and revisions kept) and expired by start-up. */
  trashVerified: number;
  trashExpired: number;
  /** Attachments read back after restarts and matched against the writes (attachments.ts). */
  attachmentsVerified: number;
  checks: number;
}

export const newStats = (): Stats => ({
  kills: 0,
  startupKills: 0,
  cycles: 0,
  acknowledged: {},
  changeEventsVerified: 0,
  rejected: 0,
  inFlight: {},
  inFlightLanded: 0,
  inFlightNotLanded: 0,
  readBacks: 0,
  revisionsVerified: 0,
  filesVerified: 0,
  bytesVerified: 0,
  blobsVerified: 0,
  projectsVerified: 0,
  intentsResolved: 0,
  resourcesRemoved: 0,
  deletionsCompleted: 0,
  trashVerified: 0,
  trashExpired: 0,
  attachmentsVerified: 0,
  checks: 0,
});

export const bump = (counts: Record<string, number>, kind: string) => {
  counts[kind] = (counts[kind] ?? 0) + 1;
};
