import type {
  AccountRecord,
  ApiKeyRecord,
  AttachmentRecord,
  AuditRecord,
  BlobIntentRecord,
  ChangeEventRecord,
  ChunkRecord,
  DraftFileRecord,
  DraftRecord,
  DraftReviewRecord,
  EmbeddingCursorRecord,
  FileRecord,
  InstanceRecord,
  ProjectRecord,
  RevisionRecord,
  ScheduleSlotRecord,
  ShareRecord,
  TrashRecord,
  VectorListsRecord,
  WebhookDeliveryRecord,
  WebhookRecord,
} from '@mdstore/core';
import { type ColumnType, defineTable } from './table.js';

/**
 * The tables of mdstore's records, shared by the SQLite and Postgres adapters. The DDL stays in each
 * adapter's append-only migrations (types differ: BLOB/bytea, INTEGER/BIGINT); each adapter has a test
 * that its migrated schema holds exactly these columns.
 */

export const ACCOUNTS = defineTable<AccountRecord>(
  'accounts',
  {
    id: ['id', 'text'],
    name: ['name', 'text'],
    tier: ['tier', 'text'],
    createdAt: ['created_at', 'integer'],
  },
  { key: ['id'], immutable: ['createdAt'] },
);

/**
 * An API key as stored: its project list and its folders as JSON text (`null`: every project of the
 * account, every file of them).
 */
export type ApiKeyRow = Omit<ApiKeyRecord, 'projectIds' | 'pathPrefixes'> & {
  readonly projectIdsJson: string | null;
  readonly pathPrefixesJson: string | null;
};

export const API_KEYS = defineTable<ApiKeyRow>(
  'api_keys',
  {
    id: ['id', 'text'],
    accountId: ['account_id', 'text'],
    keyHash: ['key_hash', 'text'],
    name: ['name', 'text'],
    role: ['role', 'text'],
    projectIdsJson: ['project_ids_json', 'text'],
    pathPrefixesJson: ['path_prefixes_json', 'text'],
    expiresAt: ['expires_at', 'integer'],
    createdAt: ['created_at', 'integer'],
    revokedAt: ['revoked_at', 'integer'],
    lastUsedAt: ['last_used_at', 'integer'],
  },
  { key: ['id'], immutable: ['accountId', 'keyHash', 'createdAt'] },
);

const jsonList = (list: readonly string[] | null): string | null =>
  list === null ? null : JSON.stringify(list);
const fromJsonList = (json: string | null | undefined): string[] | null =>
  json === null || json === undefined ? null : (JSON.parse(json) as string[]);

export function toApiKeyRow({ projectIds, pathPrefixes, ...key }: ApiKeyRecord): ApiKeyRow {
  return { ...key, projectIdsJson: jsonList(projectIds), pathPrefixesJson: jsonList(pathPrefixes) };
}

export function fromApiKeyRow({ projectIdsJson, pathPrefixesJson, ...key }: ApiKeyRow): ApiKeyRecord {
  return { ...key, projectIds: fromJsonList(projectIdsJson), pathPrefixes: fromJsonList(pathPrefixesJson) };
}

export const PROJECTS = defineTable<ProjectRecord>(
  'projects',
  {
    id: ['id', 'text'],
    accountId: ['account_id', 'text'],
    name: ['name', 'text'],
    description: ['description', 'text'],
    bucketName: ['bucket_name', 'text'],
    isDefault: ['is_default', 'boolean'],
    status: ['status', 'text'],
    fileCount: ['file_count', 'integer'],
    totalSizeBytes: ['total_size_bytes', 'integer'],
    historySizeBytes: ['history_size_bytes', 'integer'],
    trashSizeBytes: ['trash_size_bytes', 'integer'],
    attachmentCount: ['attachment_count', 'integer'],
    attachmentBytes: ['attachment_bytes', 'integer'],
    requireIfMatch: ['require_if_match', 'boolean'],
    keepRevisions: ['keep_revisions', 'integer'],
    trashRetentionDays: ['trash_retention_days', 'integer'],
    keepRevisionsDays: ['keep_revisions_days', 'integer'],
    createdAt: ['created_at', 'integer'],
    updatedAt: ['updated_at', 'integer'],
  },
  { key: ['id'], immutable: ['accountId', 'createdAt'] },
);

