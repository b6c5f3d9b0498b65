import type { AttachmentView, FileView, ProjectView } from '@mdstore/core';
import { isoDate, projectJson } from '../views.js';

/** The name of the manifest in an export (extensions §10); no stored file can have it (`.md`/`.mdx` only). */
export const MANIFEST_NAME = 'mdstore.json';

type ProjectJson = ReturnType<typeof projectJson>;

/** `mdstore.json`: the project's name, description and settings, and each exported file's facts. */
export interface ExportManifest {
  readonly project: Pick<ProjectJson, 'name' | 'description' | 'settings'>;
  readonly files: readonly ManifestFile[];
  /**
   * The attachments archived (extensions §12), each at its path: a key of its own, so that a reader of
   * the manifest before attachments (`files` only) reads this one unchanged.
   */
  readonly attachments: readonly ManifestAttachment[];
  /** Files and attachments a zip cannot name (see `zip.ts`), left out of it: only present when there are some. */
  readonly skipped?: ReadonlyArray<{ readonly filename: string; readonly reason: string }>;
}

export interface ManifestFile {
  readonly filename: string;
  readonly metadata: FileView['metadata'];
  readonly sha256: string;
  readonly revision: number;
  readonly created_date: string;
  readonly updated_date: string;
}

export interface ManifestAttachment {
  readonly path: string;
  readonly content_type: string;
  readonly size: number;
  readonly sha256: string;
}

/**
 * The manifest as the archive is written: one entry per file added, as the file's view says (the view
 * of the very version whose bytes went in). It holds these small entries only, never content, so it
 * grows with the number of files (about 200 bytes each plus metadata), like `mdstore.json` itself.
 */
export class ManifestBuilder {
  private readonly files: ManifestFile[] = [];
  private readonly attachments: ManifestAttachment[] = [];
  private readonly skipped: Array<{ filename: string; reason: string }> = [];

  constructor(private readonly project: ProjectView) {}

  add(file: FileView): void {
    this.files.push({
      filename: file.filename,
      metadata: file.metadata,
      sha256: file.sha256,
      revision: file.revision,
      created_date: isoDate(file.createdAt),
      updated_date: isoDate(file.updatedAt),
    });
  }

  addAttachment(attachment: AttachmentView): void {
    this.attachments.push({
      path: attachment.path,
      content_type: attachment.contentType,
      size: attachment.sizeBytes,
      sha256: attachment.sha256,
    });
  }

  skip(filename: string, reason: string): void {
    this.skipped.push({ filename, reason });
  }

  /** UTF-8 JSON, indented for people who open the archive. */
  bytes(): Buffer {
    const { name, description, settings } = projectJson(this.project);
    const manifest: ExportManifest = {
      project: { name, description, settings },
      files: this.files,
      attachments: this.attachments,
      ...(this.skipped.length > 0 && { skipped: this.skipped }),
    };
    return Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, 'utf8');
  }
}
