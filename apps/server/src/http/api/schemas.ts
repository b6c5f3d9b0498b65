import {
  CHANGESET_LIMITS,
  ChangesetOperationSchema,
  CopyRequestSchema,
  DescriptionSchema,
  EditRequestSchema,
  MemoryCommandSchema,
  MetadataSchema,
  MetadataUpdateSchema,
  MoveRequestSchema,
  NameSchema,
  ProjectAsOfRequestSchema,
  ProjectCreateSchema,
  ProjectSettingsInputSchema,
  ProjectUpdateSchema,
  RESTORE_LIMITS,
  REVISION_CHANGES,
  RenderRequestSchema,
  RestoreRequestSchema,
  SETTING_SCHEMAS,
  SearchAllRequestSchema,
  SearchRequestSchema,
  TrashRestoreSchema,
  UuidSchema,
} from '@mdstore/core';
import * as v from 'valibot';
import { ACCESS_COMPONENTS } from './access-schemas.js';
import { CHANGES_COMPONENTS } from './changes-schemas.js';
import { DRAFT_COMPONENTS, Draft } from './draft-schemas.js';
import { WEBHOOK_COMPONENTS } from './webhook-schemas.js';

/**
 * The bodies of the HTTP interface as valibot schemas. Request bodies are built from the core's schemas
 * (the ones the use cases validate with); answers are written here, and `views.ts` returns their types,
 * so a view that drifts from its schema does not compile. Each named schema becomes a component of the
 * OpenAPI document (`components/schemas/<name>`) through `COMPONENTS` below.
 */

const Timestamp = v.pipe(v.string(), v.isoTimestamp(), v.description('UTC ISO 8601 with milliseconds'));
const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
const Sha256 = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/));
const ETag = v.pipe(v.string(), v.description('Strong entity tag, quotes included; echo it in If-Match.'));
const Metadata = v.pipe(
  v.nullable(MetadataSchema),
  v.description('A custom JSON object (at most 64 KiB as compact JSON, 32 levels), or null.'),
);
const Filename = v.pipe(v.string(), v.description('Unique in the project; `.md` or `.mdx`.'));

export const ProjectSettings = v.object({
  require_if_match: v.pipe(
    SETTING_SCHEMAS.require_if_match,
    v.description('Writes to an existing file need If-Match (428).'),
  ),
  keep_revisions: SETTING_SCHEMAS.keep_revisions,
  trash_retention_days: SETTING_SCHEMAS.trash_retention_days,
  keep_revisions_days: SETTING_SCHEMAS.keep_revisions_days,
});

export const ProjectSettingsInput = ProjectSettingsInputSchema;

export const Project = v.object({
  id: UuidSchema,
  name: NameSchema,
  description: DescriptionSchema,
  bucket_name: v.string(),
  is_default: v.boolean(),
  is_active: v.boolean(),
  file_count: Count,
  total_size_bytes: Count,
  created_date: Timestamp,
  updated_date: Timestamp,
  etag: ETag,
  settings: ProjectSettings,
  history_size_bytes: Count,
  trash_size_bytes: Count,
  attachment_count: v.pipe(Count, v.description('Attachments of the project (extensions §12).')),
  attachment_bytes: v.pipe(
    Count,
    v.description(
      'Their sizes added up (identical bytes at two paths count twice); part of the storage bound.',
    ),
  ),
});

export const ProjectList = v.object({
  projects: v.array(Project),
  total_count: Count,
  next_cursor: v.optional(
    v.pipe(v.nullable(v.string()), v.description('With `limit` or `cursor`; null on the last page.')),
  ),
});

export const ProjectCreate = ProjectCreateSchema;
export const ProjectUpdate = ProjectUpdateSchema;

export const ProjectDeleted = v.object({ message: v.string(), project_id: UuidSchema });

const fileUpdateEntries = {
  filename: Filename,
  project_id: UuidSchema,
  size_bytes: Count,
  metadata: Metadata,
  updated_date: Timestamp,
  etag: ETag,
  revision: v.pipe(v.number(), v.integer(), v.minValue(1)),
  sha256: Sha256,
};

