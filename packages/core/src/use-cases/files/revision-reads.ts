import { RevisionNotFoundError } from '../../errors.js';
import { fileEtag } from '../../model/etags.js';
import type { FileRecord, ProjectRecord, RevisionChange, RevisionRecord } from '../../model/records.js';
import { type CursorBinding, decodeCursor, encodeCursor } from '../../search/cursor.js';
import { invalidAt } from '../../search/issues.js';
import { parseRevisionParam, parseRevisionsLimit } from '../../validation/history.js';
import type { JsonObject } from '../../validation/schemas.js';
import { loadOwnedProject } from '../access.js';
import type { Principal } from '../authentication.js';
import type { ContentHold } from '../content-budget.js';
import type { MdStoreContext } from '../context.js';
import { toFileView } from '../views.js';
import { checkReadConditions, conditionsOf, type RequestConditions } from './conditions.js';
import { type Download, openContent, requestedRange } from './download.js';
import { readText } from './parts.js';
import { findFileOr404 } from './shared.js';

/**
 * Reading a file's kept revisions (extensions §5): the list, one revision's content, and the text of
 * two revisions for a diff. A revision is immutable; it may only disappear (pruned by a later write).
 */

/** One kept revision as the interface shows it. */
export interface RevisionView {
  readonly revision: number;
  /** The ETag the file had while this revision was current. */
  readonly etag: string;
  readonly sizeBytes: number;
  readonly sha256: string;
  readonly metadata: JsonObject | null;
  readonly change: RevisionChange;
  readonly createdAt: number;
  /** The changeset that wrote the revision and its message (extensions §9); null for a single write. */
  readonly changesetId: string | null;
  readonly message: string | null;
  /** The key whose request wrote it (extensions §14); null without a key, or before it was recorded. */
  readonly keyId: string | null;
}

export interface RevisionList {
  readonly revisions: RevisionView[];
  /** null on the last page. */
  readonly nextCursor: string | null;
}

export const toRevisionView = (record: RevisionRecord): RevisionView => ({
  revision: record.revision,
  etag: fileEtag({ id: record.fileId, revision: record.revision }),
  sizeBytes: record.sizeBytes,
  sha256: record.sha256,
  metadata: record.metadataJson === null ? null : (JSON.parse(record.metadataJson) as JsonObject),
  change: record.change,
  createdAt: record.createdAt,
  changesetId: record.changesetId,
  message: record.message,
  keyId: record.keyId,
});

/** The file as it was at `revision`: its content, metadata, digest, tag and date of then. */
export const fileAtRevision = (file: FileRecord, revision: RevisionRecord): FileRecord => ({
  ...file,
  contentKey: revision.contentKey,
  inline: revision.inline,
  sizeBytes: revision.sizeBytes,
  sha256: revision.sha256,
  metadataJson: revision.metadataJson,
  revision: revision.revision,
  updatedAt: revision.createdAt,
});

/**
 * Revision cursors: the service's signed cursor codec (as for every list), the last revision listed as
 * the payload, bound to the account, the project and the file (a cursor of another file, or one edited,
 * is refused at `["query","cursor"]`).
 */
const CURSOR_LOC = ['query', 'cursor'] as const;

const revisionBinding = (accountId: string, projectId: string, fileId: string): CursorBinding => ({
  list: 'revisions',
  account: accountId,
  project: projectId,
  file: fileId,
});

async function decodeRevisionCursor(
  cursor: string,
  binding: CursorBinding,
  key: Uint8Array,
): Promise<number> {
  const payload = (await decodeCursor(cursor, binding, key, CURSOR_LOC)) as { r?: unknown } | null;
  const r = payload?.r;
  if (typeof r !== 'number' || !Number.isSafeInteger(r) || r < 1) throw invalidAt(CURSOR_LOC, 'cursor');
  return r;
}

export interface ListRevisionsInput {
  readonly principal: Principal;
  readonly projectId: string;
  readonly filename: string;
  /** The query values as sent. */
  readonly limit?: string;
  readonly cursor?: string;
}

/** Kept revisions, newest first, one page of `limit` (100 when absent) after `cursor`. */
export async function listRevisions(ctx: MdStoreContext, input: ListRevisionsInput): Promise<RevisionList> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId, input.filename);
  const limit = parseRevisionsLimit(input.limit);
  const file = await findFileOr404(ctx.records, project.id, input.filename);
  const binding = revisionBinding(input.principal.accountId, project.id, file.id);
  const before =
    input.cursor === undefined ? undefined : await decodeRevisionCursor(input.cursor, binding, ctx.cursorKey);
  const page = await ctx.records.listRevisions({ fileId: file.id, limit: limit + 1, beforeRevision: before });
  const shown = page.slice(0, limit);
  const last = shown.at(-1);
  return {
    revisions: shown.map(toRevisionView),
    nextCursor:
      page.length > limit && last ? await encodeCursor({ r: last.revision }, binding, ctx.cursorKey) : null,
  };
}

/** A file's record and one of its kept revisions (`REVISION_NOT_FOUND` when pruned or never written). */
export async function findRevisionOr404(
  ctx: MdStoreContext,
  project: ProjectRecord,
  filename: string,
  revision: number,
): Promise<{ file: FileRecord; revision: RevisionRecord }> {
  const file = await findFileOr404(ctx.records, project.id, filename);
  const found =
    revision > file.revision ? null : await ctx.records.findRevision({ fileId: file.id, revision });
  if (!found) throw new RevisionNotFoundError();
  return { file, revision: found };
}

export interface ReadRevisionInput {
  readonly principal: Principal;
  readonly projectId: string;
  readonly filename: string;
  /** The revision number as sent (path segment). */
  readonly revision: string;
  readonly conditions?: RequestConditions;
  readonly range?: string;
  readonly ifRange?: string;
  /** false for `HEAD`. */
  readonly open?: boolean;
  readonly signal?: AbortSignal;
}

/**
 * One revision's content with the download's rules (preconditions against the revision's own ETag and
 * date, one byte range). Pruned between the look-up and the read: looked up again, so the answer is
 * one whole revision or `404`.
 */
export async function readRevision(ctx: MdStoreContext, input: ReadRevisionInput): Promise<Download> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId, input.filename);
  const number = parseRevisionParam(input.revision, ['path', 'revision']);
  const conditions = conditionsOf(input.conditions);
  for (let attempt = 0; attempt < 3; attempt++) {
    const found = await findRevisionOr404(ctx, project, input.filename, number);
    const asFile = fileAtRevision(found.file, found.revision);
    const view = toFileView(asFile, project, ctx.blobs.scheme);
    if (checkReadConditions(asFile, conditions) === 'not-modified')
      return { kind: 'not-modified', file: view };
    const range = requestedRange(asFile, input);
    if (input.open === false) return { kind: 'content', file: view, range, content: null };
    const content = await openContent(ctx, project, asFile, range, input.signal);
    if (content) return { kind: 'content', file: view, range, content };
  }
  throw new RevisionNotFoundError();
}

/** The text of a kept revision, looked up again if it is pruned while being read. */
export async function revisionText(
  ctx: MdStoreContext,
  project: ProjectRecord,
  filename: string,
  revision: number,
  signal?: AbortSignal,
  hold?: ContentHold,
): Promise<{ file: FileRecord; text: string }> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const found = await findRevisionOr404(ctx, project, filename, revision);
    const text = await readText(ctx, project, fileAtRevision(found.file, found.revision), signal, hold);
    if (text !== null) return { file: found.file, text };
  }
  throw new RevisionNotFoundError();
}
