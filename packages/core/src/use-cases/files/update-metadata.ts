import type { FileRecord } from '../../model/records.js';
import type { MetadataUpdateInput } from '../../validation/bodies.js';
import { parseMetadataUpdateBody } from '../../validation/schemas.js';
import { loadOwnedProject } from '../access.js';
import type { Principal } from '../authentication.js';
import { removeDoomed } from '../blob-intents.js';
import { type MdStoreContext, notBefore } from '../context.js';
import { type BodyOf, deferred } from '../deferred-body.js';
import { type FileView, toFileView } from '../views.js';
import { checkWriteConditions, conditionsOf, type RequestConditions } from './conditions.js';
import { recordRevision } from './revisions.js';
import { findFileOr404, lockActiveProject, withCounterChange } from './shared.js';

export interface UpdateFileMetadataInput {
  readonly principal: Principal;
  readonly projectId: string;
  readonly filename: string;
  /** The parsed JSON body, or (HTTP) a deferred one. */
  readonly body: BodyOf<MetadataUpdateInput>;
  readonly conditions?: RequestConditions;
}

/**
 * Replaces the whole metadata object (null clears it) as a new revision sharing the current content.
 * The project's fields are untouched (the interface says so), but for the bytes pruning may free.
 */
export async function updateFileMetadata(
  ctx: MdStoreContext,
  input: UpdateFileMetadataInput,
): Promise<FileView> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId, input.filename);
  const existing = await findFileOr404(ctx.records, project.id, input.filename);
  const conditions = conditionsOf(input.conditions);
  const body = deferred<unknown>(input.body);
  body.check();
  checkWriteConditions(project, existing, conditions);
  const metadata = parseMetadataUpdateBody(await body.read());
  const { view, doomed } = await ctx.records.withTransaction(async (tx) => {
    const locked = await lockActiveProject(tx, input.principal, project.id);
    const current = await findFileOr404(tx, locked.id, input.filename);
    checkWriteConditions(locked, current, conditions);
    const before = await tx.listRevisionContents({ fileId: current.id });
    const at = notBefore(ctx.clock.now(), current.updatedAt);
    const updated: FileRecord = {
      ...current,
      metadataJson: metadata === null ? null : JSON.stringify(metadata),
      revision: current.revision + 1,
      updatedAt: at,
    };
    await tx.updateFile({ file: updated });
    await tx.indexFile({ file: updated, contentText: null });
    const recorded = await recordRevision(ctx, tx, {
      project: locked,
      file: updated,
      change: 'metadata',
      before,
      author: input.principal.keyId,
    });
    if (recorded.historyDelta !== 0) {
      const change = { historyBytes: recorded.historyDelta };
      await tx.updateProject({ project: withCounterChange(ctx, locked, change, at, { touch: false }) });
    }
    return { view: toFileView(updated, locked, ctx.blobs.scheme), doomed: recorded.doomed };
  });
  for (const intent of doomed) await removeDoomed(ctx, intent);
  return view;
}