export const FileUpdate = v.object(fileUpdateEntries);

/** Extensions §13: present (and true) only when a write with `merge_base` merged three ways. */
const Merged = v.optional(
  v.pipe(
    v.literal(true),
    v.description(
      'Only with `merge_base`, and only when the change was merged into a newer revision (both sides had changed).',
    ),
  ),
);

export const FileContentUpdate = v.object({ ...fileUpdateEntries, merged: Merged });

/** Extensions §13: overlapping changes of a three-way merge (a draft's publish, a write with `merge_base`). */
export const MergeConflicts = v.object({
  detail: v.literal('Draft conflicts'),
  conflicts: v.array(
    v.object({
      filename: v.string(),
      hunks: v.array(
        v.object({
          line: v.pipe(
            v.number(),
            v.integer(),
            v.minValue(0),
            v.description(
              'Where the region starts in the base (1-based); 0 for a metadata key (texts `key: <JSON>`).',
            ),
          ),
          base: v.pipe(v.string(), v.description("The region's lines in the base, joined with \\n.")),
          current: v.pipe(v.string(), v.description('… in the current (live) file.')),
          draft: v.pipe(v.string(), v.description('… in the proposed text (the draft, or the body sent).')),
        }),
      ),
    }),
  ),
});

const Frontmatter = v.pipe(
  v.nullable(v.record(v.string(), v.unknown())),
  v.description(
    "The content's YAML front matter as JSON (extensions §3), or null: no block, invalid YAML, not a mapping, or over the limits.",
  ),
);

export const File = v.object({
  ...fileUpdateEntries,
  frontmatter: Frontmatter,
  content_type: v.literal('text/markdown'),
  storage_path: v.pipe(v.string(), v.description('<scheme>://<bucket_name>/<filename>')),
  created_date: Timestamp,
});

export const FileList = v.object({
  files: v.array(File),
  total_count: v.pipe(Count, v.description('Files (and, with `delimiter`, folders) the listing covers.')),
  total_size_bytes: Count,
  folders: v.optional(
    v.pipe(v.array(v.string()), v.description('With `delimiter`: the folders of the page (`docs/`).')),
  ),
  next_cursor: v.optional(
    v.pipe(
      v.nullable(v.string()),
      v.description(
        'With `limit` or `cursor`: the next page’s cursor, or null on the last page; null when only `prefix`/`delimiter` were given.',
      ),
    ),
  ),
});

/** Extensions §12. */
export const Attachment = v.object({
  path: v.pipe(v.string(), v.description('Unique in the project; any extension but `.md`/`.mdx`.')),
  project_id: UuidSchema,
  size_bytes: Count,
  content_type: v.pipe(v.string(), v.description('As sent on the write.')),
  sha256: Sha256,
  etag: ETag,
  created_date: Timestamp,
  updated_date: Timestamp,
});

/** Extensions §12: the move of an attachment, as a file's (§5, §9). */
export const AttachmentMoveRequest = v.object({
  ...MoveRequestSchema.entries,
  to: v.pipe(
    v.string(),
    v.description('The new path (the attachment path rules: 400; a `.md`/`.mdx` path is 409).'),
  ),
  rewrite_links: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        'Rewrite every link and embed to the attachment in the project’s files, in the same changeset; the answer adds `rewritten`.',
      ),
    ),
  ),
});

export const AttachmentList = v.object({
  attachments: v.array(Attachment),
  folders: v.optional(
    v.pipe(v.array(v.string()), v.description('With `delimiter`: the folders of the page (`img/`).')),
  ),
  next_cursor: v.pipe(
    v.nullable(v.string()),
    v.description('The next page’s cursor, or null on the last page.'),
  ),
});

export const UploadForm = v.object({
  file: v.pipe(v.string(), v.description('The content (a part with a filename).')),
  metadata: v.optional(v.pipe(v.string(), v.description('A JSON object, as text.'))),
  sha256: v.optional(Sha256),
});

export const MetadataUpdate = MetadataUpdateSchema;

export const FileEdit = EditRequestSchema;