/** The columns of a file, once: the `files` table, and a trash item's copy of the file (below). */
const FILE_COLUMNS = {
  id: ['id', 'text'],
  projectId: ['project_id', 'text'],
  filename: ['filename', 'text'],
  sizeBytes: ['size_bytes', 'integer'],
  sha256: ['sha256', 'text'],
  metadataJson: ['metadata_json', 'text'],
  frontmatterJson: ['frontmatter_json', 'text'],
  contentKey: ['content_key', 'text'],
  inline: ['inline', 'boolean'],
  revision: ['revision', 'integer'],
  createdAt: ['created_at', 'integer'],
  updatedAt: ['updated_at', 'integer'],
} as const satisfies { readonly [K in keyof FileRecord]-?: readonly [string, ColumnType] };

export const FILES = defineTable<FileRecord>(
  'files',
  FILE_COLUMNS,
  // A move changes the filename, so it is mutable; the project and the creation time never change.
  { key: ['id'], immutable: ['projectId', 'createdAt'] },
);

/** Attachments (extensions §12): unique `(project_id, path)`; `(project_id, sha256)` finds a twin. */
export const ATTACHMENTS = defineTable<AttachmentRecord>(
  'attachments',
  {
    id: ['id', 'text'],
    projectId: ['project_id', 'text'],
    path: ['path', 'text'],
    sizeBytes: ['size_bytes', 'integer'],
    contentType: ['content_type', 'text'],
    sha256: ['sha256', 'text'],
    blobKey: ['blob_key', 'text'],
    revision: ['revision', 'integer'],
    createdAt: ['created_at', 'integer'],
    updatedAt: ['updated_at', 'integer'],
  },
  { key: ['id'], immutable: ['projectId', 'path', 'createdAt'] },
);

export const REVISIONS = defineTable<RevisionRecord>(
  'file_revisions',
  {
    fileId: ['file_id', 'text'],
    revision: ['revision', 'integer'],
    projectId: ['project_id', 'text'],
    sizeBytes: ['size_bytes', 'integer'],
    sha256: ['sha256', 'text'],
    metadataJson: ['metadata_json', 'text'],
    change: ['change', 'text'],
    contentKey: ['content_key', 'text'],
    inline: ['inline', 'boolean'],
    createdAt: ['created_at', 'integer'],
    changesetId: ['changeset_id', 'text'],
    message: ['message', 'text'],
    filename: ['filename', 'text'],
    keyId: ['key_id', 'text'],
  },
  { key: ['fileId', 'revision'] },
);

/**
 * The fields of a file a trash item row names differently: the item has its own `id`, and the file's
 * dates would read as the item's. The project is the item's and the file's alike.
 */
const TRASHED_FILE_FIELDS = {
  id: 'fileId',
  createdAt: 'fileCreatedAt',
  updatedAt: 'fileUpdatedAt',
} as const satisfies Partial<Record<keyof FileRecord, string>>;
type Renamed = keyof typeof TRASHED_FILE_FIELDS;

/**
 * A trash item as one row: the item's own fields, its kind and (an attachment's) content type, and the
 * file's (those of `TRASHED_FILE_FIELDS` renamed).
 */
export type TrashRow = Omit<TrashRecord, 'file' | 'attachment'> & {
  readonly kind: 'file' | 'attachment';
  readonly contentType: string | null;
} & Omit<FileRecord, Renamed> &
  Omit<FileRecord, Renamed> & { readonly [K in Renamed as (typeof TRASHED_FILE_FIELDS)[K]]: FileRecord[K] };

