import type {
  AccountRecord,
  ApiKeyRecord,
  AttachmentRecord,
  AuditPosition,
  AuditRecord,
  BlobIntentRecord,
  ChunkRecord,
  DraftFileRecord,
  DraftRecord,
  DraftReviewRecord,
  DraftState,
  EmbeddingCursorRecord,
  FileLinksRecord,
  FileRecord,
  InstanceRecord,
  LinkPosition,
  LinkTargetRecord,
  ProjectRecord,
  ProjectStatus,
  RevisionRecord,
  ScheduleSlotRecord,
  ShareRecord,
  SourcedLinkRecord,
  Tier,
  TrashRecord,
  VectorListsRecord,
  WebhookDeliveryPosition,
  WebhookDeliveryRecord,
  WebhookProgress,
  WebhookRecord,
} from '../model/records.js';
import type { JsonNarrowing, PushdownCondition } from '../search/filter/pushdown.js';
import type { SearchQuery } from '../search/query.js';
import type { ChangeFeedReader, ChangeFeedWriter } from './changes.js';

/** What the write path needs to know of a kept revision: where its content is, and its size. */
export interface RevisionContent {
  readonly revision: number;
  readonly contentKey: string;
  readonly inline: boolean;
  readonly sizeBytes: number;
  /** When the revision was written (`keep_revisions_days`, extensions §16). */
  readonly createdAt: number;
}

/** The orders of a file page (extensions §3); every one is broken by `filename`. */
export type FileSortField = 'filename' | 'createdAt' | 'updatedAt' | 'sizeBytes';

/** A position in a file order: the sort field's value (none for `filename`) and the filename. */
export interface FileKeyset {
  readonly value?: number;
  readonly filename: string;
}

/**
 * One page of a project's files: those whose filename starts with `prefix` ('' for all), ordered by
 * `sort` then `filename`, both descending when `descending`, strictly after `after` in that order (at
 * or after it when `inclusive`), at most `limit`. Adapters answer it with an index range scan
 * (keyset pagination): its cost depends on `limit`, not on the project's size.
 */
export interface FilePageQuery {
  readonly projectId: string;
  readonly sort: FileSortField;
  readonly descending: boolean;
  readonly prefix: string;
  readonly after?: FileKeyset;
  readonly inclusive?: boolean;
  readonly limit: number;
}

/**
 * What `countFiles` counts among the files whose filename starts with `prefix`: all of them, or with
 * `delimiter` only those with no `/` after the prefix (`files`, `sizeBytes`) and the distinct folder
 * names (prefix + segment + `/`) of the others (`folders`, else 0).
 */
export interface FileCounts {
  readonly files: number;
  readonly sizeBytes: number;
  readonly folders: number;
}

/**
 * One page of a project's attachments (extensions §12): those whose path starts with `prefix`, in path
 * order (code points), strictly after `after` (at or after it when `inclusive`), at most `limit`. Adapters
 * answer it with an index range scan: its cost depends on `limit`, not on the project's size.
 */
export interface AttachmentPageQuery {
  readonly projectId: string;
  readonly prefix: string;
  readonly after?: string;
  readonly inclusive?: boolean;
  readonly limit: number;
}

/** A position in List Projects order. */
export interface ProjectKeyset {
  readonly createdAt: number;
  readonly id: string;
}

/** Where a search walk stands: files come in `(projectId, filename)` order, both by code point. */
/** A place in the chunk scan's order. */
export interface ChunkPosition {
  readonly projectId: string;
  readonly fileId: string;
  readonly ordinal: number;
  /** In a scan of lists, which come list by list: the list of the chunk. */
  readonly listNo?: number;
}

/** Which vector lists a chunk scan reads (`listChunkVectors`). */
export interface ChunkLists {
  readonly generation: number;
  readonly listNos: readonly number[];
}

export interface SearchPosition {
  readonly projectId: string;
  readonly filename: string;
}

