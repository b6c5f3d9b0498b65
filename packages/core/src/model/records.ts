/**
 * The records the domain keeps. Times are epoch milliseconds (UTC); every adapter stores them with
 * millisecond precision so that an entity reads back exactly as it was written.
 */
export type EpochMillis = number;

export const TIERS = ['standard', 'premium'] as const;
export type Tier = (typeof TIERS)[number];

export interface AccountRecord {
  readonly id: string;
  readonly name: string;
  readonly tier: Tier;
  readonly createdAt: EpochMillis;
}

/**
 * What a key may do (extensions §8, §13), each role including the one before: `read` (reads),
 * `propose` (reads, plus opening drafts, adding operations to them and closing its own), `write`
 * (reads and changes to files and projects, drafts included), `admin` (everything of the account).
 */
export const ROLES = ['read', 'propose', 'write', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** An API key as stored: only the hash of the secret is ever kept. */
export interface ApiKeyRecord {
  readonly id: string;
  readonly accountId: string;
  readonly keyHash: string;
  /** Given at creation (empty for keys made before names existed). */
  readonly name: string;
  readonly role: Role;
  /** The projects the key reaches, or null for every project of the account. */
  readonly projectIds: readonly string[] | null;
  /**
   * The folders the key reaches (extensions §14), each ending with `/`, none inside another; null for
   * every file of the projects it reaches.
   */
  readonly pathPrefixes: readonly string[] | null;
  readonly expiresAt: EpochMillis | null;
  readonly createdAt: EpochMillis;
  readonly revokedAt: EpochMillis | null;
  /** When the key was last presented, at most a minute stale (written at most every 30 s per instance). */
  readonly lastUsedAt: EpochMillis | null;
}

/**
 * A share link (extensions §11): a file, or every file under a folder `prefix`, of one project, readable
 * without a key by whoever holds the token until `expiresAt` or revocation. Only the token's hash is
 * kept, as for API keys. Exactly one of `filename` and `prefix` is set.
 */
export interface ShareRecord {
  readonly id: string;
  readonly accountId: string;
  readonly projectId: string;
  readonly filename: string | null;
  /** A folder, ending with `/`. */
  readonly prefix: string | null;
  readonly tokenHash: string;
  /**
   * The key that made it: the share stops working when that key is revoked (issue 34, finding 10).
   * `null` for a share made before the column existed (it lives out its own expiry).
   */
  readonly createdBy: string | null;
  readonly createdAt: EpochMillis;
  readonly expiresAt: EpochMillis;
  readonly revokedAt: EpochMillis | null;
}

/** Where a draft stands (extensions §13): only an `open` draft takes operations, reviews or a publish. */
export const DRAFT_STATES = ['open', 'published', 'closed'] as const;
export type DraftState = (typeof DRAFT_STATES)[number];

/** A draft (extensions §13): a proposed change to several files of one project, kept apart until published. */
export interface DraftRecord {
  readonly id: string;
  readonly accountId: string;
  readonly projectId: string;
  readonly title: string;
  readonly description: string | null;
  readonly state: DraftState;
  /** The key that opened it (its author: it may close it even with a `propose` key). */
  readonly authorKeyId: string | null;
  /** The changeset its publish committed (null until published). */
  readonly changesetId: string | null;
  readonly createdAt: EpochMillis;
  readonly updatedAt: EpochMillis;
}

/** What a draft does to one of its files: the §9 operation it was given, as a net proposal. */
export type DraftOp = 'put' | 'edit' | 'delete' | 'move';

/**
 * One file of a draft (one row per filename, in the order first touched): the operation, the ETag the
 * file had when it was first added (null: it did not exist), and what the draft proposes: the whole text
 * for `put`/`edit` (an edit is applied when it is added, to the draft's text of the file), the metadata
 * (JSON text; null: keep the file's), or the new name of a `move`.
 */
export interface DraftFileRecord {
  readonly draftId: string;
  /** The file's position in the draft (0, 1, 2… in the order the files were first touched). */
  readonly seq: number;
  readonly filename: string;
  readonly op: DraftOp;
  readonly baseEtag: string | null;
  readonly content: string | null;
  readonly metadataJson: string | null;
  readonly to: string | null;
}

export type DraftVerdict = 'approve' | 'request_changes';

/** A review of a draft (extensions §13). */
export interface DraftReviewRecord {
  readonly id: string;
  readonly draftId: string;
  readonly verdict: DraftVerdict;
  readonly comment: string;
  readonly keyId: string | null;
  readonly createdAt: EpochMillis;
}

/**
 * One line of the audit log (extensions §8): who (key, account, address) did what (`METHOD
 * route-template`) to which project and file, and the answer's status. Never a key, content or metadata.
 */
export interface AuditRecord {
  readonly id: string;
  readonly at: EpochMillis;
  /** Null for a request without a valid key (a failed authentication). */
  readonly accountId: string | null;
  readonly keyId: string | null;
  readonly action: string;
  readonly projectId: string | null;
  readonly filename: string | null;
  readonly status: number;
  readonly requestId: string | null;
  readonly ip: string | null;
}

/** Where a page of the audit log starts: after this entry, newest first. */
export interface AuditPosition {
  readonly at: EpochMillis;
  readonly id: string;
}

/**
 * `deleting` is the durable marker of a deletion in progress: the project is already gone for every
 * caller (inactive, counters zero, no files) and its bucket is removed by whoever comes next (the
 * deleting request, a retry, or start-up reconciliation).
 */
export const PROJECT_STATUSES = ['active', 'deleting', 'deleted'] as const;
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];