/** Each file field and the row field it is stored in. */
const TRASHED_FILE = (Object.keys(FILE_COLUMNS) as (keyof FileRecord)[]).map((field) => ({
  field,
  row: (TRASHED_FILE_FIELDS as Partial<Record<keyof FileRecord, string>>)[field] ?? field,
}));

const fileColumn = (field: keyof FileRecord): readonly [string, ColumnType] => {
  const [name, type] = FILE_COLUMNS[field];
  return field in TRASHED_FILE_FIELDS ? [`file_${name}`, type] : [name, type];
};

export const TRASH = defineTable<TrashRow>(
  'trash_items',
  {
    id: ['id', 'text'],
    projectId: ['project_id', 'text'],
    deletedAt: ['deleted_at', 'integer'],
    expiresAt: ['expires_at', 'integer'],
    kind: ['kind', 'text'],
    contentType: ['content_type', 'text'],
    ...(Object.fromEntries(TRASHED_FILE.map(({ field, row }) => [row, fileColumn(field)])) as {
      readonly [K in Exclude<
        keyof TrashRow,
        keyof Omit<TrashRecord, 'file' | 'attachment'> | 'kind' | 'contentType'
      >]: readonly [string, ColumnType];
    }),
  },
  { key: ['id'] },
);

export function toTrashRow(item: TrashRecord): TrashRow {
  const row: Record<string, unknown> = {
    id: item.id,
    projectId: item.projectId,
    deletedAt: item.deletedAt,
    expiresAt: item.expiresAt,
    kind: item.attachment ? 'attachment' : 'file',
    contentType: item.attachment?.contentType ?? null,
  };
  for (const { field, row: name } of TRASHED_FILE) if (field !== 'projectId') row[name] = item.file[field];
  return row as unknown as TrashRow;
}

export function fromTrashRow(row: TrashRow): TrashRecord {
  const file: Record<string, unknown> = {};
  for (const { field, row: name } of TRASHED_FILE)
    file[field] = (row as unknown as Record<string, unknown>)[name];
  return {
    id: row.id,
    projectId: row.projectId,
    deletedAt: row.deletedAt,
    expiresAt: row.expiresAt,
    file: file as unknown as FileRecord,
    ...(row.kind === 'attachment' && { attachment: { contentType: row.contentType ?? '' } }),
  };
}

export const BLOB_INTENTS = defineTable<BlobIntentRecord>(
  'blob_intents',
  {
    id: ['id', 'text'],
    kind: ['kind', 'text'],
    bucket: ['bucket', 'text'],
    key: ['key', 'text'],
    ownerInstanceId: ['owner_instance_id', 'text'],
    createdAt: ['created_at', 'integer'],
    expiresAt: ['expires_at', 'integer'],
  },
  { key: ['id'] },
);

export const INSTANCES = defineTable<InstanceRecord>(
  'instances',
  {
    id: ['id', 'text'],
    hostname: ['hostname', 'text'],
    pid: ['pid', 'integer'],
    startedAt: ['started_at', 'integer'],
    heartbeatAt: ['heartbeat_at', 'integer'],
  },
  { key: ['id'] },
);

/** The audit log (extensions §8). */
export const AUDIT = defineTable<AuditRecord>(
  'audit_entries',
  {
    id: ['id', 'text'],
    at: ['at', 'integer'],
    accountId: ['account_id', 'text'],
    keyId: ['key_id', 'text'],
    action: ['action', 'text'],
    projectId: ['project_id', 'text'],
    filename: ['filename', 'text'],
    status: ['status', 'integer'],
    requestId: ['request_id', 'text'],
    ip: ['ip', 'text'],
  },
  { key: ['id'] },
);