/** What `findSearchCandidates` looks for (extensions §3, search). */
export interface SearchCandidatesQuery {
  /** Files of these projects only (any status: the caller picks the projects). */
  readonly projectIds: readonly string[];
  /**
   * With a query, only files whose search index may match it: every file `matchesQuery` accepts must be
   * returned; a store may return more (the caller checks each candidate with `matchesQuery`).
   */
  readonly query: SearchQuery | null;
  /** Exact conditions on the file's own columns (`planFilter`'s pushdown): every one must hold. */
  readonly conditions: readonly PushdownCondition[];
  /**
   * Necessary conditions on `metadata`/`frontmatter` values (`planFilter`'s narrowing): a store may
   * leave out a file that fails one, never one that holds them all; it may also ignore them.
   */
  readonly narrowing?: readonly JsonNarrowing[];
  /** Only these files, when given. */
  readonly fileIds?: readonly string[];
  /** Whether each candidate comes with the indexed text of its content. */
  readonly withText: boolean;
  /** Files strictly after this position only. */
  readonly after?: SearchPosition;
  /** At most this many candidates, the first ones in `(projectId, filename)` order. */
  readonly limit: number;
}

/** A file that may match a search, with the text of its content as indexed (first 1 MiB) when asked. */
export interface SearchCandidate {
  readonly file: FileRecord;
  readonly contentText: string | null;
}

export interface AuditQuery {
  readonly accountId: string;
  readonly limit: number;
  readonly after?: AuditPosition;
  readonly since?: number;
  readonly until?: number;
  readonly keyId?: string;
  readonly projectIds?: readonly string[];
  readonly status?: number;
}

/** Where a page of the trash starts: after this item in the order newest deletion first. */
export interface TrashPosition {
  readonly deletedAt: number;
  readonly id: string;
}

/** A position in a project's drafts, newest first (`createdAt` then `id`, both descending). */
export interface DraftPosition {
  readonly createdAt: number;
  readonly id: string;
}

/**
 * Reads. Outside a transaction each call sees committed data only. Orders are part of the contract:
 * - accounts, API keys and projects: `createdAt` ascending, then `id` ascending;
 * - files: `filename` ascending by Unicode code point (UTF-8 byte order).
 */
export interface RecordsReader extends ChangeFeedReader {
  findAccountById(q: { accountId: string }): Promise<AccountRecord | null>;
  findAccountByName(q: { name: string }): Promise<AccountRecord | null>;
  listAccounts(): Promise<AccountRecord[]>;

  findApiKeyById(q: { keyId: string }): Promise<ApiKeyRecord | null>;
  /**
   * The keys with these ids (of any account, revoked ones too), in no given order; unknown ids are
   * left out. One bounded read: at most one row per id (issue 34: the share listing reads only the
   * creators of its shares, not the account's keys).
   */
  findApiKeys(q: { keyIds: readonly string[] }): Promise<ApiKeyRecord[]>;
  /** Revoked keys are returned too; the domain decides. */
  findApiKeyByHash(q: { keyHash: string }): Promise<ApiKeyRecord | null>;
  /**
   * The key with this hash and its account, read together (authentication's one read: one round trip on
   * a networked store), or null when there is no such key or its account is gone. Revoked keys are
   * returned too.
   */
  findApiKeyWithAccount(q: {
    keyHash: string;
  }): Promise<{ apiKey: ApiKeyRecord; account: AccountRecord } | null>;
  /**
   * The account's keys, `createdAt` then `id` ascending; with `activeOnly`, only those not revoked; with
   * `limit`, at most that many (the store's query is bounded: issue 34).
   */
  listApiKeys(q: { accountId: string; activeOnly?: boolean; limit?: number }): Promise<ApiKeyRecord[]>;
  // Share links (extensions §11); revoked and expired ones too: the domain decides.
  findShareById(q: { shareId: string }): Promise<ShareRecord | null>;
  findShareByHash(q: { tokenHash: string }): Promise<ShareRecord | null>;
  /**
   * The project's shares, `createdAt` then `id` ascending; with `liveAt`, only those neither revoked nor
   * expired at that time; with `limit`, at most that many (a bounded query: issue 34).
   */
  listShares(q: { projectId: string; liveAt?: number; limit?: number }): Promise<ShareRecord[]>;

  findProjectById(q: { projectId: string }): Promise<ProjectRecord | null>;
  /** Names are unique among the account's `active` projects only. */
  findActiveProjectByName(q: { accountId: string; name: string }): Promise<ProjectRecord | null>;
  listProjects(q: { accountId: string }): Promise<ProjectRecord[]>;
  listProjectsByStatus(q: { status: ProjectStatus }): Promise<ProjectRecord[]>;
  /** The account's projects after `after` in List Projects order, at most `limit` (keyset pagination). */
  listProjectPage(q: { accountId: string; after?: ProjectKeyset; limit: number }): Promise<ProjectRecord[]>;
  countProjects(q: { accountId: string }): Promise<number>;