/** The per-project settings of extensions §2 and §5, each with its default. */
export interface ProjectSettings {
  /** Writes to existing files must carry `If-Match` (else 428). */
  readonly requireIfMatch: boolean;
  /** Newest revisions kept per file, the current one included (1: no history). */
  readonly keepRevisions: number;
  /** Days a deleted file stays in the trash (0: delete removes everything at once). */
  readonly trashRetentionDays: number;
  /**
   * Days during which a revision is kept even beyond `keepRevisions` (extensions §16; 0: the count
   * alone decides). Judged when a file's history is pruned, that is at its writes.
   */
  readonly keepRevisionsDays: number;
}

export const DEFAULT_PROJECT_SETTINGS: ProjectSettings = Object.freeze({
  requireIfMatch: false,
  keepRevisions: 20,
  trashRetentionDays: 0,
  keepRevisionsDays: 0,
});

export interface ProjectRecord extends ProjectSettings {
  readonly id: string;
  readonly accountId: string;
  readonly name: string;
  readonly description: string | null;
  readonly bucketName: string;
  readonly isDefault: boolean;
  readonly status: ProjectStatus;
  readonly fileCount: number;
  /** Bytes of the current content of the project's files. */
  readonly totalSizeBytes: number;
  /** Bytes of content kept only by earlier revisions of the project's files (each content counted once). */
  readonly historySizeBytes: number;
  /** Bytes of content kept by the files in the project's trash, their earlier revisions included. */
  readonly trashSizeBytes: number;
  /** Attachments of the project (extensions §12), and the sum of their sizes (each path counted). */
  readonly attachmentCount: number;
  readonly attachmentBytes: number;
  readonly createdAt: EpochMillis;
  readonly updatedAt: EpochMillis;
}

/**
 * An attachment (extensions §12): a non-Markdown file at `path`, its bytes in the project's bucket under
 * `blobKey` (`attachments/<uuid>`, never reused). Paths of one project with identical bytes share one
 * blob: a write whose bytes the project already holds points at the existing blob and drops its own.
 * `revision` grows with every replacement (the entity tag is the id and the revision, as for files).
 */
export interface AttachmentRecord {
  readonly id: string;
  readonly projectId: string;
  readonly path: string;
  readonly sizeBytes: number;
  readonly contentType: string;
  readonly sha256: string;
  readonly blobKey: string;
  readonly revision: number;
  readonly createdAt: EpochMillis;
  readonly updatedAt: EpochMillis;
}

