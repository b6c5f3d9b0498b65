import type {
  AccountRecord,
  ApiKeyRecord,
  BlobIntentRecord,
  FileRecord,
  InstanceRecord,
  ProjectRecord,
  ProjectStatus,
  Tier,
} from '@mdstore/core';

/** Rows as the pool returns them (int8 already parsed to number, see `pool.ts`). */
export interface AccountRow {
  id: string;
  name: string;
  tier: string;
  created_at: number;
}
export interface ApiKeyRow {
  id: string;
  account_id: string;
  key_hash: string;
  created_at: number;
  revoked_at: number | null;
}
export interface ProjectRow {
  id: string;
  account_id: string;
  name: string;
  description: string | null;
  bucket_name: string;
  is_default: boolean;
  status: string;
  file_count: number;
  total_size_bytes: number;
  created_at: number;
  updated_at: number;
}
export interface FileRow {
  id: string;
  project_id: string;
  filename: string;
  size_bytes: number;
  sha256: string;
  metadata_json: string | null;
  blob_key: string;
  revision: number;
  created_at: number;
  updated_at: number;
}
export interface BlobIntentRow {
  id: string;
  kind: string;
  bucket: string;
  key: string | null;
  owner_instance_id: string;
  created_at: number;
  expires_at: number;
}
export interface InstanceRow {
  id: string;
  hostname: string;
  pid: number;
  started_at: number;
  heartbeat_at: number;
}

export const ACCOUNT_COLUMNS = 'id, name, tier, created_at';
export const API_KEY_COLUMNS = 'id, account_id, key_hash, created_at, revoked_at';
export const PROJECT_COLUMNS =
  'id, account_id, name, description, bucket_name, is_default, status, file_count, total_size_bytes, ' +
  'created_at, updated_at';
export const FILE_COLUMNS =
  'id, project_id, filename, size_bytes, sha256, metadata_json, blob_key, revision, created_at, updated_at';
export const BLOB_INTENT_COLUMNS = 'id, kind, bucket, key, owner_instance_id, created_at, expires_at';
export const INSTANCE_COLUMNS = 'id, hostname, pid, started_at, heartbeat_at';

export const toAccount = (row: AccountRow): AccountRecord => ({
  id: row.id,
  name: row.name,
  tier: row.tier as Tier,
  createdAt: row.created_at,
});

export const toApiKey = (row: ApiKeyRow): ApiKeyRecord => ({
  id: row.id,
  accountId: row.account_id,
  keyHash: row.key_hash,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
});

export const toProject = (row: ProjectRow): ProjectRecord => ({
  id: row.id,
  accountId: row.account_id,
  name: row.name,
  description: row.description,
  bucketName: row.bucket_name,
  isDefault: row.is_default,
  status: row.status as ProjectStatus,
  fileCount: row.file_count,
  totalSizeBytes: row.total_size_bytes,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export const toFile = (row: FileRow): FileRecord => ({
  id: row.id,
  projectId: row.project_id,
  filename: row.filename,
  sizeBytes: row.size_bytes,
  sha256: row.sha256,
  metadataJson: row.metadata_json,
  blobKey: row.blob_key,
  revision: row.revision,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export const toBlobIntent = (row: BlobIntentRow): BlobIntentRecord => ({
  id: row.id,
  kind: row.kind as BlobIntentRecord['kind'],
  bucket: row.bucket,
  key: row.key,
  ownerInstanceId: row.owner_instance_id,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

export const toInstance = (row: InstanceRow): InstanceRecord => ({
  id: row.id,
  hostname: row.hostname,
  pid: row.pid,
  startedAt: row.started_at,
  heartbeatAt: row.heartbeat_at,
});
