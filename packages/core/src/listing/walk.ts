import type { FileRecord } from '../model/records.js';
import type { FileKeyset, FileSortField, RecordsReader } from '../ports/records.js';
import type { FileListPosition } from './cursors.js';
import { afterFolder, compareKeysets, keysetOf } from './keyset.js';
import { LIST_LIMITS } from './limits.js';

/** One entry of a file list: a file, or with a delimiter a folder (its name ends in `/`). */
export type FileListEntry =
  | { readonly kind: 'file'; readonly file: FileRecord }
  | { readonly kind: 'folder'; readonly name: string };

export interface LevelQuery {
  readonly projectId: string;
  readonly sort: FileSortField;
  readonly descending: boolean;
  readonly prefix: string;
  /**
   * The names walked, when narrower than `prefix` (a key's folder inside it, extensions §14): folders are
   * still folded at the first `/` after `prefix`. Absent: `prefix`.
   */
  readonly range?: string;
  readonly delimiter: boolean;
  /** Where the previous page ended. */
  readonly start?: FileListPosition;
  /** Entries wanted; undefined for all of them. */
  readonly want: number | undefined;
}

/** The port's position just past `position`: past a file, or past every name inside a folder. */
function resumeAfter(
  position: FileListPosition,
  descending: boolean,
): { after: FileKeyset; inclusive: boolean } {
  if (position.kind === 'file') return { after: position.keyset, inclusive: false };
  // A folder's names sort right after it: ascending, the first name past them is the folder with `0`
  // for its `/`; descending, the folder's own name (never a filename) is just above them.
  return descending
    ? { after: { filename: position.folder }, inclusive: false }
    : { after: { filename: afterFolder(position.folder) }, inclusive: true };
}

export const positionOf = (entry: FileListEntry, sort: FileSortField): FileListPosition =>
  entry.kind === 'file'
    ? { kind: 'file', keyset: keysetOf(entry.file, sort) }
    : { kind: 'folder', folder: entry.name };

/**
 * Up to `want` entries of a list from `start`, and whether more follow (one entry is read ahead to
 * know). Rows come from keyset pages of the records port; with a delimiter, the rows of a folder are
 * folded into one entry and the rest of the folder is skipped by restarting past it, so a page costs
 * at most one statement per folder it shows, whatever the folders hold.
 */
export async function readFileLevel(
  reader: RecordsReader,
  query: LevelQuery,
): Promise<{ entries: FileListEntry[]; more: boolean }> {
  const { projectId, sort, descending, prefix, delimiter, want } = query;
  const range = query.range ?? prefix;
  const target = want === undefined ? Number.POSITIVE_INFINITY : want + 1;
  const entries: FileListEntry[] = [];
  let position = query.start && resumeAfter(query.start, descending);
  for (;;) {
    const limit = Math.min(target - entries.length, LIST_LIMITS.batchRows);
    const rows = await reader.listFilePage({
      projectId,
      sort,
      descending,
      prefix: range,
      limit,
      ...position,
    });
    let folder: string | undefined;
    for (const row of rows) {
      if (folder !== undefined && row.filename.startsWith(folder)) continue;
      const slash = delimiter ? row.filename.indexOf('/', prefix.length) : -1;
      folder = slash < 0 ? undefined : row.filename.slice(0, slash + 1);
      entries.push(folder === undefined ? { kind: 'file', file: row } : { kind: 'folder', name: folder });
      if (entries.length >= target) return { entries: entries.slice(0, want), more: true };
    }
    const last = rows.at(-1);
    if (rows.length < limit || last === undefined) return { entries, more: false };
    position = resumeAfter(
      folder === undefined ? { kind: 'file', keyset: keysetOf(last, sort) } : { kind: 'folder', folder },
      descending,
    );
  }
}

/**
 * `readFileLevel` over several disjoint ranges of one level (a key's folders, extensions §14): each range
 * read for up to `want` entries from `start`, then merged in the list's order (a folder that several
 * ranges fold into is one entry). A page costs at most one walk per range.
 */
export async function readFileLevels(
  reader: RecordsReader,
  query: Omit<LevelQuery, 'range'>,
  ranges: readonly string[],
): Promise<{ entries: FileListEntry[]; more: boolean }> {
  if (ranges.length === 1 && ranges[0] === query.prefix) return readFileLevel(reader, query);
  const walks = await Promise.all(ranges.map((range) => readFileLevel(reader, { ...query, range })));
  const seen = new Set<string>();
  const merged: FileListEntry[] = [];
  for (const entry of walks.flatMap((walk) => walk.entries)) {
    if (entry.kind === 'folder') {
      if (seen.has(entry.name)) continue;
      seen.add(entry.name);
    }
    merged.push(entry);
  }
  const direction = query.descending ? -1 : 1;
  const keyOf = (entry: FileListEntry): FileKeyset =>
    entry.kind === 'file' ? keysetOf(entry.file, query.sort) : { filename: entry.name };
  merged.sort((a, b) => direction * compareKeysets(keyOf(a), keyOf(b)));
  const want = query.want ?? Number.POSITIVE_INFINITY;
  return {
    entries: merged.slice(0, query.want),
    more: merged.length > want || walks.some((walk) => walk.more),
  };
}
