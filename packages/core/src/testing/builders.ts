import { createHash, randomUUID } from 'node:crypto';
import {
  type AccountRecord,
  type ApiKeyRecord,
  type BlobIntentRecord,
  DEFAULT_PROJECT_SETTINGS,
  type FileRecord,
  type InstanceRecord,
  type ProjectRecord,
  type RevisionRecord,
  type TrashRecord,
} from '../model/records.js';

/**
 * Record builders for tests: every call returns a complete, valid record with fresh ids, and
 * `overrides` replace any field. Times default to a fixed instant (with a non-zero millisecond part) so
 * tests never depend on the wall clock.
 */
export const BASE_TIME = Date.UTC(2024, 0, 15, 9, 30, 0, 123);

const shortId = (id: string) => id.replaceAll('-', '').slice(0, 12);

export const sha256Hex = (content: string | Uint8Array): string =>
  createHash('sha256').update(content).digest('hex');

export function anAccount(overrides: Partial<AccountRecord> = {}): AccountRecord {
  const id = overrides.id ?? randomUUID();
  return { id, name: `account-${shortId(id)}`, tier: 'standard', createdAt: BASE_TIME, ...overrides };
}

export function anApiKey(overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    id: randomUUID(),
    accountId: randomUUID(),
    keyHash: sha256Hex(randomUUID()),
    name: 'a key',
    role: 'admin',
    projectIds: null,
    pathPrefixes: null,
    expiresAt: null,
    createdAt: BASE_TIME,
    revokedAt: null,
    lastUsedAt: null,
    ...overrides,
  };
}

export function aProject(overrides: Partial<ProjectRecord> = {}): ProjectRecord {
  const id = overrides.id ?? randomUUID();
  return {
    id,
    accountId: randomUUID(),
    name: `project-${shortId(id)}`,
    description: null,
    bucketName: `mdstore-${id}`,
    isDefault: false,
    status: 'active',
    fileCount: 0,
    totalSizeBytes: 0,
    historySizeBytes: 0,
    trashSizeBytes: 0,
    attachmentCount: 0,
    attachmentBytes: 0,
    ...DEFAULT_PROJECT_SETTINGS,
    createdAt: BASE_TIME,
    updatedAt: BASE_TIME,
    ...overrides,
  };
}

export function aFile(overrides: Partial<FileRecord> = {}): FileRecord {
  const id = overrides.id ?? randomUUID();
  return {
    id,
    projectId: randomUUID(),
    filename: `file-${shortId(id)}.md`,
    sizeBytes: 7,
    sha256: sha256Hex('# hello'),
    metadataJson: null,
    frontmatterJson: null,
    contentKey: `${id}/${randomUUID()}`,
    inline: false,
    revision: 1,
    createdAt: BASE_TIME,
    updatedAt: BASE_TIME,
    ...overrides,
  };
}

export function aBlobIntent(overrides: Partial<BlobIntentRecord> = {}): BlobIntentRecord {
  return {
    id: randomUUID(),
    kind: 'staged',
    bucket: `mdstore-${randomUUID()}`,
    key: `blob-${randomUUID()}`,
    ownerInstanceId: randomUUID(),
    createdAt: BASE_TIME,
    expiresAt: BASE_TIME + 60_000,
    ...overrides,
  };
}

export function anInstance(overrides: Partial<InstanceRecord> = {}): InstanceRecord {
  return {
    id: randomUUID(),
    hostname: 'test-host',
    pid: 4242,
    startedAt: BASE_TIME,
    heartbeatAt: BASE_TIME,
    ...overrides,
  };
}

/** The revision record of a file's current state (what the write path records with every write). */
export function aRevision(file: FileRecord, overrides: Partial<RevisionRecord> = {}): RevisionRecord {
  return {
    fileId: file.id,
    projectId: file.projectId,
    revision: file.revision,
    sizeBytes: file.sizeBytes,
    sha256: file.sha256,
    metadataJson: file.metadataJson,
    change: file.revision === 1 ? 'created' : 'content',
    contentKey: file.contentKey,
    inline: file.inline,
    createdAt: file.updatedAt,
    changesetId: null,
    message: null,
    filename: file.filename,
    keyId: null,
    ...overrides,
  };
}

/** A trash item holding `file` (its revisions are the caller's business), deleted at `BASE_TIME`. */
export function aTrashItem(file: FileRecord, overrides: Partial<TrashRecord> = {}): TrashRecord {
  return {
    id: randomUUID(),
    projectId: file.projectId,
    file,
    deletedAt: BASE_TIME,
    expiresAt: BASE_TIME + 86_400_000,
    ...overrides,
  };
}
