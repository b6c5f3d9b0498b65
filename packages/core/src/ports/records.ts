import type {
  AccountRecord,
  ApiKeyRecord,
  BlobIntentRecord,
  FileRecord,
  InstanceRecord,
  ProjectRecord,
  ProjectStatus,
  RevisionRecord,
  Tier,
} from '../model/records.js';

/** What the write path needs to know of a kept revision: where its content is, and its size. */
export interface RevisionContent {
  readonly revision: number;
  readonly contentKey: string;
  readonly inline: boolean;
  readonly sizeBytes: number;
}

/**
 * Reads. Outside a transaction each call sees committed data only. Orders are part of the contract:
 * - accounts, API keys and projects: `createdAt` ascending, then `id` ascending;
 * - files: `filename` ascending by Unicode code point (UTF-8 byte order).
 */
export interface RecordsReader {
  findAccountById(q: { accountId: string }): Promise<AccountRecord | null>;
  findAccountByName(q: { name: string }): Promise<AccountRecord | null>;
  listAccounts(): Promise<AccountRecord[]>;

  findApiKeyById(q: { keyId: string }): Promise<ApiKeyRecord | null>;
  /** Revoked keys are returned too; the domain decides. */
  findApiKeyByHash(q: { keyHash: string }): Promise<ApiKeyRecord | null>;
  listApiKeys(q: { accountId: string }): Promise<ApiKeyRecord[]>;

  findProjectById(q: { projectId: string }): Promise<ProjectRecord | null>;
  /** Names are unique among the account's `active` projects only. */
  findActiveProjectByName(q: { accountId: string; name: string }): Promise<ProjectRecord | null>;
  listProjects(q: { accountId: string }): Promise<ProjectRecord[]>;
  listProjectsByStatus(q: { status: ProjectStatus }): Promise<ProjectRecord[]>;

  findFile(q: { projectId: string; filename: string }): Promise<FileRecord | null>;
  listFiles(q: { projectId: string }): Promise<FileRecord[]>;
  /**
   * Whether a non-deleted record points at this blob-store resource: with `key` null, a project whose
   * status is not `deleted` owns the bucket; otherwise a kept revision (of any file, current or not) of
   * the project owning `bucket` has this `contentKey` and is not inline.
   */
  isBlobReferenced(q: { bucket: string; key: string | null }): Promise<boolean>;

  /** A kept revision of a file, or null when it was never written or has been pruned. */
  findRevision(q: { fileId: string; revision: number }): Promise<RevisionRecord | null>;
  /** Kept revisions of a file, newest first, those below `beforeRevision` only when it is given. */
  listRevisions(q: { fileId: string; limit: number; beforeRevision?: number }): Promise<RevisionRecord[]>;
  /** Every kept revision of a file, lean (no metadata), newest first. */
  listRevisionContents(q: { fileId: string }): Promise<RevisionContent[]>;
  /** The bytes of an inline content version, or null when there is none under that key. */
  readInlineContent(q: { projectId: string; contentKey: string }): Promise<Uint8Array | null>;

  /** Intents in `id` order, starting after `afterId` when given (keyset pagination). */
  listBlobIntents(q: { limit: number; afterId?: string }): Promise<BlobIntentRecord[]>;
  listInstances(): Promise<InstanceRecord[]>;
}

/**
 * Writes, only inside `withTransaction`. Unique rules are enforced by the store and reported as a
 * `RecordConflictError` naming the rule; the transaction is then unusable and must be left by throwing.
 */
export interface RecordsTransaction extends RecordsReader {
  /** Unique rule `account_name`. */
  insertAccount(c: { account: AccountRecord }): Promise<void>;
  updateAccountTier(c: { accountId: string; tier: Tier }): Promise<boolean>;

  insertApiKey(c: { apiKey: ApiKeyRecord }): Promise<void>;
  /** Returns false when the key does not exist or is already revoked. */
  revokeApiKey(c: { keyId: string; revokedAt: number }): Promise<boolean>;

  /** Reads the project and holds a write lock on it until the transaction ends. */
  lockProject(q: { projectId: string }): Promise<ProjectRecord | null>;
  /** Unique rule `project_name` (per account, among active projects). */
  insertProject(c: { project: ProjectRecord }): Promise<void>;
  /** Writes every mutable field of the project. Unique rule `project_name`. */
  updateProject(c: { project: ProjectRecord }): Promise<void>;

  /** Unique rule `filename` (per project). */
  insertFile(c: { file: FileRecord }): Promise<void>;
  /** Writes every mutable field of the file (all but id, projectId, filename, createdAt). */
  updateFile(c: { file: FileRecord }): Promise<void>;
  /** Removes the file record only (its revisions and inline contents have their own deletes). */
  deleteFile(c: { fileId: string }): Promise<void>;
  /**
   * Removes every file record of the project, with their revisions and the project's inline contents.
   * Returns how many file records were deleted.
   */
  deleteFilesOfProject(c: { projectId: string }): Promise<number>;

  insertRevision(c: { revision: RevisionRecord }): Promise<void>;
  deleteRevisions(c: { fileId: string; revisions: readonly number[] }): Promise<void>;
  insertInlineContent(c: { projectId: string; contentKey: string; bytes: Uint8Array }): Promise<void>;
  deleteInlineContent(c: { projectId: string; contentKey: string }): Promise<void>;

  insertBlobIntent(c: { intent: BlobIntentRecord }): Promise<void>;
  /** Returns false when the intent was already gone (e.g. claimed by reconciliation). */
  deleteBlobIntent(c: { intentId: string }): Promise<boolean>;

  upsertInstance(c: { instance: InstanceRecord }): Promise<void>;
  deleteInstance(c: { instanceId: string }): Promise<void>;
}

/** Optional features, declared up front so that callers and the contract suite never probe at run time. */
export interface RecordsCapabilities {
  /** Data survives `close()` and reopening the same location. */
  readonly durable: boolean;
  /** Several processes may use one store at once (each with its own repository object). */
  readonly sharedBetweenProcesses: boolean;
}

export interface RecordsRepository extends RecordsReader {
  readonly supports: RecordsCapabilities;
  /**
   * Runs `work` in one serialisable-enough transaction: writes are atomic, and a project read with
   * `lockProject` cannot change under it. Commits when `work` resolves, rolls back when it throws (and
   * rethrows the same error). Keep `work` short: it must never wait on blob I/O or the network.
   */
  withTransaction<T>(work: (tx: RecordsTransaction) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