/**
 * Where a content version lives. Each version has its own immutable key, `<file id>/<uuid>`: in the blob
 * store (bucket of the project) when `inline` is false, else in the records store's inline contents,
 * written by the same transaction as the record that points to it.
 */
export interface ContentLocation {
  readonly contentKey: string;
  readonly inline: boolean;
}

/** A stored file (the interface's "File"): the head of its revisions. */
export interface FileRecord extends ContentLocation {
  readonly id: string;
  readonly projectId: string;
  readonly filename: string;
  readonly sizeBytes: number;
  /** Lower-case hex SHA-256 of the content. */
  readonly sha256: string;
  /** The metadata object serialised as JSON, or null when the file has none. */
  readonly metadataJson: string | null;
  /** The content's YAML front matter as JSON (extensions §3), or null. */
  readonly frontmatterJson: string | null;
  /** Starts at 1 and grows by one on every write to the file. */
  readonly revision: number;
  readonly createdAt: EpochMillis;
  readonly updatedAt: EpochMillis;
}

export const REVISION_CHANGES = [
  'created',
  'content',
  'metadata',
  'edit',
  'restore',
  'move',
  'copy',
] as const;
export type RevisionChange = (typeof REVISION_CHANGES)[number];

/**
 * One kept revision of a file: its content and metadata as they were. The current revision of every
 * file is kept too (same `revision` as the file record), so the content of a file is always reachable
 * through its revisions; versions that only changed metadata share their content's key.
 */
export interface RevisionRecord extends ContentLocation {
  readonly fileId: string;
  readonly projectId: string;
  readonly revision: number;
  readonly sizeBytes: number;
  readonly sha256: string;
  readonly metadataJson: string | null;
  readonly change: RevisionChange;
  readonly createdAt: EpochMillis;
  /** The changeset that wrote this revision (extensions §9), and its message; null for a single write. */
  readonly changesetId: string | null;
  readonly message: string | null;
  /**
   * The name the file had at this revision (extensions §16: a project restored as of a time); null for
   * a revision written before the stores recorded it (SQLite/Postgres migration 15).
   */
  readonly filename: string | null;
  /**
   * The API key whose request wrote this revision (extensions §14: who wrote each change of an agent's
   * memory); null for an in-process write without a key, or a revision written before the stores
   * recorded it (migration 19 of both stores).
   */
  readonly keyId: string | null;
}

/**
 * A file in its project's trash (extensions §5): the file record as it was when deleted, under a trash
 * id of its own, with its kept revisions left in place (same `fileId`) and its inline contents too. Its
 * name is free again; restoring it puts the same file (same id, same history) back under a name.
 */
export interface TrashRecord {
  /** The trash id: new for every deletion, so a file deleted, restored and deleted again has another. */
  readonly id: string;
  readonly projectId: string;
  /**
   * The deleted file; for an attachment (extensions §12) its id, path (`filename`), size, sha256, blob
   * key (`contentKey`, never inline) and revision, no metadata and no revisions of its own.
   */
  readonly file: FileRecord;
  /** Present when the item is a deleted attachment: what the file fields do not carry. */
  readonly attachment?: { readonly contentType: string };
  readonly deletedAt: EpochMillis;
  /** Fixed at deletion (deletion time + the project's retention then); at or after it the item is gone. */
  readonly expiresAt: EpochMillis;
}

/**
 * A write-ahead note about a blob-store resource whose fate depends on a transaction.
 * - `staged`: being created; if abandoned, delete it unless a record references it.
 * - `doomed`: no longer referenced by any record; delete it.
 * `key` null means the whole bucket.
 */
export interface BlobIntentRecord {
  readonly id: string;
  readonly kind: 'staged' | 'doomed';
  readonly bucket: string;
  readonly key: string | null;
  readonly ownerInstanceId: string;
  readonly createdAt: EpochMillis;
  /** After this instant the owning request has certainly ended (uploads have a hard deadline). */
  readonly expiresAt: EpochMillis;
}