export const FileEdited = v.object({
  ...File.entries,
  diff: v.pipe(
    v.nullable(v.string()),
    v.description('Unified diff of the change; null when it would cost more than 10⁷ comparisons.'),
  ),
  merged: Merged,
});

export const Outline = v.object({
  headings: v.array(
    v.object({
      level: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(6)),
      text: v.string(),
      line: v.pipe(v.number(), v.integer(), v.minValue(1)),
      path: v.array(v.string()),
    }),
  ),
  links: v.array(
    v.object({ target: v.string(), text: v.string(), line: v.pipe(v.number(), v.integer(), v.minValue(1)) }),
  ),
  etag: ETag,
});

export const Revision = v.object({
  revision: v.pipe(v.number(), v.integer(), v.minValue(1)),
  etag: v.pipe(v.string(), v.description('The ETag the file had while this revision was current.')),
  size_bytes: Count,
  sha256: Sha256,
  metadata: Metadata,
  change: v.picklist(REVISION_CHANGES),
  created_date: Timestamp,
  changeset_id: v.pipe(
    v.nullable(v.string()),
    v.description('The changeset that wrote this revision (extensions §9), null for a single write.'),
  ),
  message: v.pipe(v.nullable(v.string()), v.description("The changeset's message, if any.")),
  key_id: v.pipe(
    v.nullable(v.string()),
    v.description(
      'The API key whose request wrote this revision (extensions §14); null for a write without a key (in process) or one recorded before keys were (migration 19).',
    ),
  ),
});

export const RevisionList = v.object({
  revisions: v.array(Revision),
  next_cursor: v.pipe(v.nullable(v.string()), v.description('null on the last page.')),
});

// Extensions §9: the link index.
const LinkKind = v.picklist(['markdown', 'wiki']);
export const OutgoingLink = v.object({
  line: v.number(),
  kind: LinkKind,
  raw: v.pipe(
    v.string(),
    v.description("The destination as written: `dir/a.md#x`, or a wiki link's `target#heading`."),
  ),
  target: v.pipe(v.nullable(v.string()), v.description('The file it resolves to; null when unresolved.')),
  anchor: v.nullable(v.string()),
  resolved: v.boolean(),
  anchor_found: v.pipe(v.nullable(v.boolean()), v.description('null without an anchor or a target.')),
});
export const IncomingLink = v.object({
  source: v.string(),
  line: v.number(),
  kind: LinkKind,
  raw: v.string(),
  anchor: v.nullable(v.string()),
});
export const FileLinks = v.object({
  outgoing: v.array(OutgoingLink),
  incoming: v.array(IncomingLink),
  next_cursor: v.pipe(
    v.nullable(v.string()),
    v.description('null on the last page; else the `cursor` of the next page (more links follow).'),
  ),
});
export const BrokenLink = v.object({
  source: v.string(),
  line: v.number(),
  raw: v.string(),
  target: v.pipe(
    v.nullable(v.string()),
    v.description(
      'With reason `anchor`, the file the link resolved to (as `outgoing[].target`); else the resolved path (Markdown) or the target as written (wiki); null for `..` above the root.',
    ),
  ),
  reason: v.picklist(['missing', 'ambiguous', 'anchor']),
});
export const BrokenLinkList = v.object({
  links: v.array(BrokenLink),
  next_cursor: v.pipe(v.nullable(v.string()), v.description('null on the last page.')),
});
export const OrphanList = v.object({
  orphans: v.array(v.string()),
  next_cursor: v.pipe(v.nullable(v.string()), v.description('null on the last page.')),
});
export const FileReferenced = v.object({
  detail: v.literal('File is referenced'),
  referenced_by: v.array(v.string()),
});

export const MovedFile = v.object({
  ...File.entries,
  rewritten: v.optional(
    v.pipe(
      v.array(v.object({ filename: v.string(), links: v.number() })),
      v.description(
        'With `rewrite_links`: each file whose links were rewritten (its name after the move) and how many.',
      ),
    ),
  ),
});

