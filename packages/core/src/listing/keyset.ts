import type { FileRecord, ProjectRecord } from '../model/records.js';
import type { FileKeyset, FilePageQuery, FileSortField, ProjectKeyset } from '../ports/records.js';
import { compareCodePoints } from '../validation/text.js';

/**
 * The orders of a file page (extensions §3), as every records adapter must give them: by the sort
 * field, ties broken by `filename` (unique in a project), both in the direction of the order. Filenames
 * compare by Unicode code point. These functions are the reference the memory adapter runs and the
 * SQL adapters' `ORDER BY` must agree with (the contract suite checks it).
 */
export const sortValue = (file: FileRecord, sort: FileSortField): number | undefined =>
  sort === 'filename' ? undefined : file[sort];

/** The keyset of a file in an order: its sort value (none for `filename`) and its filename. */
export const keysetOf = (file: FileRecord, sort: FileSortField): FileKeyset => {
  const value = sortValue(file, sort);
  return value === undefined ? { filename: file.filename } : { value, filename: file.filename };
};

/** Ascending comparison of two keysets of one sort. */
export function compareKeysets(a: FileKeyset, b: FileKeyset): number {
  const byValue = (a.value ?? 0) - (b.value ?? 0);
  return byValue !== 0 ? Math.sign(byValue) : compareCodePoints(a.filename, b.filename);
}

/** Whether `file` belongs to the page `query` asks for, ignoring its limit. */
export function inPage(file: FileRecord, query: Omit<FilePageQuery, 'limit'>): boolean {
  if (file.projectId !== query.projectId || !file.filename.startsWith(query.prefix)) return false;
  if (query.after === undefined) return true;
  const step = compareKeysets(keysetOf(file, query.sort), query.after) * (query.descending ? -1 : 1);
  return query.inclusive ? step >= 0 : step > 0;
}

/** A page of `files` as the port's `listFilePage` answers it (the memory adapter's implementation). */
export function selectFilePage(files: Iterable<FileRecord>, query: FilePageQuery): FileRecord[] {
  const direction = query.descending ? -1 : 1;
  const rows: FileRecord[] = [];
  for (const file of files) if (inPage(file, query)) rows.push(file);
  return rows
    .sort((a, b) => direction * compareKeysets(keysetOf(a, query.sort), keysetOf(b, query.sort)))
    .slice(0, query.limit);
}

/** Projects in List Projects order (`createdAt`, then `id`), after a keyset. */
export const projectAfter = (project: ProjectRecord, after: ProjectKeyset | undefined): boolean =>
  after === undefined ||
  project.createdAt > after.createdAt ||
  (project.createdAt === after.createdAt && compareCodePoints(project.id, after.id) > 0);

/**
 * The least string above every string that starts with `prefix` (code-point order), or null when there
 * is none (`prefix` empty or all U+10FFFF): the exclusive upper bound of a prefix range, so that SQL
 * stores read a prefix as an index range. The last code point is incremented, skipping the surrogates.
 */
export function prefixUpperBound(prefix: string): string | null {
  const points = [...prefix].map((character) => character.codePointAt(0)!);
  while (points.length > 0) {
    const last = points.pop()!;
    if (last < 0x10ffff) {
      points.push(last === 0xd7ff ? 0xe000 : last + 1);
      return String.fromCodePoint(...points);
    }
  }
  return null;
}

/** The first name after every name in folder `folder` (which ends in `/`): the same with `0` for `/`. */
export const afterFolder = (folder: string): string => `${folder.slice(0, -1)}0`;