/** The change feed (extensions §7): one row per committed change, keyed by account and `seq`. */
export const CHANGES = defineTable<ChangeEventRecord>(
  'change_events',
  {
    accountId: ['account_id', 'text'],
    seq: ['seq', 'integer'],
    type: ['type', 'text'],
    projectId: ['project_id', 'text'],
    filename: ['filename', 'text'],
    from: ['from_name', 'text'],
    revision: ['revision', 'integer'],
    etag: ['etag', 'text'],
    sizeBytes: ['size_bytes', 'integer'],
    sha256: ['sha256', 'text'],
    changesetId: ['changeset_id', 'text'],
    at: ['at', 'integer'],
  },
  { key: ['accountId', 'seq'] },
);

/** Share links (extensions §11): only the token's hash is kept. */
export const SHARES = defineTable<ShareRecord>(
  'shares',
  {
    id: ['id', 'text'],
    accountId: ['account_id', 'text'],
    projectId: ['project_id', 'text'],
    filename: ['filename', 'text'],
    prefix: ['prefix', 'text'],
    tokenHash: ['token_hash', 'text'],
    createdBy: ['created_by', 'text'],
    createdAt: ['created_at', 'integer'],
    expiresAt: ['expires_at', 'integer'],
    revokedAt: ['revoked_at', 'integer'],
  },
  { key: ['id'], immutable: ['accountId', 'projectId', 'tokenHash', 'createdBy', 'createdAt'] },
);

/** A webhook as stored: its event filters as JSON text. */
export type WebhookRow = Omit<WebhookRecord, 'events'> & { readonly eventsJson: string };

/** Webhooks and their delivery state (extensions §7). */
export const WEBHOOKS = defineTable<WebhookRow>(
  'webhooks',
  {
    id: ['id', 'text'],
    accountId: ['account_id', 'text'],
    url: ['url', 'text'],
    eventsJson: ['events_json', 'text'],
    projectId: ['project_id', 'text'],
    secret: ['secret', 'text'],
    active: ['active', 'boolean'],
    disabledReason: ['disabled_reason', 'text'],
    createdAt: ['created_at', 'integer'],
    cursorSeq: ['cursor_seq', 'integer'],
    attempt: ['attempt', 'integer'],
    nextAttemptAt: ['next_attempt_at', 'integer'],
    leaseOwner: ['lease_owner', 'text'],
    leaseExpiresAt: ['lease_expires_at', 'integer'],
  },
  { key: ['id'], immutable: ['accountId', 'createdAt'] },
);

export function toWebhookRow({ events, ...webhook }: WebhookRecord): WebhookRow {
  return { ...webhook, eventsJson: JSON.stringify(events) };
}

export function fromWebhookRow({ eventsJson, ...webhook }: WebhookRow): WebhookRecord {
  return { ...webhook, events: JSON.parse(eventsJson) as string[] };
}

/** A webhook's deliveries log. */
export const WEBHOOK_DELIVERIES = defineTable<WebhookDeliveryRecord>(
  'webhook_deliveries',
  {
    id: ['id', 'text'],
    webhookId: ['webhook_id', 'text'],
    eventSeq: ['event_seq', 'integer'],
    attempt: ['attempt', 'integer'],
    statusCode: ['status_code', 'integer'],
    error: ['error', 'text'],
    durationMs: ['duration_ms', 'integer'],
    at: ['at', 'integer'],
  },
  { key: ['id'] },
);

/** Drafts (extensions §13). */
export const DRAFTS = defineTable<DraftRecord>(
  'drafts',
  {
    id: ['id', 'text'],
    accountId: ['account_id', 'text'],
    projectId: ['project_id', 'text'],
    title: ['title', 'text'],
    description: ['description', 'text'],
    state: ['state', 'text'],
    authorKeyId: ['author_key_id', 'text'],
    changesetId: ['changeset_id', 'text'],
    createdAt: ['created_at', 'integer'],
    updatedAt: ['updated_at', 'integer'],
  },
  { key: ['id'], immutable: ['accountId', 'projectId', 'authorKeyId', 'createdAt'] },
);