/** Extensions §12: an attachment at its new path; with `rewrite_links`, the files rewritten. */
export const MovedAttachment = v.object({
  ...Attachment.entries,
  rewritten: MovedFile.entries.rewritten,
});

export const RestoreRequest = RestoreRequestSchema;

/** Extensions §11: unsaved text to render, and its render. */
export const RenderRequest = RenderRequestSchema;
export const Rendered = v.object({
  html: v.pipe(v.string(), v.description('The sanitised HTML fragment, as `?format=html` answers it.')),
});

/** Extensions §16: a project as it was. */
export const ProjectRestoreRequest = ProjectAsOfRequestSchema;
const ListedName = v.object({ filename: v.string() });
export const ProjectRestoreResult = v.object({
  as_of: Timestamp,
  dry_run: v.boolean(),
  changeset_id: v.pipe(
    v.nullable(UuidSchema),
    v.description('The changeset written; null for a dry run or when nothing differs.'),
  ),
  created: v.pipe(
    v.array(v.object({ filename: v.string(), trash_id: UuidSchema })),
    v.description(
      'Files deleted since, brought back from the trash as new files with their content of then.',
    ),
  ),
  changed: v.pipe(
    v.array(
      v.object({
        filename: v.string(),
        from: v.pipe(v.nullable(v.string()), v.description('Its name now, when it goes back to another.')),
        content: v.boolean(),
        metadata: v.boolean(),
        revision: v.pipe(Count, v.description('The revision whose content and metadata it gets back.')),
      }),
    ),
    v.description('Files that exist and go back to their content, metadata or name of then.'),
  ),
  deleted: v.pipe(v.array(ListedName), v.description('Files that did not exist then.')),
  unrecoverable: v.pipe(
    v.array(
      v.object({
        filename: v.string(),
        reason: v.picklist(['history_pruned', 'name_taken']),
      }),
    ),
    v.description(
      'Files left as they are: their kept revisions do not reach as_of (`history_pruned`), or the name they need is held by such a file (`name_taken`).',
    ),
  ),
  counts: v.object({
    created: Count,
    changed: Count,
    deleted: Count,
    unrecoverable: Count,
    unchanged: Count,
  }),
  truncated: v.pipe(
    v.boolean(),
    v.description(`Whether a list was cut at ${RESTORE_LIMITS.maxListed} entries (the counts are exact).`),
  ),
});
export const MoveRequest = MoveRequestSchema;
export const CopyRequest = CopyRequestSchema;

export const SearchRequest = SearchRequestSchema;
export const SearchAllRequest = SearchAllRequestSchema;

export const SearchSnippet = v.object({
  text: v.string(),
  highlights: v.pipe(
    v.array(v.tuple([Count, Count])),
    v.description('Code-point offsets into text, end exclusive, one per matched word occurrence.'),
  ),
});

export const SearchResult = v.object({
  file: File,
  score: v.pipe(
    v.nullable(v.number()),
    v.description('With sort relevance: higher is better, comparable within one answer only; else null.'),
  ),
  snippets: v.pipe(v.array(SearchSnippet), v.maxLength(3)),
  // Extensions §15: present only in semantic and hybrid modes (text answers are §3's, unchanged).
  text_rank: v.optional(
    v.pipe(
      v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1))),
      v.description(
        'semantic/hybrid only: 1-based place in the full-text ranking of the filtered files; null when not a text match.',
      ),
    ),
  ),
  vector_rank: v.optional(
    v.pipe(
      v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1))),
      v.description(
        'semantic/hybrid only: 1-based place in the vector ranking (best chunk) of the filtered files; null without an embedded chunk.',
      ),
    ),
  ),
  heading: v.optional(
    v.pipe(
      v.nullable(v.string()),
      v.description(
        "semantic/hybrid only: the heading of the best chunk's section (null: before the first heading, or no vector hit).",
      ),
    ),
  ),
  snippet: v.optional(
    v.pipe(
      v.nullable(v.pipe(v.string(), v.maxLength(240))),
      v.description(
        "semantic/hybrid only: the best chunk's text, at most 240 code points; null without a vector hit.",
      ),
    ),
  ),
});