  findFile(q: { projectId: string; filename: string }): Promise<FileRecord | null>;
  /**
   * The files of a project among `filenames` (those that exist, in no particular order): one read for
   * many names (a changeset's plan, and its check under the lock; extensions §9).
   */
  findFiles(q: { projectId: string; filenames: readonly string[] }): Promise<FileRecord[]>;
  listFiles(q: { projectId: string }): Promise<FileRecord[]>;
  listFilePage(q: FilePageQuery): Promise<FileRecord[]>;
  countFiles(q: { projectId: string; prefix: string; delimiter: boolean }): Promise<FileCounts>;
  /**
   * Whether a non-deleted record points at this blob-store resource: with `key` null, a project whose
   * status is not `deleted` owns the bucket; otherwise a kept revision (of any file, current or not) of
   * the project owning `bucket` has this `contentKey` and is not inline, or an attachment of that
   * project has this `blobKey`, or an attachment's trash item of that project has it as `contentKey`
   * (extensions §12).
   */
  isBlobReferenced(q: { bucket: string; key: string | null }): Promise<boolean>;

  // Attachments (extensions §12).
  findAttachment(q: { projectId: string; path: string }): Promise<AttachmentRecord | null>;
  /** The attachments of the project at these exact paths (those that exist, in any order): what links name. */
  /**
   * The project's attachments at one of `paths`, and those whose last path segment is one of `names` (a
   * wiki link's name, extensions §12); in path order.
   */
  findAttachments(q: {
    projectId: string;
    paths: readonly string[];
    names?: readonly string[];
  }): Promise<AttachmentRecord[]>;
  /** One attachment of the project with these bytes (any one of them), or null: the dedupe look-up. */
  findAttachmentBySha256(q: { projectId: string; sha256: string }): Promise<AttachmentRecord | null>;
  listAttachmentPage(q: AttachmentPageQuery): Promise<AttachmentRecord[]>;

  /** A kept revision of a file, or null when it was never written or has been pruned. */
  findRevision(q: { fileId: string; revision: number }): Promise<RevisionRecord | null>;
  /** Kept revisions of a file, newest first, those below `beforeRevision` only when it is given. */
  listRevisions(q: { fileId: string; limit: number; beforeRevision?: number }): Promise<RevisionRecord[]>;
  /** Every kept revision of a file, lean (no metadata), newest first. */
  listRevisionContents(q: { fileId: string }): Promise<RevisionContent[]>;
  /** The bytes of an inline content version, or null when there is none under that key. */
  readInlineContent(q: { projectId: string; contentKey: string }): Promise<Uint8Array | null>;

  /**
   * Candidates of a search, in `(projectId, filename)` order (code points). Files never given to
   * `indexFile` have no index: they are never candidates of a query (but are of a query-less search).
   */
  findSearchCandidates(q: SearchCandidatesQuery): Promise<SearchCandidate[]>;
  /**
   * The indexed words that start with `word` (normalised, as queries hold them), at most `limit`, in
   * the order of their `ftsTerm` encodings (UTF-8 byte order), of any project; or null when the store's
   * index takes a prefix query without expanding it over a vocabulary (memory: it matches each
   * document itself). Search replaces a `word*` by the words found, so the engine never expands a
   * prefix over more than `SEARCH_COST_LIMITS.prefixMaxTerms` words (issue 34). A word is listed while
   * an indexed file holds it: re-indexing, deletes and purges take their words out.
   */
  expandSearchPrefix(q: { word: string; limit: number }): Promise<string[] | null>;
  /** Files that were never given to `indexFile` (stored before search existed), in `id` order. */
  listUnindexedFiles(q: { limit: number }): Promise<FileRecord[]>;

