import { contentTag, fileEtag } from '../model/etags.js';
import type { FileRecord, ProjectRecord, ProjectSettings } from '../model/records.js';
import type { JsonObject } from '../validation/schemas.js';

/** A project as the interface shows it (with the fields of extensions §2 and §5). */
export interface ProjectView {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly bucketName: string;
  readonly isDefault: boolean;
  readonly isActive: boolean;
  readonly fileCount: number;
  readonly totalSizeBytes: number;
  readonly historySizeBytes: number;
  readonly trashSizeBytes: number;
  /** Extensions §12. */
  readonly attachmentCount: number;
  readonly attachmentBytes: number;
  readonly settings: ProjectSettings;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Changes whenever any other field changes. */
  readonly etag: string;
}

/** A stored file as the interface shows it, with its revision, digest and entity tag. */
export interface FileView {
  readonly projectId: string;
  readonly filename: string;
  readonly sizeBytes: number;
  readonly contentType: 'text/markdown';
  readonly metadata: JsonObject | null;
  readonly frontmatter: JsonObject | null;
  readonly storagePath: string;
  readonly revision: number;
  readonly sha256: string;
  readonly etag: string;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export function toProjectView(project: ProjectRecord): ProjectView {
  const active = project.status === 'active';
  const fields = {
    id: project.id,
    name: project.name,
    description: project.description,
    bucketName: project.bucketName,
    isDefault: project.isDefault,
    isActive: active,
    fileCount: active ? project.fileCount : 0,
    totalSizeBytes: active ? project.totalSizeBytes : 0,
    historySizeBytes: active ? project.historySizeBytes : 0,
    trashSizeBytes: active ? project.trashSizeBytes : 0,
    attachmentCount: active ? project.attachmentCount : 0,
    attachmentBytes: active ? project.attachmentBytes : 0,
    settings: {
      requireIfMatch: project.requireIfMatch,
      keepRevisions: project.keepRevisions,
      trashRetentionDays: project.trashRetentionDays,
      keepRevisionsDays: project.keepRevisionsDays,
    },
    createdAt: project.createdAt,
    updatedAt: project.updatedAt,
  };
  return { ...fields, etag: contentTag(JSON.stringify(fields)) };
}

const parsedJson = (json: string | null) => (json === null ? null : (JSON.parse(json) as JsonObject));

export function toFileView(file: FileRecord, project: { bucketName: string }, scheme: string): FileView {
  return {
    projectId: file.projectId,
    filename: file.filename,
    sizeBytes: file.sizeBytes,
    contentType: 'text/markdown',
    metadata: parsedJson(file.metadataJson),
    frontmatter: parsedJson(file.frontmatterJson),
    storagePath: `${scheme}://${project.bucketName}/${file.filename}`,
    revision: file.revision,
    sha256: file.sha256,
    etag: fileEtag(file),
    createdAt: file.createdAt,
    updatedAt: file.updatedAt,
  };
}
