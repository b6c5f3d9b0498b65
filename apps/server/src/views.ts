import type {
  AttachmentList,
  AttachmentView,
  ChangeEventRecord,
  ChangesetFileResult,
  FileList as CoreFileList,
  DraftDiffPage,
  DraftSummaryView,
  DraftView,
  EditResult,
  FileView,
  OutlineHeading,
  OutlineLink,
  ProjectView,
  PublishedDraft,
  RestoreResult,
  RevisionList,
  SearchAnswer as SearchAnswerView,
  SearchStatus as SearchStatusView,
  TrashPage,
} from '@mdstore/core';
import { changeEventView } from '@mdstore/core';
import type * as v from 'valibot';
import type { ChangeEvent } from './http/api/changes-schemas.js';
import type { Draft, DraftDiff, DraftList, DraftSummary } from './http/api/draft-schemas.js';
import type {
  Attachment,
  AttachmentList as AttachmentListSchema,
  DraftPublished,
  File,
  FileList,
  FileUpdate,
  Project,
  ProjectRestoreResult,
  RevisionList as RevisionListSchema,
  TrashList,
} from './http/api/schemas.js';

/**
 * The one presenter module: how the core's views become the JSON of the interface, for both edges
 * (the HTTP routes and the MCP tools answer with the same shapes).
 */

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
      keep_revisions_days: project.settings.keepRevisionsDays,
    },
    history_size_bytes: project.historySizeBytes,
    trash_size_bytes: project.trashSizeBytes,
    // Extensions §12.
    attachment_count: project.attachmentCount,
    attachment_bytes: project.attachmentBytes,
  };
}

/** Extensions §12. */
export function attachmentJson(a: AttachmentView): v.InferOutput<typeof Attachment> {
  return {
    path: a.path,
    project_id: a.projectId,
    size_bytes: a.sizeBytes,
    content_type: a.contentType,
    sha256: a.sha256,
    etag: a.etag,
    created_date: isoDate(a.createdAt),
    updated_date: isoDate(a.updatedAt),
  };
}

/** One operation's result of a changeset (extensions §9, §12): a file's (as `file` shows it) or an attachment's. */
export function changesetItemJson<F>(
  item: ChangesetFileResult,
  file: (view: FileView) => F,
):
  | F
  | v.InferOutput<typeof Attachment>
  | { filename: string; deleted: true }
  | { path: string; deleted: true } {
  if ('attachment' in item) return attachmentJson(item.attachment);
  if ('deleted' in item) return item;
  return file(item);
}

