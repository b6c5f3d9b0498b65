import type { FileRecord, ProjectRecord } from '../model/records.js';
import type { JsonObject } from '../validation/schemas.js';

/** A project as the interface shows it. */
export interface ProjectView {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly bucketName: string;
  readonly isDefault: boolean;
  readonly isActive: boolean;
  readonly fileCount: number;
  readonly totalSizeBytes: number;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** A stored file as the interface shows it, plus the revision and digest that ETags will build on. */
export interface FileView {
  readonly projectId: string;
  readonly filename: string;
  readonly sizeBytes: number;
  readonly contentType: 'text/markdown';
  readonly metadata: JsonObject | null;
  readonly storagePath: string;
  readonly revision: number;
  readonly sha256: string;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export function toProjectView(project: ProjectRecord): ProjectView {
  const active = project.status === 'active';
  return {
    id: project.id,
    name: project.name,
    description: project.description,
    bucketName: project.bucketName,
    isDefault: project.isDefault,
    isActive: active,
    fileCount: active ? project.fileCount : 0,
    totalSizeBytes: active ? project.totalSizeBytes : 0,
    createdAt: project.createdAt,
    updatedAt: project.updatedAt,
  };
}

export function toFileView(file: FileRecord, project: { bucketName: string }, scheme: string): FileView {
  return {
    projectId: file.projectId,
    filename: file.filename,
    sizeBytes: file.sizeBytes,
    contentType: 'text/markdown',
    metadata: file.metadataJson === null ? null : (JSON.parse(file.metadataJson) as JsonObject),
    storagePath: `${scheme}://${project.bucketName}/${file.filename}`,
    revision: file.revision,
    sha256: file.sha256,
    createdAt: file.createdAt,
    updatedAt: file.updatedAt,
  };
}
