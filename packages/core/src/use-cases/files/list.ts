import {
  decodeFilePosition,
  encodeFilePosition,
  type FileListPosition,
  fileListBinding,
} from '../../listing/cursors.js';
import { LIST_LIMITS } from '../../listing/limits.js';
import { type FileListParams, parseFileListParams } from '../../listing/query.js';
import { positionOf, readFileLevel } from '../../listing/walk.js';
import { loadOwnedProject } from '../access.js';
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
 */
export async function listFiles(
  ctx: MdStoreContext,
  input: { principal: Principal; projectId: string; params?: FileListParams },
): Promise<FileList> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const request = parseFileListParams(input.params);
  const view = (file: Parameters<typeof toFileView>[0]) => toFileView(file, project, ctx.blobs.scheme);
  if (!request.paged && !request.narrowed && request.sort === 'filename' && !request.descending) {
    const files = (await ctx.records.listFiles({ projectId: project.id })).map(view);
    const totalSizeBytes = files.reduce((sum, file) => sum + file.sizeBytes, 0);
    return { files, totalCount: files.length, totalSizeBytes };
  }

  const binding = fileListBinding(input.principal.accountId, project.id, request);
  let start: FileListPosition | undefined;
  if (request.cursor !== undefined)
    start = await decodeFilePosition(request.cursor, binding, ctx.cursorKey, request.sort);
  const want = request.paged ? (request.limit ?? LIST_LIMITS.defaultLimit) : undefined;
  const { entries, more } = await readFileLevel(ctx.records, {
    ...request,
    projectId: project.id,
    start,
    want,
  });
  const counts = request.narrowed
    ? await ctx.records.countFiles({
        projectId: project.id,
        prefix: request.prefix,
        delimiter: request.delimiter,
      })
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
