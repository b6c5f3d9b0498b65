import { hasIfMatch } from '../../conditional/index.js';
import {
  ContentTooLargeError,
  InvalidInputError,
  isMdStoreError,
  MergeConflictError,
  PreconditionFailedError,
} from '../../errors.js';
import { mergeDocument } from '../../merge/index.js';
import { fileEtag } from '../../model/etags.js';
import type { FileRecord, ProjectRecord } from '../../model/records.js';
import type { ByteStream } from '../../ports/blobs.js';
import { checkedContent } from '../../validation/content.js';
import type { ContentHold } from '../content-budget.js';
import type { MdStoreContext } from '../context.js';
import type { ParsedConditions } from './conditions.js';
import { revisionText } from './revision-reads.js';

/**
 * `?merge_base=ETAG` on `PUT …/content` and `PATCH` (extensions §13): the sent change is taken relative
 * to the revision that had that ETag, and merged three ways (core/src/merge) into the file's current
 * content, under the same optimistic commit as an edit (read, merge, store, and commit only if the file
 * is still at the revision merged into; otherwise merge again into the newer one).
 *
 * Choices where the spec is silent (docs/api.md):
 * - The value is the ETag as the `ETag` header gives it; its quotes may be left out.
 * - Not an ETag of this service's form: 422 `["query","merge_base"]`. With `If-Match` too: 422 at the
 *   same place (they exclude each other). It stands for `If-Match`, so a project that requires
 *   `If-Match` takes it instead (no 428). `If-None-Match`/`If-Unmodified-Since` still apply.
 * - An ETag of another file (or of this name before it was deleted and created again), of a revision
 *   pruned from the history, or newer than the file: 412 with the current ETag, as a failed `If-Match`
 *   is: the client reads the file again and redoes its change.
 * - Overlapping changes: 409 `MERGE_CONFLICT` with the hunks; nothing is written.
 */

const LOC = ['query', 'merge_base'] as const;

export interface MergeBase {
  /** The file id, without dashes, as the ETag spells it. */
  readonly fileId: string;
  readonly revision: number;
}

const ETAG = /^"?([0-9A-Za-z]{1,64})-([1-9][0-9]{0,9})"?$/;

/** The `merge_base` query value, checked against the request's other preconditions. */
export function parseMergeBase(raw: string | undefined, conditions: ParsedConditions): MergeBase | undefined {
  if (raw === undefined) return undefined;
  const match = ETAG.exec(raw.trim());
  if (!match) {
    throw new InvalidInputError([
      { loc: LOC, msg: "Value error, merge_base must be a file's ETag", type: 'value_error' },
    ]);
  }
  if (hasIfMatch(conditions)) {
    throw new InvalidInputError([
      { loc: LOC, msg: 'Value error, send merge_base or If-Match, not both', type: 'value_error' },
    ]);
  }
  return { fileId: match[1]!, revision: Number(match[2]) };
}

/** Whether `base` names the revision `file` is at now (then there is nothing to merge). */
export const isCurrentBase = (file: FileRecord, base: MergeBase): boolean =>
  fileEtag(file) === `"${base.fileId}-${base.revision}"`;

/**
 * The base revision's text: `currentText` when the base is the current revision, else read from the
 * kept revisions; 412 (with the current ETag) when the file has no such revision.
 */
export async function mergeBaseText(
  ctx: MdStoreContext,
  project: ProjectRecord,
  file: FileRecord,
  base: MergeBase,
  currentText: string,
  o: { signal?: AbortSignal; hold?: ContentHold },
): Promise<string> {
  if (isCurrentBase(file, base)) return currentText;
  const unknown = () => new PreconditionFailedError(fileEtag(file));
  if (file.id.replaceAll('-', '') !== base.fileId || base.revision > file.revision) throw unknown();
  try {
    const found = await revisionText(ctx, project, file.filename, base.revision, o.signal, o.hold);
    if (found.file.id !== file.id) throw unknown();
    return found.text;
  } catch (error) {
    if (isMdStoreError(error, 'REVISION_NOT_FOUND')) throw unknown();
    throw error;
  }
}

/** The merged text, or 409 `MERGE_CONFLICT` naming the file's conflicting hunks. */
export function mergedOrConflict(
  filename: string,
  base: string,
  current: string,
  proposed: string,
): { text: string; merged: boolean } {
  const result = mergeDocument(base, current, proposed);
  if (result.kind === 'conflict') throw new MergeConflictError([{ filename, hunks: result.hunks }]);
  return { text: result.text, merged: result.merged };
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A sent body as text, checked as content is (UTF-8, not empty: 400 at `loc`) and bounded by the file
 * size limit (413); `sha256` of its bytes for the declared digests, which are about what was sent.
 */
export async function receivedText(
  ctx: MdStoreContext,
  content: ByteStream,
  loc: readonly (string | number)[],
  hold: ContentHold,
): Promise<{ text: string; sha256: string }> {
  const max = ctx.settings.maxFileBytes;
  const hash = ctx.hashing.sha256();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of checkedContent(content, { loc })) {
    size += chunk.byteLength;
    if (size > max) throw new ContentTooLargeError(max);
    await hold.reserve(chunk.byteLength);
    hash.update(chunk);
    chunks.push(chunk);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  chunks.length = 0;
  return { text: decoder.decode(bytes), sha256: hash.digestHex() };
}