/** Extensions §15: where the semantic indexer stands for a project. */
export const SearchStatus = v.object({
  enabled: v.pipe(v.boolean(), v.description('Whether embeddings are on (MDSTORE_EMBEDDINGS).')),
  model: v.pipe(v.nullable(v.string()), v.description('The embedding model; null when off.')),
  embedded: v.pipe(Count, v.description('Files of the project with embedded chunks of the model.')),
  pending: v.pipe(
    Count,
    v.description(
      'File changes of the project not embedded yet (counted up to 1000); before the first pass of the indexer, the file count.',
    ),
  ),
  lag_ms: v.pipe(Count, v.description('How long the oldest pending change has waited, in ms (0: none).')),
});

export const SearchAnswer = v.object({
  results: v.array(SearchResult),
  total_count: v.pipe(Count, v.maxValue(10_000), v.description('Matches, counted up to 10 000.')),
  next_cursor: v.nullable(v.string()),
  truncated: v.optional(
    v.pipe(
      v.literal(true),
      v.description(
        'Present only when a cost bound (rows examined, content text read) stopped the search: results, order and total_count are those of the files examined, the first in project and filename order.',
      ),
    ),
  ),
  snippets_truncated: v.optional(
    v.pipe(
      v.literal(true),
      v.description(
        "Present only when the page's snippet budget ran out: the results past it keep their place with snippets [].",
      ),
    ),
  ),
});

/** The trash (extensions §5). */
export const TrashItem = v.object({
  trash_id: v.string(),
  filename: v.string(),
  size_bytes: Count,
  revision: v.pipe(v.number(), v.integer(), v.minValue(1)),
  deleted_date: Timestamp,
  expires_date: v.pipe(
    Timestamp,
    v.description('Fixed at deletion; changing the setting later does not move it.'),
  ),
  kind: v.pipe(
    v.picklist(['file', 'attachment']),
    v.description('A deleted file, or a deleted attachment (extensions §12).'),
  ),
  path: v.pipe(v.optional(v.string()), v.description("An attachment's path (also in `filename`).")),
  content_type: v.pipe(v.optional(v.string()), v.description("An attachment's content type.")),
});
export const TrashList = v.object({
  trash: v.array(TrashItem),
  total_count: v.pipe(Count, v.description('Unexpired items of the whole trash, not just the page.')),
  next_cursor: v.pipe(v.nullable(v.string()), v.description('null on the last page.')),
});
export const TrashRestore = TrashRestoreSchema;
export const ErrorMessage = v.object({ detail: v.string() });
export const ValidationIssue = v.object({
  loc: v.array(v.union([v.string(), v.pipe(v.number(), v.integer())])),
  msg: v.string(),
  type: v.string(),
});
export const ValidationError = v.object({ detail: v.array(ValidationIssue) });
export const AnyError = v.object({ detail: v.union([v.string(), v.array(ValidationIssue)]) });

export const Health = v.object({ status: v.literal('ok') });
export const Readiness = v.object({ status: v.literal('ready') });

/** The named schemas of the document, by component name (the SDK's types use these names). */
/** Extensions §9: a changeset's request and answer. */
export const ChangesetRequest = v.object({
  message: v.optional(v.pipe(v.nullable(v.string()), v.description('Kept with every revision it writes.'))),
  dry_run: v.optional(v.pipe(v.boolean(), v.description('Validate everything, change nothing.'))),
  operations: v.pipe(
    v.array(ChangesetOperationSchema),
    v.minLength(1),
    v.maxLength(CHANGESET_LIMITS.maxOperations),
    v.description('Applied in order; each sees the changes of the earlier ones.'),
  ),
});

/** Extensions §14: a memory tool command and its result. */
export const MemoryCommandRequest = MemoryCommandSchema;

export const MemoryResult = v.object({
  result: v.pipe(
    v.string(),
    v.description("The tool's text, exactly as Anthropic's reference backend words it."),
  ),
  is_error: v.pipe(v.boolean(), v.description("Whether the text is one of the tool's errors.")),
});

