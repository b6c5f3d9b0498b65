import type {
  AccountRecord,
  ApiKeyRecord,
  BlobIntentRecord,
  FileRecord,
  InstanceRecord,
  ProjectRecord,
  RevisionRecord,
  TrashRecord,
} from '@mdstore/core';
import { defineTable } from './table.js';

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

export const API_KEYS = defineTable<ApiKeyRecord>(
  'api_keys',
  {
    id: ['id', 'text'],
    accountId: ['account_id', 'text'],
    keyHash: ['key_hash', 'text'],
    createdAt: ['created_at', 'integer'],
    revokedAt: ['revoked_at', 'integer'],
  },
  { key: ['id'], immutable: ['accountId', 'keyHash', 'createdAt'] },
);

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
    requireIfMatch: ['require_if_match', 'boolean'],
    keepRevisions: ['keep_revisions', 'integer'],
    trashRetentionDays: ['trash_retention_days', 'integer'],
    createdAt: ['created_at', 'integer'],
    updatedAt: ['updated_at', 'integer'],
  },
  { key: ['id'], immutable: ['accountId', 'createdAt'] },
);

export const FILES = defineTable<FileRecord>(
  'files',
  {
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
  },
  // A move changes the filename, so it is mutable; the project and the creation time never change.
  { key: ['id'], immutable: ['projectId', 'createdAt'] },
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
  },
  { key: ['fileId', 'revision'] },
);

/** A trash item as one row: the file's fields under `file_*` names beside the item's own. */
export interface TrashRow {
  readonly id: string;
  readonly projectId: string;
  readonly deletedAt: number;
  readonly expiresAt: number;
  readonly fileId: string;
  readonly filename: string;
  readonly sizeBytes: number;
  readonly sha256: string;
  readonly metadataJson: string | null;
  readonly frontmatterJson: string | null;
  readonly contentKey: string;
  readonly inline: boolean;
  readonly revision: number;
  readonly fileCreatedAt: number;
  readonly fileUpdatedAt: number;
}

export const TRASH = defineTable<TrashRow>(
  'trash_items',
  {
    id: ['id', 'text'],
    projectId: ['project_id', 'text'],
    deletedAt: ['deleted_at', 'integer'],
    expiresAt: ['expires_at', 'integer'],
    fileId: ['file_id', 'text'],
    filename: ['filename', 'text'],
    sizeBytes: ['size_bytes', 'integer'],
    sha256: ['sha256', 'text'],
    metadataJson: ['metadata_json', 'text'],
    frontmatterJson: ['frontmatter_json', 'text'],
    contentKey: ['content_key', 'text'],
    inline: ['inline', 'boolean'],
    revision: ['revision', 'integer'],
    fileCreatedAt: ['file_created_at', 'integer'],
    fileUpdatedAt: ['file_updated_at', 'integer'],
  },
  { key: ['id'] },
);

export function toTrashRow(item: TrashRecord): TrashRow {
  const { file } = item;
  return {
    id: item.id,
    projectId: item.projectId,
    deletedAt: item.deletedAt,
    expiresAt: item.expiresAt,
    fileId: file.id,
    filename: file.filename,
    sizeBytes: file.sizeBytes,
    sha256: file.sha256,
    metadataJson: file.metadataJson,
    frontmatterJson: file.frontmatterJson,
    contentKey: file.contentKey,
    inline: file.inline,
    revision: file.revision,
    fileCreatedAt: file.createdAt,
    fileUpdatedAt: file.updatedAt,
  };
}

export function fromTrashRow(row: TrashRow): TrashRecord {
  return {
    id: row.id,
    projectId: row.projectId,
    deletedAt: row.deletedAt,
    expiresAt: row.expiresAt,
    file: {
      id: row.fileId,
      projectId: row.projectId,
      filename: row.filename,
      sizeBytes: row.sizeBytes,
      sha256: row.sha256,
      metadataJson: row.metadataJson,
      frontmatterJson: row.frontmatterJson,
      contentKey: row.contentKey,
      inline: row.inline,
      revision: row.revision,
      createdAt: row.fileCreatedAt,
      updatedAt: row.fileUpdatedAt,
    },
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

/** Every record table, for schema checks. */
export const RECORD_TABLES = [
  ACCOUNTS,
  API_KEYS,
  PROJECTS,
  FILES,
  REVISIONS,
  TRASH,
  BLOB_INTENTS,
  INSTANCES,
] as const;