  /**
   * The link index entry of a file (extensions §9), or null when it has none (stored before links);
   * its `links` in seq order, those after `afterSeq` only when it is given, at most `limit` when it is
   * given (the store's `LIMIT`).
   */
  findFileLinks(q: { fileId: string; afterSeq?: number; limit?: number }): Promise<FileLinksRecord | null>;
  /**
   * Links of the project that may point at one of the given names: Markdown or wiki links whose `path`
   * is one of `paths`, and wiki links whose `stem` is one of `stems`; in (source filename, seq) order,
   * those after `after` only when it is given, at most `limit` when it is given (the store's `LIMIT`).
   */
  listLinksTo(q: {
    projectId: string;
    paths: readonly string[];
    stems: readonly string[];
    after?: LinkPosition;
    limit?: number;
  }): Promise<SourcedLinkRecord[]>;
  /**
   * Files of the project a link may resolve to: those named one of `filenames`, and those whose link
   * index has a `stem` among `stems`; in filename order.
   */
  listLinkTargets(q: {
    projectId: string;
    filenames: readonly string[];
    stems: readonly string[];
  }): Promise<LinkTargetRecord[]>;
  /**
   * The project's links in (source filename, seq) order, after `after` when given, at most `limit`;
   * a store may mark those that certainly resolve (`SourcedLinkRecord.resolved`, never wrongly).
   */
  listLinkPage(q: { projectId: string; after?: LinkPosition; limit: number }): Promise<SourcedLinkRecord[]>;
  /** Files without a link index entry (stored before the link index existed), in `id` order. */
  listFilesWithoutLinks(q: { limit: number }): Promise<FileRecord[]>;

  /** A trash item of the project, expired or not (the domain decides), or null. */
  findTrashItem(q: { projectId: string; trashId: string }): Promise<TrashRecord | null>;
  /**
   * The project's trash items that have not expired at `now` (`expiresAt > now`), newest deletion first
   * (`deletedAt` descending, then `id` descending), those after `after` only when it is given.
   */
  listTrash(q: {
    projectId: string;
    now: number;
    limit: number;
    after?: TrashPosition;
  }): Promise<TrashRecord[]>;
  /** How many of the project's trash items have not expired at `now`. */
  countTrash(q: { projectId: string; now: number }): Promise<number>;
  /** Trash items of any project that have expired at `now` (`expiresAt <= now`), `expiresAt` then `id` ascending. */
  listExpiredTrash(q: { now: number; limit: number }): Promise<TrashRecord[]>;

  /**
   * The account's audit entries, newest first (`at` descending, then `id` descending), those after
   * `after` only when given; each filter given must hold (`since` inclusive, `until` exclusive;
   * `projectIds`: the entry's project is one of them).
   */
  listAuditEntries(q: AuditQuery): Promise<AuditRecord[]>;

  // Drafts (extensions §13).
  findDraft(q: { draftId: string }): Promise<DraftRecord | null>;
  /**
   * The project's drafts newest first (`createdAt` then `id` descending), only those in `state` when
   * given, those after `after` only when given, at most `limit` (the store's `LIMIT`).
   */
  listDrafts(q: {
    projectId: string;
    state?: DraftState;
    after?: DraftPosition;
    limit: number;
  }): Promise<DraftRecord[]>;
  /** How many of the project's drafts are in `state` (the bound on open drafts). */
  countDrafts(q: { projectId: string; state: DraftState }): Promise<number>;
  /** A draft's files in `seq` order, those with `seq` > `afterSeq` only when given, at most `limit`. */
  listDraftFiles(q: { draftId: string; afterSeq?: number; limit: number }): Promise<DraftFileRecord[]>;
  findDraftFile(q: { draftId: string; filename: string }): Promise<DraftFileRecord | null>;
  /** A draft's reviews oldest first (`createdAt` then `id`), at most `limit`. */
  listDraftReviews(q: { draftId: string; limit: number }): Promise<DraftReviewRecord[]>;

  findWebhook(q: { webhookId: string }): Promise<WebhookRecord | null>;
  /** The account's webhooks, `createdAt` then `id` ascending, at most `limit` (the store's `LIMIT`: issue 34). */
  listWebhooks(q: { accountId: string; limit: number }): Promise<WebhookRecord[]>;
  /** Active webhooks of every account in `id` order, after `afterId` when given (the delivery engine's sweep). */
  listActiveWebhooks(q: { limit: number; afterId?: string }): Promise<WebhookRecord[]>;
  /** A webhook's delivery attempts, newest first (`at` then `id` descending), after `after` when given. */
  listWebhookDeliveries(q: {
    webhookId: string;
    limit: number;
    after?: WebhookDeliveryPosition;
  }): Promise<WebhookDeliveryRecord[]>;