export const ChangesetDeleted = v.object({ filename: v.string(), deleted: v.literal(true) });
/** Extensions §12: what a `detach` (or an `attach` undone by a later `detach`) leaves. */
export const ChangesetAttachmentDeleted = v.object({ path: v.string(), deleted: v.literal(true) });

export const ChangesetResult = v.object({
  changeset_id: v.pipe(v.nullable(v.string()), v.description('null for a dry run.')),
  files: v.pipe(
    v.array(v.union([File, ChangesetDeleted, Attachment, ChangesetAttachmentDeleted])),
    v.description(
      'The file each operation touched, after the change, in operation order; for `attach` and ' +
        '`detach`, the attachment (its `path`, no `filename`).',
    ),
  ),
});

const Filenames = (what: string) => v.pipe(v.array(v.string()), v.description(what));

/** The answer of an import (extensions §10). */
export const ImportResult = v.object({
  changeset_id: v.pipe(
    v.nullable(v.string()),
    v.description('The changeset that applied the import; null for a dry run or when nothing changed.'),
  ),
  created: Filenames('Files the import created.'),
  updated: Filenames('Files whose content or metadata it replaced (one new revision each).'),
  unchanged: Filenames('Files whose content and metadata were already the same (no new revision).'),
  deleted: Filenames('With `mode=replace`: files the archive lacks, deleted.'),
  skipped: v.pipe(
    v.array(v.object({ name: v.string(), reason: v.string() })),
    v.description(
      'Entries of the archive that did not become files, with the reason: at most 1000, each name cut to 1024 UTF-8 bytes (ending with `…` when cut).',
    ),
  ),
  skipped_omitted: v.pipe(
    v.number(),
    v.description('Skipped entries not listed in `skipped` (past its 1000); 0 when it lists them all.'),
  ),
});

/** The answer of a publish (extensions §13). */
export const DraftPublished = v.object({
  draft: Draft,
  changeset_id: v.string(),
  merged: v.pipe(
    v.array(v.string()),
    v.description('Files changed since their base whose changes were merged three ways.'),
  ),
  files: v.pipe(
    v.array(v.union([File, ChangesetDeleted])),
    v.description('The files the changeset touched, after it.'),
  ),
});

export const COMPONENTS = {
  Project,
  ProjectSettings,
  ProjectSettingsInput,
  ProjectList,
  ProjectCreate,
  ProjectUpdate,
  ProjectDeleted,
  File,
  FileUpdate,
  FileList,
  Attachment,
  AttachmentList,
  AttachmentMoveRequest,
  MovedAttachment,
  UploadForm,
  MetadataUpdate,
  FileEdit,
  FileEdited,
  Outline,
  RenderRequest,
  Rendered,
  Revision,
  RevisionList,
  RestoreRequest,
  MoveRequest,
  CopyRequest,
  ProjectRestoreRequest,
  ProjectRestoreResult,
  ChangesetRequest,
  MemoryCommandRequest,
  MemoryResult,
  ChangesetDeleted,
  ChangesetAttachmentDeleted,
  ChangesetResult,
  ImportResult,
  SearchRequest,
  SearchAllRequest,
  SearchSnippet,
  SearchResult,
  SearchAnswer,
  SearchStatus,
  TrashItem,
  TrashList,
  TrashRestore,
  OutgoingLink,
  IncomingLink,
  FileLinks,
  BrokenLink,
  BrokenLinkList,
  OrphanList,
  FileReferenced,
  FileContentUpdate,
  MergeConflicts,
  MovedFile,
  ErrorMessage,
  ValidationIssue,
  ValidationError,
  AnyError,
  Health,
  Readiness,
  // Extensions §8.
  ...ACCESS_COMPONENTS,
  // Extensions §7.
  ...CHANGES_COMPONENTS,
  ...WEBHOOK_COMPONENTS,
  // Extensions §13.
  ...DRAFT_COMPONENTS,
  DraftPublished,
} as const;

/** Path parameters. */
export const ProjectIdParam = UuidSchema;
export const FilenameParam = v.pipe(
  v.string(),
  v.description('One path segment, percent-encoded as UTF-8 (`/` in a folder name is `%2F`).'),
);