/** A running server process, known so that reconciliation can tell abandoned intents from live ones. */
export interface InstanceRecord {
  readonly id: string;
  readonly hostname: string;
  readonly pid: number;
  readonly startedAt: EpochMillis;
  readonly heartbeatAt: EpochMillis;
}

/**
 * A webhook (extensions §7) with its delivery state: the cursor (last `seq` delivered or skipped), the
 * failed attempts of the pending event and when the next one is due, and the lease of the instance
 * delivering it (one instance per attempt; a crashed owner's lease expires).
 */
export interface WebhookRecord {
  readonly id: string;
  readonly accountId: string;
  readonly url: string;
  /** Event type filters (`file.created`, `file.*`); empty: every event. */
  readonly events: readonly string[];
  /** Events of this project only, or null for every project the account has. */
  readonly projectId: string | null;
  /** The signing secret (`whsec_…`), kept so that deliveries can be signed (see docs/operations.md). */
  readonly secret: string;
  readonly active: boolean;
  readonly disabledReason: string | null;
  readonly createdAt: EpochMillis;
  /** The last event `seq` delivered or skipped; null until the engine first looks (it starts after `createdAt`). */
  readonly cursorSeq: number | null;
  /** Failed attempts of the pending event (the one after `cursorSeq`). */
  readonly attempt: number;
  /** When the next attempt is due after a failure; null: at once. */
  readonly nextAttemptAt: EpochMillis | null;
  readonly leaseOwner: string | null;
  readonly leaseExpiresAt: EpochMillis | null;
}

/** One delivery attempt of a webhook (its deliveries log): an answer's status or an error, never both. */
export interface WebhookDeliveryRecord {
  readonly id: string;
  readonly webhookId: string;
  readonly eventSeq: number;
  /** 1 for the first attempt of the event. */
  readonly attempt: number;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly durationMs: number;
  readonly at: EpochMillis;
}

/** Where a page of a webhook's deliveries starts: after this one, newest first. */
export interface WebhookDeliveryPosition {
  readonly at: EpochMillis;
  readonly id: string;
}

/** What a delivery attempt writes back, while the writer holds the webhook's lease. */
export interface WebhookProgress {
  readonly cursorSeq: number | null;
  readonly attempt: number;
  readonly nextAttemptAt: EpochMillis | null;
  readonly active: boolean;
  readonly disabledReason: string | null;
  /** The lease's new expiry, or null to release it. */
  readonly leaseExpiresAt: EpochMillis | null;
}

/**
 * One link of a file, as the link index keeps it (extensions §9): resolution happens when it is read,
 * by joining `path`/`stem` with the project's filenames, so a link to a file created later resolves
 * then, with no rescan.
 */
export interface LinkRecord {
  /** Its place among the file's links (document order, from 0). */
  readonly seq: number;
  readonly line: number;
  readonly kind: 'markdown' | 'wiki';
  /** Markdown: the destination as read (escapes resolved); wiki: `target#heading`. */
  readonly raw: string;
  /**
   * Markdown: the resolved filename (null when the path climbs above the root). Wiki: the target as
   * written without its `#heading` (null for `[[#heading]]`, a link to its own file).
   */
  readonly path: string | null;
  /** Wiki only: the target's last segment without `.md`/`.mdx`, which files are matched by. */
  readonly stem: string | null;
  readonly anchor: string | null;
  /** Where the destination is written in the content (UTF-16 offsets), or null when not located. */
  readonly start: number | null;
  readonly end: number | null;
}

/** A file's entry in the link index: its links, and what links to it match (name stem, headings). */
export interface FileLinksRecord {
  readonly fileId: string;
  readonly projectId: string;
  /** `indexed`, or `too_large`: the file was past the extraction's bound and its links are not known. */
  readonly status: 'indexed' | 'too_large';
  /** The file's last segment without `.md`/`.mdx`. */
  readonly stem: string;
  /** GitHub slugs of its headings (anchors of Markdown links). */
  readonly slugs: readonly string[];
  /** Its heading texts (anchors of wiki links). */
  readonly headings: readonly string[];
  readonly links: readonly LinkRecord[];
}