  /** Intents in `id` order, starting after `afterId` when given (keyset pagination). */
  listBlobIntents(q: { limit: number; afterId?: string }): Promise<BlobIntentRecord[]>;
  listInstances(): Promise<InstanceRecord[]>;

  /** A secret the instances sharing the store share (e.g. `cursor`), or null before one was kept. */
  findStoreSecret(q: { name: string }): Promise<string | null>;
  /** The chunks of one file (every model), in `ordinal` order (extensions §15). */
  listFileChunks(q: { fileId: string }): Promise<ChunkRecord[]>;
  /**
   * The chunks of `model` in these projects, in `(projectId, fileId, ordinal)` order, strictly after
   * `after` when given, at most `limit`: the exact scan of search by meaning reads them page by page.
   */
  listChunkVectors(q: {
    projectIds: readonly string[];
    model: string;
    after?: ChunkPosition;
    limit: number;
    /**
     * Only the chunks filed in these lists of that generation; `null`: only those filed in none
     * (`listGeneration` null). Absent: every chunk. Each is one index range in the SQL stores.
     */
    lists?: ChunkLists | null;
  }): Promise<ChunkRecord[]>;
  /** How many chunks of `model` these projects have, counted up to `limit` at most. */
  countChunkVectors(q: { projectIds: readonly string[]; model: string; limit: number }): Promise<number>;
  /** The vector lists of an account and model, or null before they were trained. */
  findVectorLists(q: { accountId: string; model: string }): Promise<VectorListsRecord | null>;
  /** How many distinct files of the project have chunks of `model`. */
  countEmbeddedFiles(q: { projectId: string; model: string }): Promise<number>;
  /** The semantic indexer's position in an account's feed, or null before its first step. */
  findEmbeddingCursor(q: { accountId: string }): Promise<EmbeddingCursorRecord | null>;
  /** A slot of a shared schedule (extensions §16), or null when no instance has claimed it. */
  findScheduleSlot(q: { task: string; slotAt: number }): Promise<ScheduleSlotRecord | null>;
}

/**
 * Writes, only inside `withTransaction`. Unique rules are enforced by the store and reported as a
 * `RecordConflictError` naming the rule; the transaction is then unusable and must be left by throwing.
 */
export interface RecordsTransaction extends RecordsReader, ChangeFeedWriter {
  /** Unique rule `account_name`. */
  insertAccount(c: { account: AccountRecord }): Promise<void>;
  updateAccountTier(c: { accountId: string; tier: Tier }): Promise<boolean>;

  insertApiKey(c: { apiKey: ApiKeyRecord }): Promise<void>;
  /** Returns false when the key does not exist or is already revoked. */
  revokeApiKey(c: { keyId: string; revokedAt: number }): Promise<boolean>;
  /** Notes a use of the key; a time earlier than the stored one is ignored. */
  touchApiKey(c: { keyId: string; lastUsedAt: number }): Promise<void>;
  insertShare(c: { share: ShareRecord }): Promise<void>;
  /** Returns false when the share does not exist or is already revoked. */
  revokeShare(c: { shareId: string; revokedAt: number }): Promise<boolean>;

  insertAuditEntries(c: { entries: readonly AuditRecord[] }): Promise<void>;
  /** Deletes at most `limit` audit entries older than `before` (oldest first); returns how many. */
  deleteAuditEntriesBefore(c: { before: number; limit: number }): Promise<number>;

  insertDraft(c: { draft: DraftRecord }): Promise<void>;
  /** Writes every mutable field of the draft (title, description, state, changesetId, updatedAt). */
  updateDraft(c: { draft: DraftRecord }): Promise<void>;
  /** Writes a draft's file: a new row, or the one of the same `draftId` and `filename` replaced whole. */
  putDraftFile(c: { file: DraftFileRecord }): Promise<void>;
  insertDraftReview(c: { review: DraftReviewRecord }): Promise<void>;

