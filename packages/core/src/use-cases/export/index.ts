import { isMdStoreError } from '../../errors.js';
import { LIST_LIMITS } from '../../listing/limits.js';
import { parseFileListParams } from '../../listing/query.js';
import type { AttachmentRecord, FileRecord, ProjectRecord } from '../../model/records.js';
import type { ByteStream } from '../../ports/blobs.js';
import { loadOwnedProject, prefixesInScope } from '../access.js';
import { type AttachmentView, toAttachmentView } from '../attachments/shared.js';
import type { Principal } from '../authentication.js';
import type { MdStoreContext } from '../context.js';
import { openContent } from '../files/download.js';
import { type FileView, type ProjectView, toFileView, toProjectView } from '../views.js';

export interface ExportProjectInput {
  readonly principal: Principal;
  readonly projectId: string;
  /** Only files whose filename starts with it (the rules of List Files' `prefix`). */
  readonly prefix?: string;
  readonly signal?: AbortSignal;
}

/** One file of an export: the version its view describes, and that version's bytes. */
export interface ExportedFile {
  readonly file: FileView;
  /** Read it to the end (or stop iterating) before asking for the next file. */
  readonly content: ByteStream;
}

/** One attachment of an export (extensions §12): the version its view describes, and its bytes. */
export interface ExportedAttachment {
  readonly attachment: AttachmentView;
  /** Read it to the end (or stop iterating) before asking for the next attachment. */
  readonly content: ByteStream;
}

export interface ProjectExport {
  readonly project: ProjectView;
  /**
   * Every file of the project (of `prefix`), in filename order (code points), read page by page: one
   * page of records and one open content at a time, whatever the project holds. Iterate once.
   */
  readonly files: AsyncIterable<ExportedFile>;
  /**
   * Then every attachment (of `prefix`, within the key's folders), in path order, read the same way:
   * one page of records and one open content at a time. Iterate once, after `files`.
   */
  readonly attachments: AsyncIterable<ExportedAttachment>;
}

/** Records read per statement while an export walks the project. */
export const EXPORT_PAGE_ROWS = Math.min(200, LIST_LIMITS.batchRows);
/** Times a file is read again when its version was replaced between its record and its content. */
const MAX_ATTEMPTS = 3;

/**
 * Export (extensions §10): the project and its files with their contents, for an archive. Access and
 * `prefix` are checked before anything is returned, so a refusal comes before the first byte.
 *
 * What it promises while writes go on (no transaction can be held across blob reads):
 * - every file comes whole, as one version, and its view (`revision`, `sha256`, `metadata`, sizes,
 *   dates) describes exactly that version;
 * - a file is read when the walk reaches it: one written meanwhile comes in its newer version, one
 *   deleted before the walk reaches it is left out, one created comes if its name sorts after the
 *   page being read. Each file is in the export at most once.
 * It is not a point-in-time copy of the whole project; for one, stop the writers while it runs.
 */
export async function exportProject(ctx: MdStoreContext, input: ExportProjectInput): Promise<ProjectExport> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const { prefix } = parseFileListParams(input.prefix === undefined ? {} : { prefix: input.prefix });
  // Extensions §14: a key confined to folders exports what it reaches; the ranges are disjoint and in
  // filename order, so the export stays in filename order.
  const ranges = prefixesInScope(input.principal, prefix);
  return {
    project: toProjectView(project),
    files: walkRanges(ctx, project, ranges, input.signal),
    attachments: walkAttachmentRanges(ctx, project, ranges, input.signal),
  };
}

async function* walkRanges(
  ctx: MdStoreContext,
  project: ProjectRecord,
  ranges: readonly string[],
  signal: AbortSignal | undefined,
): AsyncGenerator<ExportedFile, void, undefined> {
  for (const range of ranges) yield* walk(ctx, project, range, signal);
}

async function* walk(
  ctx: MdStoreContext,
  project: ProjectRecord,
  prefix: string,
  signal: AbortSignal | undefined,
): AsyncGenerator<ExportedFile, void, undefined> {
  let after: { filename: string } | undefined;
  for (;;) {
    signal?.throwIfAborted();
    const rows = await ctx.records.listFilePage({
      projectId: project.id,
      sort: 'filename',
      descending: false,
      prefix,
      limit: EXPORT_PAGE_ROWS,
      ...(after && { after }),
    });
    for (const row of rows) {
      const opened = await openCurrent(ctx, project, row, signal);
      if (opened) yield opened;
    }
    const last = rows.at(-1);
    if (last === undefined || rows.length < EXPORT_PAGE_ROWS) return;
    after = { filename: last.filename };
  }
}

/**
 * The file's content in the version of `row`, or, when that version is gone (replaced and pruned since
 * the page was read), the file as it is now; null when the file is gone.
 */
async function openCurrent(
  ctx: MdStoreContext,
  project: ProjectRecord,
  row: FileRecord,
  signal: AbortSignal | undefined,
): Promise<ExportedFile | null> {
  let file: FileRecord | null = row;
  for (let attempt = 0; attempt < MAX_ATTEMPTS && file !== null; attempt++) {
    const content = await openContent(ctx, project, file, null, signal);
    if (content) return { file: toFileView(file, project, ctx.blobs.scheme), content };
    file = await ctx.records.findFile({ projectId: project.id, filename: row.filename });
  }
  if (file === null) return null;
  // Still there, yet each version read was gone at once: not a race an export should hide.
  throw new Error(`the content of ${JSON.stringify(row.filename)} could not be read`);
}

async function* walkAttachmentRanges(
  ctx: MdStoreContext,
  project: ProjectRecord,
  ranges: readonly string[],
  signal: AbortSignal | undefined,
): AsyncGenerator<ExportedAttachment, void, undefined> {
  for (const range of ranges) {
    let after: string | undefined;
    for (;;) {
      signal?.throwIfAborted();
      const rows = await ctx.records.listAttachmentPage({
        projectId: project.id,
        prefix: range,
        limit: EXPORT_PAGE_ROWS,
        ...(after !== undefined && { after }),
      });
      for (const row of rows) {
        const opened = await openAttachment(ctx, project, row, signal);
        if (opened) yield opened;
      }
      const last = rows.at(-1);
      if (last === undefined || rows.length < EXPORT_PAGE_ROWS) break;
      after = last.path;
    }
  }
}

/** As `openCurrent`, for an attachment: its bytes in the version of `row`, or as it is now; null when gone. */
async function openAttachment(
  ctx: MdStoreContext,
  project: ProjectRecord,
  row: AttachmentRecord,
  signal: AbortSignal | undefined,
): Promise<ExportedAttachment | null> {
  let record: AttachmentRecord | null = row;
  for (let attempt = 0; attempt < MAX_ATTEMPTS && record !== null; attempt++) {
    try {
      const opened = await ctx.blobs.get({ bucket: project.bucketName, key: record.blobKey, signal });
      return { attachment: toAttachmentView(record), content: opened.content };
    } catch (error) {
      if (!isMdStoreError(error, 'BLOB_NOT_FOUND')) throw error;
    }
    record = await ctx.records.findAttachment({ projectId: project.id, path: row.path });
  }
  if (record === null) return null;
  throw new Error(`the content of ${JSON.stringify(row.path)} could not be read`);
}
