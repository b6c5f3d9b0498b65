import type { FileList as CoreFileList, FileView, ProjectView } from '@mdstore/core';
import type * as v from 'valibot';
import type { File, FileList, FileUpdate, Project } from './api/schemas.js';

/** Timestamps: UTC ISO 8601 with milliseconds and `Z`, e.g. `2024-01-15T09:30:00.123Z`. */
export const isoDate = (epochMillis: number): string => new Date(epochMillis).toISOString();

/** The answers' bodies have the types of their schemas in `api/schemas.ts`: a drift does not compile. */
export function projectJson(project: ProjectView): v.InferOutput<typeof Project> {
  return {
    id: project.id,
    name: project.name,
    description: project.description,
    bucket_name: project.bucketName,
    is_default: project.isDefault,
    is_active: project.isActive,
    file_count: project.fileCount,
    total_size_bytes: project.totalSizeBytes,
    created_date: isoDate(project.createdAt),
    updated_date: isoDate(project.updatedAt),
    // Extensions §2 and §5.
    etag: project.etag,
    settings: {
      require_if_match: project.settings.requireIfMatch,
      keep_revisions: project.settings.keepRevisions,
      trash_retention_days: project.settings.trashRetentionDays,
    },
    history_size_bytes: project.historySizeBytes,
    trash_size_bytes: project.trashSizeBytes,
  };
}

export function fileJson(file: FileView): v.InferOutput<typeof File> {
  return {
    filename: file.filename,
    project_id: file.projectId,
    size_bytes: file.sizeBytes,
    content_type: file.contentType,
    metadata: file.metadata,
    // Extensions §3: the content's YAML front matter as JSON, or null.
    frontmatter: file.frontmatter,
    storage_path: file.storagePath,
    created_date: isoDate(file.createdAt),
    updated_date: isoDate(file.updatedAt),
    // Extensions §2.
    etag: file.etag,
    revision: file.revision,
    sha256: file.sha256,
  };
}

/** The answer of the metadata and content updates. */
export function fileUpdateJson(file: FileView): v.InferOutput<typeof FileUpdate> {
  return {
    filename: file.filename,
    project_id: file.projectId,
    size_bytes: file.sizeBytes,
    metadata: file.metadata,
    updated_date: isoDate(file.updatedAt),
    etag: file.etag,
    revision: file.revision,
    sha256: file.sha256,
  };
}

/** List Files: the interface's three fields, then `folders` and `next_cursor` when extensions §3 adds them. */
export function fileListJson(list: CoreFileList): v.InferOutput<typeof FileList> {
  return {
    files: list.files.map(fileJson),
    total_count: list.totalCount,
    total_size_bytes: list.totalSizeBytes,
    ...(list.folders !== undefined && { folders: list.folders }),
    ...(list.nextCursor !== undefined && { next_cursor: list.nextCursor }),
  };
}
