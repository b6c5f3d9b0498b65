import { MEMORY_LIMITS } from '../../defaults/memory.js';
import { isMdStoreError } from '../../errors.js';
import { fileEtag } from '../../model/etags.js';
import type { FileRecord, ProjectRecord } from '../../model/records.js';
import { prefixesInScope } from '../access.js';
import type { Principal } from '../authentication.js';
import { applyChangeset } from '../changesets/apply.js';
import type { MdStoreContext } from '../context.js';
import { failure, type MemoryOutcome, success } from './files.js';
import { shownName } from './paths.js';
import { folderListing, formatFileSize, type ListingEntry, MEMORY_TEXT } from './text.js';

/**
 * Memory folders (extensions §14): a folder is the files whose name starts with its prefix (there are
 * no empty folders). `view` lists two levels below it as the reference does (hidden names and
 * `node_modules` left out, names sorted within each folder, a folder before what it holds); a folder's
 * size is shown as `4K` (a directory's own size, 4096 bytes, on ext4 and most file systems the reference runs on).
 * `delete` and `rename` of a folder touch each file under it in ONE changeset (all or nothing), at most
 * `MEMORY_LIMITS.maxFolderFiles` files.
 */

export const FOLDER_SIZE = formatFileSize(4096);

/**
 * Up to `limit` files under `prefix`, in filename order; for a key confined to `folders` (extensions
 * §14), only those it reaches: to it, the others do not exist.
 */
export async function filesUnder(
  ctx: MdStoreContext,
  project: ProjectRecord,
  prefix: string,
  limit: number,
  folders: readonly string[] | null,
): Promise<FileRecord[]> {
  const found: FileRecord[] = [];
  for (const range of prefixesInScope({ pathPrefixes: folders }, prefix)) {
    if (found.length >= limit) break;
    found.push(...(await filesInRange(ctx, project, range, limit - found.length)));
  }
  return found;
}

async function filesInRange(
  ctx: MdStoreContext,
  project: ProjectRecord,
  prefix: string,
  limit: number,
): Promise<FileRecord[]> {
  const found: FileRecord[] = [];
  while (found.length < limit) {
    const last = found.at(-1);
    const page = await ctx.records.listFilePage({
      projectId: project.id,
      sort: 'filename',
      descending: false,
      prefix,
      limit: Math.min(500, limit - found.length),
      ...(last && { after: { filename: last.filename } }),
    });
    found.push(...page);
    if (page.length === 0 || found.length >= limit) break;
  }
  return found;
}

/** Whether any file lies under `prefix`. */
export async function folderExists(
  ctx: MdStoreContext,
  project: ProjectRecord,
  prefix: string,
  folders: readonly string[] | null,
): Promise<boolean> {
  return (await filesUnder(ctx, project, prefix, 1, folders)).length > 0;
}

interface Node {
  readonly folders: Map<string, Node>;
  readonly files: Map<string, number>;
}

const newNode = (): Node => ({ folders: new Map(), files: new Map() });
const hidden = (name: string) => name.startsWith('.') || name === 'node_modules';

/** `view` of a folder: the listing of the files read (at most `MEMORY_LIMITS.maxViewScan`). */
export async function viewFolder(
  ctx: MdStoreContext,
  project: ProjectRecord,
  path: string,
  prefix: string,
  folders: readonly string[] | null,
): Promise<MemoryOutcome> {
  const files = await filesUnder(ctx, project, prefix, MEMORY_LIMITS.maxViewScan + 1, folders);
  const root = newNode();
  for (const file of files.slice(0, MEMORY_LIMITS.maxViewScan)) {
    const parts = file.filename.slice(prefix.length).split('/');
    let node = root;
    for (const folder of parts.slice(0, -1).slice(0, 2)) {
      let next = node.folders.get(folder);
      if (!next) {
        next = newNode();
        node.folders.set(folder, next);
      }
      node = next;
    }
    if (parts.length <= 2) node.files.set(shownName(parts.at(-1)!), file.sizeBytes);
  }
  const entries: ListingEntry[] = [];
  const walk = (node: Node, under: string, depth: number) => {
    const names = [...new Set([...node.folders.keys(), ...node.files.keys()])].sort();
    for (const name of names) {
      if (hidden(name)) continue;
      const folder = node.folders.get(name);
      if (folder) {
        entries.push({ path: `${under}${name}/`, size: FOLDER_SIZE });
        if (depth < 2) walk(folder, `${under}${name}/`, depth + 1);
      }
      const size = node.files.get(name);
      if (size !== undefined) entries.push({ path: `${under}${name}`, size: formatFileSize(size) });
    }
  };
  walk(root, '', 1);
  const shown = entries.slice(0, MEMORY_LIMITS.maxViewEntries);
  let note: string | undefined;
  if (files.length > MEMORY_LIMITS.maxViewScan)
    note = `(listing stopped after ${MEMORY_LIMITS.maxViewScan} files)`;
  else if (entries.length > shown.length) note = `(${entries.length - shown.length} more entries not shown)`;
  return success(folderListing(path, FOLDER_SIZE, shown, note));
}

