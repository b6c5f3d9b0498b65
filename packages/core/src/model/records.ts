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

/** An API key as stored: only the hash of the secret is ever kept. */
export interface ApiKeyRecord {
  readonly id: string;
  readonly accountId: string;
  readonly keyHash: string;
  readonly createdAt: EpochMillis;
  readonly revokedAt: EpochMillis | null;
}

/**
 * `deleting` is the durable marker of a deletion in progress: the project is already gone for every
 * caller (inactive, counters zero, no files) and its bucket is removed by whoever comes next (the
 * deleting request, a retry, or start-up reconciliation).
 */
export const PROJECT_STATUSES = ['active', 'deleting', 'deleted'] as const;
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];

export interface ProjectRecord {
  readonly id: string;
  readonly accountId: string;
  readonly name: string;
  readonly description: string | null;
  readonly bucketName: string;
  readonly isDefault: boolean;
  readonly status: ProjectStatus;
  readonly fileCount: number;
  readonly totalSizeBytes: number;
  readonly createdAt: EpochMillis;
  readonly updatedAt: EpochMillis;
}

/** A stored file (the interface's "File"). Its content lives in the blob store under `blobKey`. */
export interface FileRecord {
  readonly id: string;
  readonly projectId: string;
  readonly filename: string;
  readonly sizeBytes: number;
  /** Lower-case hex SHA-256 of the content. */
  readonly sha256: string;
  /** The metadata object serialised as JSON, or null when the file has none. */
  readonly metadataJson: string | null;
  /** Immutable per content version: a new version always gets a new key. */
  readonly blobKey: string;
  /** Starts at 1 and grows by one on every content or metadata write. */
  readonly revision: number;
  readonly createdAt: EpochMillis;
  readonly updatedAt: EpochMillis;
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
