import { decodeFilePosition, encodeFilePosition, type FileListPosition } from '../../listing/cursors.js';
import { LIST_LIMITS } from '../../listing/limits.js';
import { parseFileListParams } from '../../listing/query.js';
import type { AttachmentRecord } from '../../model/records.js';
import type { RecordsReader } from '../../ports/records.js';
import { compareCodePoints } from '../../validation/text.js';
import { loadOwnedProject, prefixesInScope } from '../access.js';
import type { Principal } from '../authentication.js';
import type { MdStoreContext } from '../context.js';
import { type AttachmentView, toAttachmentView } from './shared.js';

/** The query parameters of List Attachments; others are ignored. */
export interface AttachmentListParams {
  readonly prefix?: string;
  readonly delimiter?: string;
  readonly cursor?: string;
  readonly limit?: string;
}

export interface AttachmentList {
  readonly attachments: AttachmentView[];
  /** With `delimiter`: the folders of the page, as for files (extensions §3). */
  readonly folders?: string[];
  readonly nextCursor: string | null;
}

/** Rows one statement reads while folding at `/` (each folder costs a statement that skips past it). */
const FOLDED_BATCH = 32;

type Entry = { kind: 'attachment'; attachment: AttachmentRecord } | { kind: 'folder'; name: string };

/** Where the paths after every path inside `folder` (which ends with `/`) start: `/` is followed by `0`. */
const pastFolder = (folder: string) => `${folder.slice(0, -1)}0`;

/**
 * One level of the project's attachments in path order from `start`, at most `want` entries and whether
 * there are more: with `delimiter`, the attachments right under the prefix and the folders below it
 * (each one entry). At most `want + 1` statements of at most `want + 1` rows each.
 */
async function readLevel(
  records: RecordsReader,
  q: {
    projectId: string;
    prefix: string;
    /** The paths walked when narrower than `prefix` (a key's folder, extensions §14); folded at `prefix`. */
    range?: string;
    delimiter: boolean;
    start?: FileListPosition;
    want: number;
  },
): Promise<{ entries: Entry[]; more: boolean }> {
  const entries: Entry[] = [];
  let after = q.start?.kind === 'folder' ? pastFolder(q.start.folder) : q.start?.keyset.filename;
  let inclusive = q.start?.kind === 'folder';
  while (entries.length <= q.want) {
    const room = q.want + 1 - entries.length;
    const limit = q.delimiter ? Math.min(room, FOLDED_BATCH) : room;
    const rows = await records.listAttachmentPage({
      projectId: q.projectId,
      prefix: q.range ?? q.prefix,
      after,
      inclusive,
      limit,
    });
    let folded = false;
    for (const row of rows) {
      const slash = q.delimiter ? row.path.indexOf('/', q.prefix.length) : -1;
      if (slash >= 0) {
        const name = row.path.slice(0, slash + 1);
        entries.push({ kind: 'folder', name });
        after = pastFolder(name);
        inclusive = true;
        folded = true;
        break;
      }
      entries.push({ kind: 'attachment', attachment: row });
      after = row.path;
      inclusive = false;
    }
    if (!folded && rows.length < limit) break;
  }
  const more = entries.length > q.want;
  return { entries: entries.slice(0, q.want), more };
}

/**
 * `readLevel` over the disjoint ranges of a key's folders (extensions §14), merged in path order (a
 * folder several ranges fold into is one entry): at most one walk per range.
 */
async function readLevels(
  records: RecordsReader,
  q: Parameters<typeof readLevel>[1],
  ranges: readonly string[],
): Promise<{ entries: Entry[]; more: boolean }> {
  if (ranges.length === 1 && ranges[0] === q.prefix) return readLevel(records, q);
  const walks = await Promise.all(ranges.map((range) => readLevel(records, { ...q, range })));
  const nameOf = (entry: Entry) => (entry.kind === 'folder' ? entry.name : entry.attachment.path);
  const byName = new Map<string, Entry>();
  for (const entry of walks.flatMap((walk) => walk.entries)) byName.set(nameOf(entry), entry);
  const merged = [...byName.values()].sort((a, b) => compareCodePoints(nameOf(a), nameOf(b)));
  return {
    entries: merged.slice(0, q.want),
    more: merged.length > q.want || walks.some((walk) => walk.more),
  };
}

/**
 * List Attachments (extensions §12): always one page (`limit`, 1-1000, default 100), in path order,
 * narrowed to `prefix` and folded at `/` with `delimiter`, continued with the signed `next_cursor`.
 */
export async function listAttachments(
  ctx: MdStoreContext,
  input: { principal: Principal; projectId: string; params?: AttachmentListParams },
): Promise<AttachmentList> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const { prefix, delimiter, cursor, limit } = input.params ?? {};
  const request = parseFileListParams({ prefix, delimiter, cursor, limit });
  const binding = {
    list: 'attachments',
    account: input.principal.accountId,
    project: project.id,
    prefix: request.prefix,
    delimiter: request.delimiter,
  };
  const start =
    request.cursor === undefined
      ? undefined
      : await decodeFilePosition(request.cursor, binding, ctx.cursorKey, 'filename');
  const { entries, more } = await readLevels(
    ctx.records,
    {
      projectId: project.id,
      prefix: request.prefix,
      delimiter: request.delimiter,
      start,
      want: request.limit ?? LIST_LIMITS.defaultLimit,
    },
    prefixesInScope(input.principal, request.prefix),
  );
  const last = entries.at(-1);
  const position: FileListPosition | undefined =
    last === undefined
      ? undefined
      : last.kind === 'folder'
        ? { kind: 'folder', folder: last.name }
        : { kind: 'file', keyset: { filename: last.attachment.path } };
  return {
    attachments: entries.flatMap((e) => (e.kind === 'attachment' ? [toAttachmentView(e.attachment)] : [])),
    ...(request.delimiter && { folders: entries.flatMap((e) => (e.kind === 'folder' ? [e.name] : [])) }),
    nextCursor: more && position ? await encodeFilePosition(position, binding, ctx.cursorKey) : null,
  };
}