/** The files of a folder command, or its refusal: none (missing) or too many. */
async function folderFiles(
  ctx: MdStoreContext,
  project: ProjectRecord,
  path: string,
  prefix: string,
  missing: string,
  folders: readonly string[] | null,
): Promise<FileRecord[] | MemoryOutcome> {
  const files = await filesUnder(ctx, project, prefix, MEMORY_LIMITS.maxFolderFiles + 1, folders);
  if (files.length === 0) return failure(missing);
  if (files.length > MEMORY_LIMITS.maxFolderFiles) {
    let count = 0;
    for (const range of prefixesInScope({ pathPrefixes: folders }, prefix))
      count += (await ctx.records.countFiles({ projectId: project.id, prefix: range, delimiter: false }))
        .files;
    return failure(MEMORY_TEXT.folderTooLarge(path, count, MEMORY_LIMITS.maxFolderFiles));
  }
  return files;
}

interface FolderTarget {
  readonly principal: Principal;
  readonly project: ProjectRecord;
  readonly path: string;
  readonly prefix: string;
  readonly signal?: AbortSignal;
}

export function deleteFolder(ctx: MdStoreContext, target: FolderTarget): Promise<MemoryOutcome> {
  const missing = MEMORY_TEXT.deleteMissing(target.path);
  return folderChange(ctx, target, missing, MEMORY_TEXT.deleted(target.path), undefined, (file) => ({
    op: 'delete',
    filename: file.filename,
    if_match: fileEtag(file),
  }));
}

export function renameFolder(
  ctx: MdStoreContext,
  target: FolderTarget,
  to: { path: string; prefix: string },
): Promise<MemoryOutcome> {
  const missing = MEMORY_TEXT.renameMissing(target.path);
  const done = MEMORY_TEXT.renamed(target.path, to.path);
  return folderChange(ctx, target, missing, done, MEMORY_TEXT.destinationExists(to.path), (file) => ({
    op: 'move',
    filename: file.filename,
    to: `${to.prefix}${file.filename.slice(target.prefix.length)}`,
    if_match: fileEtag(file),
  }));
}

/**
 * One changeset of one operation per file of the folder, each with the ETag the file had when the
 * folder was read: a file changed meanwhile (412) starts it again on the folder as it is then, at most
 * `MEMORY_LIMITS.maxWriteAttempts` times (a file added meanwhile is then part of it too).
 */
async function folderChange(
  ctx: MdStoreContext,
  target: FolderTarget,
  missing: string,
  done: string,
  taken: string | undefined,
  operationOf: (file: FileRecord) => unknown,
): Promise<MemoryOutcome> {
  for (let attempt = 1; attempt <= MEMORY_LIMITS.maxWriteAttempts; attempt++) {
    const files = await folderFiles(
      ctx,
      target.project,
      target.path,
      target.prefix,
      missing,
      target.principal.pathPrefixes,
    );
    if (!Array.isArray(files)) return files;
    const outcome = await inChangeset(ctx, target, files.map(operationOf), done, missing, taken);
    if (outcome !== null) return outcome;
  }
  return failure(MEMORY_TEXT.busy(target.path, MEMORY_LIMITS.maxWriteAttempts));
}

/**
 * The operations as one changeset; a file gone or a name taken meanwhile is the command's error text,
 * a file changed meanwhile null (the caller starts again).
 */
async function inChangeset(
  ctx: MdStoreContext,
  target: FolderTarget,
  operations: readonly unknown[],
  done: string,
  gone: string,
  taken?: string,
): Promise<MemoryOutcome | null> {
  try {
    await applyChangeset(ctx, {
      principal: target.principal,
      projectId: target.project.id,
      message: `memory: ${done}`,
      operations,
      signal: target.signal,
    });
  } catch (error) {
    if (isMdStoreError(error, 'FILE_NOT_FOUND') || isMdStoreError(error, 'FILE_MISSING'))
      return failure(gone);
    if (taken && isMdStoreError(error, 'FILENAME_TAKEN')) return failure(taken);
    if (isMdStoreError(error, 'PRECONDITION_FAILED')) return null;
    throw error;
  }
  return success(done);
}