  insertWebhook(c: { webhook: WebhookRecord }): Promise<void>;
  /** Removes the webhook and its deliveries log; false when it was not there. */
  deleteWebhook(c: { webhookId: string }): Promise<boolean>;
  /**
   * Takes (or renews) the lease of an active webhook for `owner` until `until`, when nobody else holds an
   * unexpired one (`leaseExpiresAt <= now` has expired); returns the webhook as claimed, or null. The one
   * claim that keeps two instances from making the same attempt.
   */
  claimWebhook(c: {
    webhookId: string;
    owner: string;
    now: number;
    until: number;
  }): Promise<WebhookRecord | null>;
  /**
   * Writes the delivery state when `owner` still holds the lease (false otherwise: nothing written); a
   * null `leaseExpiresAt` releases it.
   */
  saveWebhookProgress(c: { webhookId: string; owner: string; progress: WebhookProgress }): Promise<boolean>;
  /** Makes the webhook active again from its pending event, its failed attempts forgotten; false when absent. */
  enableWebhook(c: { webhookId: string }): Promise<boolean>;
  insertWebhookDelivery(c: { delivery: WebhookDeliveryRecord }): Promise<void>;
  /** Deletes at most `limit` delivery attempts (of any webhook) older than `before`, oldest first; returns how many. */
  deleteWebhookDeliveriesBefore(c: { before: number; limit: number }): Promise<number>;

  /** Reads the project and holds a write lock on it until the transaction ends. */
  lockProject(q: { projectId: string }): Promise<ProjectRecord | null>;
  /** Unique rule `project_name` (per account, among active projects). */
  insertProject(c: { project: ProjectRecord }): Promise<void>;
  /** Writes every mutable field of the project. Unique rule `project_name`. */
  updateProject(c: { project: ProjectRecord }): Promise<void>;

  /** Unique rule `filename` (per project). */
  insertFile(c: { file: FileRecord }): Promise<void>;
  /**
   * Writes every mutable field of the file (all but id, projectId, createdAt); a new `filename` is a
   * move. Unique rule `filename` (per project).
   */
  updateFile(c: { file: FileRecord }): Promise<void>;
  /**
   * Indexes the file for search as it now is (filename, metadata, front matter) with the text of its
   * content (the first 1 MiB; longer text is cut), or with the text it was last indexed with when
   * `contentText` is null (a write that kept the content). Call it after `insertFile`/`updateFile`.
   * `deleteFile` and `purgeProjectRecords` remove the index of the files they delete.
   */
  indexFile(c: { file: FileRecord; contentText: string | null }): Promise<void>;
  /**
   * Replaces the file's link index entry (extensions §9). Call it after `insertFile`/`updateFile`, in
   * the same transaction; `deleteFile` and `purgeProjectRecords` remove the entries of the files they
   * delete.
   */
  indexLinks(c: { entry: FileLinksRecord }): Promise<void>;
  /** Removes the file record only (its revisions and inline contents have their own deletes). */
  deleteFile(c: { fileId: string }): Promise<void>;
  /** Unique rule `attachment_path` (per project). */
  insertAttachment(c: { attachment: AttachmentRecord }): Promise<void>;
  /** Writes every mutable field (all but id, projectId, path, createdAt). */
  updateAttachment(c: { attachment: AttachmentRecord }): Promise<void>;
  /**
   * Gives the attachment another path (a move, extensions §12): the same record and blob, nothing else
   * written. Unique rule `attachment_path` (per project).
   */
  renameAttachment(c: { attachmentId: string; path: string }): Promise<void>;
  deleteAttachment(c: { attachmentId: string }): Promise<void>;

  /**
   * Removes at most `limit` of the project's record rows in all: its files' search and link index
   * entries, revisions, inline contents, trash items, attachments and file records, in that order (one
   * bounded statement per kind, each `LIMIT` what is left of `limit`). Returns how many rows it removed:
   * fewer than `limit` means none is left. Project deletion calls it batch by batch (issue 34), each in
   * its own transaction, once the project is `deleting` (gone for every reader).
   */
  purgeProjectRecords(c: { projectId: string; limit: number }): Promise<number>;

  insertRevision(c: { revision: RevisionRecord }): Promise<void>;
  deleteRevisions(c: { fileId: string; revisions: readonly number[] }): Promise<void>;
  insertInlineContent(c: { projectId: string; contentKey: string; bytes: Uint8Array }): Promise<void>;
  deleteInlineContent(c: { projectId: string; contentKey: string }): Promise<void>;

