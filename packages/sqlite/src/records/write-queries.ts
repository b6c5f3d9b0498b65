import type { RecordsReader, RecordsTransaction } from '@mdstore/core';
import type { Db } from '../connections.js';
import type { Synchronous } from './read-queries.js';
import { projectParams } from './rows.js';

/** The writes of a transaction; `lockProject` is a read on the writer (see the repository). */
export type SyncWriter = Synchronous<Omit<RecordsTransaction, keyof RecordsReader | 'lockProject'>>;

/** Prepares every write statement once on the writer connection. Run only inside a transaction. */
export function createWriteQueries(db: Db): SyncWriter {
  const insertAccount = db.prepare(
    'INSERT INTO accounts (id, name, tier, created_at) VALUES (@id, @name, @tier, @createdAt)',
  );
  const updateAccountTier = db.prepare('UPDATE accounts SET tier = @tier WHERE id = @accountId');

  const insertApiKey = db.prepare(
    `INSERT INTO api_keys (id, account_id, key_hash, created_at, revoked_at)
     VALUES (@id, @accountId, @keyHash, @createdAt, @revokedAt)`,
  );
  const revokeApiKey = db.prepare(
    'UPDATE api_keys SET revoked_at = @revokedAt WHERE id = @keyId AND revoked_at IS NULL',
  );

  const insertProject = db.prepare(
    `INSERT INTO projects (id, account_id, name, description, bucket_name, is_default, status, file_count,
       total_size_bytes, created_at, updated_at)
     VALUES (@id, @accountId, @name, @description, @bucketName, @isDefault, @status, @fileCount,
       @totalSizeBytes, @createdAt, @updatedAt)`,
  );
  const updateProject = db.prepare(
    `UPDATE projects SET name = @name, description = @description, bucket_name = @bucketName,
       is_default = @isDefault, status = @status, file_count = @fileCount,
       total_size_bytes = @totalSizeBytes, updated_at = @updatedAt
     WHERE id = @id`,
  );

  const insertFile = db.prepare(
    `INSERT INTO files (id, project_id, filename, size_bytes, sha256, metadata_json, blob_key, revision,
       created_at, updated_at)
     VALUES (@id, @projectId, @filename, @sizeBytes, @sha256, @metadataJson, @blobKey, @revision,
       @createdAt, @updatedAt)`,
  );
  const updateFile = db.prepare(
    `UPDATE files SET size_bytes = @sizeBytes, sha256 = @sha256, metadata_json = @metadataJson,
       blob_key = @blobKey, revision = @revision, updated_at = @updatedAt
     WHERE id = @id`,
  );
  const deleteFile = db.prepare('DELETE FROM files WHERE id = ?');
  const deleteFilesOfProject = db.prepare('DELETE FROM files WHERE project_id = ?');

  const insertBlobIntent = db.prepare(
    `INSERT INTO blob_intents (id, kind, bucket, key, owner_instance_id, created_at, expires_at)
     VALUES (@id, @kind, @bucket, @key, @ownerInstanceId, @createdAt, @expiresAt)`,
  );
  const deleteBlobIntent = db.prepare('DELETE FROM blob_intents WHERE id = ?');

  const upsertInstance = db.prepare(
    `INSERT INTO instances (id, hostname, pid, started_at, heartbeat_at)
     VALUES (@id, @hostname, @pid, @startedAt, @heartbeatAt)
     ON CONFLICT (id) DO UPDATE SET hostname = excluded.hostname, pid = excluded.pid,
       started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at`,
  );
  const deleteInstance = db.prepare('DELETE FROM instances WHERE id = ?');

  return {
    insertAccount: (c) => {
      insertAccount.run(c.account);
    },
    updateAccountTier: (c) => updateAccountTier.run(c).changes > 0,

    insertApiKey: (c) => {
      insertApiKey.run(c.apiKey);
    },
    revokeApiKey: (c) => revokeApiKey.run(c).changes > 0,

    insertProject: (c) => {
      insertProject.run(projectParams(c.project));
    },
    updateProject: (c) => {
      updateProject.run(projectParams(c.project));
    },

    insertFile: (c) => {
      insertFile.run(c.file);
    },
    updateFile: (c) => {
      updateFile.run(c.file);
    },
    deleteFile: (c) => {
      deleteFile.run(c.fileId);
    },
    deleteFilesOfProject: (c) => deleteFilesOfProject.run(c.projectId).changes,

    insertBlobIntent: (c) => {
      insertBlobIntent.run(c.intent);
    },
    deleteBlobIntent: (c) => deleteBlobIntent.run(c.intentId).changes > 0,

    upsertInstance: (c) => {
      upsertInstance.run(c.instance);
    },
    deleteInstance: (c) => {
      deleteInstance.run(c.instanceId);
    },
  };
}