export function attachmentListJson(list: AttachmentList): v.InferOutput<typeof AttachmentListSchema> {
  return {
    attachments: list.attachments.map(attachmentJson),
    ...(list.folders && { folders: list.folders }),
    next_cursor: list.nextCursor,
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

/** PATCH of a file (and the MCP `edit_file`): the file after the edits, and the diff. */
export const editJson = (result: EditResult) => ({
  ...fileJson(result.file),
  diff: result.diff,
  ...(result.merged && { merged: true as const }),
});

export const outlineJson = (found: {
  headings: readonly OutlineHeading[];
  links: readonly OutlineLink[];
  file: { etag: string };
}) => ({
  headings: found.headings.map((h) => ({ level: h.level, text: h.text, line: h.line, path: h.path })),
  links: found.links.map((l) => ({ target: l.target, text: l.text, line: l.line })),
  etag: found.file.etag,
});

/** The search answer as the interface shows it (HTTP and MCP). */
export const searchAnswerJson = (answer: SearchAnswerView) => ({
  results: answer.results.map((result) => ({
    file: fileJson(result.file),
    score: result.score,
    snippets: result.snippets.map((snippet) => ({ text: snippet.text, highlights: snippet.highlights })),
    // Extensions §15: semantic and hybrid only.
    ...(result.textRank !== undefined && { text_rank: result.textRank }),
    ...(result.vectorRank !== undefined && { vector_rank: result.vectorRank }),
    ...(result.heading !== undefined && { heading: result.heading }),
    ...(result.snippet !== undefined && { snippet: result.snippet }),
  })),
  total_count: answer.totalCount,
  next_cursor: answer.nextCursor,
  // Additive, present only when a cost bound cut the answer (docs/reliability.md, "Cost bounds").
  ...(answer.truncated && { truncated: true as const }),
  ...(answer.snippetsTruncated && { snippets_truncated: true as const }),
});

export const searchStatusJson = (status: SearchStatusView) => ({
  enabled: status.enabled,
  model: status.model,
  embedded: status.embedded,
  pending: status.pending,
  lag_ms: status.lagMs,
});

export const revisionListJson = (list: RevisionList): v.InferOutput<typeof RevisionListSchema> => ({
  revisions: list.revisions.map((revision) => ({
    revision: revision.revision,
    etag: revision.etag,
    size_bytes: revision.sizeBytes,
    sha256: revision.sha256,
    metadata: revision.metadata,
    change: revision.change,
    created_date: isoDate(revision.createdAt),
    changeset_id: revision.changesetId,
    message: revision.message,
    key_id: revision.keyId,
  })),
  next_cursor: list.nextCursor,
});

export const trashPageJson = (page: TrashPage): v.InferOutput<typeof TrashList> => ({
  trash: page.trash.map((entry) => ({
    trash_id: entry.trashId,
    filename: entry.filename,
    size_bytes: entry.sizeBytes,
    revision: entry.revision,
    deleted_date: isoDate(entry.deletedAt),
    expires_date: isoDate(entry.expiresAt),
    kind: entry.kind,
    ...(entry.path !== undefined && { path: entry.path }),
    ...(entry.contentType !== undefined && { content_type: entry.contentType }),
  })),
  total_count: page.totalCount,
  next_cursor: page.nextCursor,
});

/** A change event as the feed, its stream and MCP show it (extensions §7). */
type EventBody = v.InferOutput<typeof ChangeEvent>;

/** The §7 JSON of an event: the core's one presenter, shared with webhooks' `data`; typed by the schema. */
export const eventBody = (e: ChangeEventRecord): EventBody => changeEventView(e);

// Drafts (extensions §13).
const summaryJson = (draft: DraftSummaryView): v.InferOutput<typeof DraftSummary> => ({
  id: draft.id,
  project_id: draft.projectId,
  title: draft.title,
  description: draft.description,
  state: draft.state,
  author_key_id: draft.authorKeyId,
  changeset_id: draft.changesetId,
  created_date: isoDate(draft.createdAt),
  updated_date: isoDate(draft.updatedAt),
});

export const draftJson = (draft: DraftView): v.InferOutput<typeof Draft> => ({
  ...summaryJson(draft),
  files: draft.files.map((file) => ({
    filename: file.filename,
    op: file.op,
    base_etag: file.baseEtag,
    to: file.to,
  })),
  reviews: draft.reviews.map((review) => ({
    id: review.id,
    verdict: review.verdict,
    comment: review.comment,
    key_id: review.keyId,
    created_date: isoDate(review.createdAt),
  })),
});

export const draftListJson = (page: {
  drafts: readonly DraftSummaryView[];
  nextCursor: string | null;
}): v.InferOutput<typeof DraftList> => ({
  drafts: page.drafts.map(summaryJson),
  next_cursor: page.nextCursor,
});

export const draftDiffJson = (page: DraftDiffPage): v.InferOutput<typeof DraftDiff> => ({
  files: page.files.map((file) => ({
    filename: file.filename,
    op: file.op,
    to: file.to,
    base_etag: file.baseEtag,
    current_etag: file.currentEtag,
    stale: file.stale,
    diff: file.diff,
    diff_too_large: file.diffTooLarge,
    base_missing: file.baseMissing,
  })),
  next_cursor: page.nextCursor,
});

export const publishedJson = (published: PublishedDraft): v.InferOutput<typeof DraftPublished> => ({
  draft: draftJson(published.draft),
  changeset_id: published.changesetId,
  files: published.files.map((file) => ('deleted' in file ? file : fileJson(file))),
  merged: [...published.merged],
});

/** Extensions §16: what a restore as of a time did (or, in a dry run, would do). */
export const projectRestoreJson = (result: RestoreResult): v.InferOutput<typeof ProjectRestoreResult> => ({
  as_of: isoDate(result.asOf),
  dry_run: result.dryRun,
  changeset_id: result.changesetId,
  created: result.created.map((entry) => ({ filename: entry.filename, trash_id: entry.trashId })),
  changed: result.changed.map((entry) => ({ ...entry })),
  deleted: result.deleted.map((entry) => ({ ...entry })),
  unrecoverable: result.unrecoverable.map((entry) => ({ ...entry })),
  counts: { ...result.counts },
  truncated: result.truncated,
});
