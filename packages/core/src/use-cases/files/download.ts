import { ifRangeHolds, parseRange } from '../../conditional/index.js';
import { FileNotFoundError, isMdStoreError, RangeNotSatisfiableError } from '../../errors.js';
import { fileEtag } from '../../model/etags.js';
import type { ContentLocation, FileRecord, ProjectRecord } from '../../model/records.js';
import type { ByteStream } from '../../ports/blobs.js';
import { loadOwnedProject } from '../access.js';
import type { Principal } from '../authentication.js';
import type { MdStoreContext } from '../context.js';
import { type FileView, toFileView } from '../views.js';
import { checkReadConditions, conditionsOf, type RequestConditions } from './conditions.js';
import { findFileOr404 } from './shared.js';

export interface DownloadInput {
  readonly principal: Principal;
  readonly projectId: string;
  readonly filename: string;
  readonly conditions?: RequestConditions;
  /** The `Range` and `If-Range` headers, as sent. */
  readonly range?: string;
  readonly ifRange?: string;
  /** false for `HEAD`: the answer's headers only, nothing is opened. */
  readonly open?: boolean;
  readonly signal?: AbortSignal;
}

/** Inclusive byte offsets of the part sent (RFC 9110 §14). */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

export type Download =
  | { readonly kind: 'not-modified'; readonly file: FileView }
  | {
      readonly kind: 'content';
      readonly file: FileView;
      /** null: the whole content. */
      readonly range: ByteRange | null;
      /** null when not opened (`open: false`). */
      readonly content: ByteStream | null;
    };

/**
 * Opens a file's content (or the part a `Range` asks for), after the preconditions. A concurrent write
 * may prune the version between reading the record and opening it; the record is then read again, so a
 * reader always gets one whole version.
 */
export async function readFile(ctx: MdStoreContext, input: DownloadInput): Promise<Download> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId, input.filename);
  const conditions = conditionsOf(input.conditions);
  for (let attempt = 0; attempt < 3; attempt++) {
    const file = await findFileOr404(ctx.records, project.id, input.filename);
    const view = toFileView(file, project, ctx.blobs.scheme);
    if (checkReadConditions(file, conditions) === 'not-modified') return { kind: 'not-modified', file: view };
    const range = requestedRange(file, input);
    if (input.open === false) return { kind: 'content', file: view, range, content: null };
    const content = await openContent(ctx, project, file, range, input.signal);
    if (content) return { kind: 'content', file: view, range, content };
  }
  throw new FileNotFoundError(input.filename);
}

export function requestedRange(
  file: FileRecord,
  input: Pick<DownloadInput, 'range' | 'ifRange'>,
): ByteRange | null {
  if (input.range === undefined) return null;
  if (!ifRangeHolds(input.ifRange, { etag: fileEtag(file), lastModified: file.updatedAt })) return null;
  const parsed = parseRange(input.range, file.sizeBytes);
  if (parsed === 'unsatisfiable') throw new RangeNotSatisfiableError(file.sizeBytes);
  return parsed === 'none' ? null : parsed;
}

/** The content, or null when this version is gone (pruned or replaced since the record was read). */
export async function openContent(
  ctx: MdStoreContext,
  project: ProjectRecord,
  file: ContentLocation,
  range: ByteRange | null,
  signal: AbortSignal | undefined,
): Promise<ByteStream | null> {
  if (file.inline) {
    const bytes = await ctx.records.readInlineContent({ projectId: project.id, contentKey: file.contentKey });
    if (!bytes) return null;
    return oneChunk(range ? bytes.subarray(range.start, range.end + 1) : bytes);
  }
  try {
    const opened = await ctx.blobs.get({
      bucket: project.bucketName,
      key: file.contentKey,
      range: range ?? undefined,
      signal,
    });
    return opened.content;
  } catch (error) {
    if (isMdStoreError(error, 'BLOB_NOT_FOUND')) return null;
    throw error;
  }
}

/** The whole content of a file, for embedding: no preconditions, no range. */
export async function downloadFile(
  ctx: MdStoreContext,
  input: { principal: Principal; projectId: string; filename: string; signal?: AbortSignal },
): Promise<{ file: FileView; content: ByteStream }> {
  const read = await readFile(ctx, input);
  if (read.kind !== 'content' || read.content === null) throw new Error('unreachable: an unconditional read');
  return { file: read.file, content: read.content };
}

async function* oneChunk(bytes: Uint8Array): ByteStream {
  yield bytes;
}
