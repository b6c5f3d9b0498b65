import {
  decodeFilePosition,
  encodeFilePosition,
  type FileListPosition,
  fileListBinding,
} from '../../listing/cursors.js';
import { LIST_LIMITS } from '../../listing/limits.js';
import { type FileListParams, parseFileListParams } from '../../listing/query.js';
import { positionOf, readFileLevels } from '../../listing/walk.js';
import type { FileCounts, RecordsReader } from '../../ports/records.js';
import { loadOwnedProject, prefixesInScope } from '../access.js';
import type { Principal } from '../authentication.js';
import type { MdStoreContext } from '../context.js';
import { type FileView, toFileView } from '../views.js';

export interface FileList {
  readonly files: FileView[];
  readonly totalCount: number;
  readonly totalSizeBytes: number;
  /** With `delimiter`: the folders of the page (extensions §3). */
  readonly folders?: string[];
  /** Paged (`limit`/`cursor`): the next page's cursor or null; null when narrowed; absent otherwise. */
  readonly nextCursor?: string | null;
}

/**
 * The files of a project: every one by filename in code-point order without parameters (as the
 * interface has it), else sorted, narrowed to a prefix, folded at `/` and paged as extensions §3 says.
 * A key scoped to folders (extensions §14) lists only the files under them, counted the same way.
 */
export async function listFiles(
  ctx: MdStoreContext,
  input: { principal: Principal; projectId: string; params?: FileListParams },
): Promise<FileList> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const request = parseFileListParams(input.params);
  const view = (file: Parameters<typeof toFileView>[0]) => toFileView(file, project, ctx.blobs.scheme);
  const scoped = input.principal.pathPrefixes !== null;
  const ranges = prefixesInScope(input.principal, request.prefix);
  if (!scoped && !request.paged && !request.narrowed && request.sort === 'filename' && !request.descending) {
    const files = (await ctx.records.listFiles({ projectId: project.id })).map(view);
    const totalSizeBytes = files.reduce((sum, file) => sum + file.sizeBytes, 0);
    return { files, totalCount: files.length, totalSizeBytes };
  }

  const binding = fileListBinding(input.principal.accountId, project.id, request);
  let start: FileListPosition | undefined;
  if (request.cursor !== undefined)
    start = await decodeFilePosition(request.cursor, binding, ctx.cursorKey, request.sort);
  const want = request.paged ? (request.limit ?? LIST_LIMITS.defaultLimit) : undefined;
  const { entries, more } = await readFileLevels(
    ctx.records,
    { ...request, projectId: project.id, start, want },
    ranges,
  );
  const counts =
    request.narrowed || scoped
      ? await countInRanges(ctx.records, project.id, request.prefix, request.delimiter, ranges)
      : { files: project.fileCount, sizeBytes: project.totalSizeBytes, folders: 0 };
  const last = entries.at(-1);
  const nextCursor =
    more && last !== undefined
      ? await encodeFilePosition(positionOf(last, request.sort), binding, ctx.cursorKey)
      : null;
  return {
    files: entries.flatMap((entry) => (entry.kind === 'file' ? [view(entry.file)] : [])),
    totalCount: counts.files + counts.folders,
    totalSizeBytes: counts.sizeBytes,
    ...(request.delimiter && {
      folders: entries.flatMap((entry) => (entry.kind === 'folder' ? [entry.name] : [])),
    }),
    ...((request.paged || request.narrowed) && { nextCursor }),
  };
}

/**
 * The counts of a list under `prefix` over disjoint `ranges` inside it (one range equal to `prefix` for
 * a key without folders). With a delimiter, a range deeper than the level shows as the one folder it
 * lies in, when it holds any file.
 */
async function countInRanges(
  records: RecordsReader,
  projectId: string,
  prefix: string,
  delimiter: boolean,
  ranges: readonly string[],
): Promise<FileCounts> {
  const folders = new Set<string>();
  let files = 0;
  let sizeBytes = 0;
  let levelFolders = 0;
  for (const range of ranges) {
    if (delimiter && range !== prefix) {
      const folder = range.slice(0, range.indexOf('/', prefix.length) + 1);
      if (
        !folders.has(folder) &&
        (await records.countFiles({ projectId, prefix: range, delimiter: false })).files > 0
      )
        folders.add(folder);
      continue;
    }
    const counts = await records.countFiles({ projectId, prefix: range, delimiter });
    files += counts.files;
    sizeBytes += counts.sizeBytes;
    levelFolders += counts.folders;
  }
  return { files, sizeBytes, folders: levelFolders + folders.size };
}