  /** Puts a (deleted) file into the trash; its revisions stay where they are. */
  insertTrashItem(c: { item: TrashRecord }): Promise<void>;
  /**
   * Removes a trash item and returns it as it was, or null when it is not there (never was, or another
   * transaction took it first): the claim that keeps two purges, restores or expiries from both acting.
   */
  deleteTrashItem(c: { projectId: string; trashId: string }): Promise<TrashRecord | null>;

  insertBlobIntent(c: { intent: BlobIntentRecord }): Promise<void>;
  /** Returns false when the intent was already gone (e.g. claimed by reconciliation). */
  deleteBlobIntent(c: { intentId: string }): Promise<boolean>;

  upsertInstance(c: { instance: InstanceRecord }): Promise<void>;
  deleteInstance(c: { instanceId: string }): Promise<void>;

  /** Keeps `value` under `name` unless a value is kept there already (first writer wins); returns the kept one. */
  keepStoreSecret(c: { name: string; value: string }): Promise<string>;
  /**
   * Replaces the chunks of a file: deletes those of `fileId` and those filed under `(projectId,
   * filename)` (a file of that name deleted earlier), then inserts `chunks` (extensions §15).
   */
  replaceFileChunks(c: {
    projectId: string;
    fileId: string;
    filename: string;
    chunks: readonly ChunkRecord[];
  }): Promise<void>;
  /** Keeps an account's vector lists of a model, replacing those it had. */
  saveVectorLists(c: VectorListsRecord): Promise<void>;
  /** Files chunks in lists: each `(fileId, ordinal)` gets `generation` and its `listNo`. */
  setChunkLists(c: {
    generation: number;
    chunks: readonly { fileId: string; ordinal: number; listNo: number }[];
  }): Promise<void>;
  /** Deletes the chunks filed under `(projectId, filename)`; returns how many. */
  deleteFileChunks(c: { projectId: string; filename: string }): Promise<number>;
  /**
   * Deletes at most `limit` chunks of a project (one bounded statement, `LIMIT`); returns how many:
   * fewer than `limit` means none is left. The indexer calls it batch by batch, each in its own
   * transaction, for a project that is no longer active (issue 34), like `purgeProjectRecords`.
   */
  deleteProjectChunks(c: { projectId: string; limit: number }): Promise<number>;
  /**
   * Claims the indexer's lease on an account (creating its cursor at `seq` 0 when missing): succeeds
   * when the lease is free, expired (`leaseExpiresAt` ≤ `now`) or already `owner`'s; then it is
   * `owner`'s until `until` and the cursor is returned. One conditional write: of two claimers, one wins.
   */
  claimEmbeddingCursor(c: {
    accountId: string;
    owner: string;
    now: number;
    until: number;
  }): Promise<EmbeddingCursorRecord | null>;
  /**
   * Moves the cursor when `owner` still holds the lease (false otherwise: nothing written); a null
   * `leaseExpiresAt` releases it.
   */
  saveEmbeddingCursor(c: {
    accountId: string;
    owner: string;
    seq: number;
    model: string;
    leaseExpiresAt: number | null;
    now: number;
  }): Promise<boolean>;
  /**
   * Claims a slot of a shared schedule for `owner` until `until` (extensions §16): creates it when no
   * instance has (attempt 1); takes it when it is not finished and either `owner` holds it already (a
   * renewal: `attempts` unchanged) or its lease has expired (`leaseExpiresAt` ≤ `now`) and it has been
   * taken fewer than `maxAttempts` times (`attempts` + 1). One conditional write: of two claimers, one
   * wins. Returns whether this call took it, and the slot as it stands after the call.
   */
  claimScheduleSlot(c: {
    task: string;
    slotAt: number;
    owner: string;
    now: number;
    until: number;
    maxAttempts: number;
  }): Promise<{ claimed: boolean; slot: ScheduleSlotRecord }>;
  /**
   * Marks a slot finished with `outcome` when `owner` still holds it (false otherwise: nothing written),
   * releasing its lease.
   */
  finishScheduleSlot(c: {
    task: string;
    slotAt: number;
    owner: string;
    outcome: 'ok' | 'failed';
    now: number;
  }): Promise<boolean>;
  /** Deletes at most `limit` slots of `task` older than `before` (one bounded statement); returns how many. */
  deleteScheduleSlotsBefore(c: { task: string; before: number; limit: number }): Promise<number>;
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