/** A link with the file it is written in. */
export interface SourcedLinkRecord {
  readonly sourceId: string;
  readonly source: string;
  readonly link: LinkRecord;
  /**
   * Set by a store's `listLinkPage` when the link certainly resolves without an anchor to check: a
   * Markdown link without anchor whose path names a file of the project, or a wiki link without
   * anchor whose stem exactly one indexed file has (an exact name or that file resolves it). The
   * broken-links page resolves only the others. A store may leave it unset: the core then resolves all.
   */
  readonly resolved?: boolean;
}

/** A file a link may resolve to, with what anchors match. */
export interface LinkTargetRecord {
  readonly fileId: string;
  readonly filename: string;
  /** Null when the file has no link index yet (stored before links existed). */
  readonly stem: string | null;
  readonly slugs: readonly string[];
  readonly headings: readonly string[];
}

/** Where a page of a project's links starts: after this link. */
export interface LinkPosition {
  readonly source: string;
  readonly seq: number;
}

/**
 * One embedded chunk of a file (extensions §15): where it is, what its text hashed to, and its vector
 * (float32 little-endian, unit length) under one embedding model.
 */
export interface ChunkRecord {
  readonly projectId: string;
  readonly fileId: string;
  /** The file's name when the chunk was embedded (a later move re-files it). */
  readonly filename: string;
  readonly ordinal: number;
  readonly heading: string | null;
  readonly hash: string;
  readonly model: string;
  readonly vector: Uint8Array;
  /**
   * The vector list the chunk is filed in (the account's lists of `model`, `VectorListsRecord`), by
   * the lists' generation and the list's number; both null while it is filed in none (no lists yet, or
   * not assigned yet): such chunks are read by every search.
   */
  readonly listGeneration: number | null;
  readonly listNo: number | null;
}

/**
 * The vector lists of one account and model (extensions §15, an inverted-file index): `count` centroids
 * (unit vectors of `dimensions` float32 numbers, little-endian, one after another in `centroids`),
 * trained by spherical k-means on a sample of the account's chunks once they passed
 * `SEMANTIC_LIMITS.listsTrainAt`. A chunk is filed in the list of its nearest centroid; a search reads the
 * lists nearest its query first. Derived state: never backed up, rebuilt by the indexer.
 */
export interface VectorListsRecord {
  readonly accountId: string;
  readonly model: string;
  /** Counts up from 1 each time the account's lists of this model are trained again. */
  readonly generation: number;
  readonly dimensions: number;
  readonly count: number;
  readonly centroids: Uint8Array;
  /** How many chunks the account had of this model when the lists were trained. */
  readonly trainedRows: number;
  readonly createdAt: EpochMillis;
}

/** Where the semantic indexer stands in one account's change feed, and who holds it (a lease). */
export interface EmbeddingCursorRecord {
  readonly accountId: string;
  /** Every event with `seq` ≤ this has been indexed. */
  readonly seq: number;
  /** The model the account's chunks were embedded with (null before the first step). */
  readonly model: string | null;
  readonly leaseOwner: string | null;
  readonly leaseExpiresAt: EpochMillis | null;
  readonly updatedAt: EpochMillis;
}

/**
 * One slot of a schedule that the instances sharing a store run once between them (extensions §16: a
 * scheduled backup), keyed by the task's name and the slot's time: the instance that claims it holds a
 * lease on it until it is finished; a holder that died leaves a lease that expires, and another
 * instance may take the slot again (`attempts` counts the claims that took it, bounded by the caller).
 */
export interface ScheduleSlotRecord {
  readonly task: string;
  readonly slotAt: EpochMillis;
  /** The instance that took it last (kept once finished: who ran it). */
  readonly owner: string;
  /** Until when `owner` holds it; null once finished. */
  readonly leaseExpiresAt: EpochMillis | null;
  readonly attempts: number;
  readonly finishedAt: EpochMillis | null;
  readonly outcome: 'ok' | 'failed' | null;
}
