import { loadOwnedProject } from '../access.js';
import type { Principal } from '../authentication.js';
import type { MdStoreContext } from '../context.js';
import { type FileView, toFileView } from '../views.js';

export interface FileList {
  readonly files: FileView[];
  readonly totalCount: number;
  readonly totalSizeBytes: number;
}

/** Every file of the project, by filename in code-point order. */
export async function listFiles(
  ctx: MdStoreContext,
  input: { principal: Principal; projectId: string },
): Promise<FileList> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const files = (await ctx.records.listFiles({ projectId: project.id })).map((file) =>
    toFileView(file, project, ctx.blobs.scheme),
  );
  const totalSizeBytes = files.reduce((sum, file) => sum + file.sizeBytes, 0);
  return { files, totalCount: files.length, totalSizeBytes };
}
