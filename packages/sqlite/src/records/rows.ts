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

/** Rows as SELECTed (columns aliased to the record's names), and their mapping to records. */

export const ACCOUNT_COLUMNS = 'id, name, tier, created_at AS createdAt';
export type AccountRow = { id: string; name: string; tier: string; createdAt: number };
export const toAccount = (row: AccountRow): AccountRecord => ({
  id: row.id,
  name: row.name,
  tier: row.tier as Tier,
  createdAt: row.createdAt,
});

export const API_KEY_COLUMNS =
  'id, account_id AS accountId, key_hash AS keyHash, created_at AS createdAt, revoked_at AS revokedAt';
export type ApiKeyRow = ApiKeyRecord;
export const toApiKey = (row: ApiKeyRow): ApiKeyRecord => ({
  id: row.id,
  accountId: row.accountId,
  keyHash: row.keyHash,
  createdAt: row.createdAt,
  revokedAt: row.revokedAt,
});

export const PROJECT_COLUMNS = `id, account_id AS accountId, name, description, bucket_name AS bucketName,
  is_default AS isDefault, status, file_count AS fileCount, total_size_bytes AS totalSizeBytes,
  created_at AS createdAt, updated_at AS updatedAt`;
export type ProjectRow = Omit<ProjectRecord, 'isDefault' | 'status'> & { isDefault: number; status: string };
export const toProject = (row: ProjectRow): ProjectRecord => ({
  id: row.id,
  accountId: row.accountId,
  name: row.name,
  description: row.description,
  bucketName: row.bucketName,
  isDefault: row.isDefault === 1,
  status: row.status as ProjectStatus,
  fileCount: row.fileCount,
  totalSizeBytes: row.totalSizeBytes,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});
/** Named parameters of a project write. */
export const projectParams = (project: ProjectRecord) => ({
  ...project,
  isDefault: project.isDefault ? 1 : 0,
});

export const FILE_COLUMNS = `id, project_id AS projectId, filename, size_bytes AS sizeBytes, sha256,
  metadata_json AS metadataJson, blob_key AS blobKey, revision, created_at AS createdAt, updated_at AS updatedAt`;
export type FileRow = FileRecord;
export const toFile = (row: FileRow): FileRecord => ({
  id: row.id,
  projectId: row.projectId,
  filename: row.filename,
  sizeBytes: row.sizeBytes,
  sha256: row.sha256,
  metadataJson: row.metadataJson,
  blobKey: row.blobKey,
  revision: row.revision,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

export const BLOB_INTENT_COLUMNS = `id, kind, bucket, key, owner_instance_id AS ownerInstanceId,
  created_at AS createdAt, expires_at AS expiresAt`;
export type BlobIntentRow = Omit<BlobIntentRecord, 'kind'> & { kind: string };
export const toBlobIntent = (row: BlobIntentRow): BlobIntentRecord => ({
  id: row.id,
  kind: row.kind as BlobIntentRecord['kind'],
  bucket: row.bucket,
  key: row.key,
  ownerInstanceId: row.ownerInstanceId,
  createdAt: row.createdAt,
  expiresAt: row.expiresAt,
});

export const INSTANCE_COLUMNS = 'id, hostname, pid, started_at AS startedAt, heartbeat_at AS heartbeatAt';
export type InstanceRow = InstanceRecord;
export const toInstance = (row: InstanceRow): InstanceRecord => ({
  id: row.id,
  hostname: row.hostname,
  pid: row.pid,
  startedAt: row.startedAt,
  heartbeatAt: row.heartbeatAt,
});