/** A draft's files: one row per filename, the proposal whole (extensions §13). */
export const DRAFT_FILES = defineTable<DraftFileRecord>(
  'draft_files',
  {
    draftId: ['draft_id', 'text'],
    seq: ['seq', 'integer'],
    filename: ['filename', 'text'],
    op: ['op', 'text'],
    baseEtag: ['base_etag', 'text'],
    content: ['content', 'text'],
    metadataJson: ['metadata_json', 'text'],
    to: ['to_name', 'text'],
  },
  { key: ['draftId', 'filename'], immutable: ['seq'] },
);

/** Reviews of drafts (extensions §13). */
export const DRAFT_REVIEWS = defineTable<DraftReviewRecord>(
  'draft_reviews',
  {
    id: ['id', 'text'],
    draftId: ['draft_id', 'text'],
    verdict: ['verdict', 'text'],
    comment: ['comment', 'text'],
    keyId: ['key_id', 'text'],
    createdAt: ['created_at', 'integer'],
  },
  { key: ['id'] },
);

/** Embedded chunks (extensions §15): the vector as float32 little-endian bytes. */
export const CHUNKS = defineTable<ChunkRecord>(
  'search_chunks',
  {
    projectId: ['project_id', 'text'],
    fileId: ['file_id', 'text'],
    filename: ['filename', 'text'],
    ordinal: ['ordinal', 'integer'],
    heading: ['heading', 'text'],
    hash: ['hash', 'text'],
    model: ['model', 'text'],
    vector: ['vector', 'bytes'],
    listGeneration: ['list_generation', 'integer'],
    listNo: ['list_no', 'integer'],
  },
  { key: ['fileId', 'ordinal'] },
);

/** An account's vector lists of a model (extensions §15): the centroids as float32 bytes. */
export const VECTOR_LISTS = defineTable<VectorListsRecord>(
  'vector_lists',
  {
    accountId: ['account_id', 'text'],
    model: ['model', 'text'],
    generation: ['generation', 'integer'],
    dimensions: ['dimensions', 'integer'],
    count: ['count', 'integer'],
    centroids: ['centroids', 'bytes'],
    trainedRows: ['trained_rows', 'integer'],
    createdAt: ['created_at', 'integer'],
  },
  { key: ['accountId', 'model'] },
);

/** The semantic indexer's cursor and lease per account (extensions §15). */
export const EMBEDDING_CURSORS = defineTable<EmbeddingCursorRecord>(
  'embedding_cursors',
  {
    accountId: ['account_id', 'text'],
    seq: ['seq', 'integer'],
    model: ['model', 'text'],
    leaseOwner: ['lease_owner', 'text'],
    leaseExpiresAt: ['lease_expires_at', 'integer'],
    updatedAt: ['updated_at', 'integer'],
  },
  { key: ['accountId'] },
);

/**
 * Slots of shared schedules (extensions §16): which instance runs a scheduled backup, under a lease.
 * Derived state like `instances`: no backup holds it.
 */
export const SCHEDULE_SLOTS = defineTable<ScheduleSlotRecord>(
  'schedule_slots',
  {
    task: ['task', 'text'],
    slotAt: ['slot_at', 'integer'],
    owner: ['owner', 'text'],
    leaseExpiresAt: ['lease_expires_at', 'integer'],
    attempts: ['attempts', 'integer'],
    finishedAt: ['finished_at', 'integer'],
    outcome: ['outcome', 'text'],
  },
  { key: ['task', 'slotAt'] },
);

/** Every record table, for schema checks. */
export const RECORD_TABLES = [
  ACCOUNTS,
  API_KEYS,
  PROJECTS,
  FILES,
  ATTACHMENTS,
  REVISIONS,
  TRASH,
  BLOB_INTENTS,
  INSTANCES,
  AUDIT,
  CHANGES,
  SHARES,
  WEBHOOKS,
  WEBHOOK_DELIVERIES,
  DRAFTS,
  DRAFT_FILES,
  DRAFT_REVIEWS,
  CHUNKS,
  EMBEDDING_CURSORS,
  SCHEDULE_SLOTS,
  VECTOR_LISTS,
] as const;
