import { RevisionNotFoundError } from '../../errors.js';
import type { FileRecord } from '../../model/records.js';
import type { RestoreRequestInput } from '../../validation/bodies.js';
import { parseRestoreBody } from '../../validation/history.js';
import { loadOwnedProject } from '../access.js';
import type { Principal } from '../authentication.js';
import { removeDoomed } from '../blob-intents.js';
import { type MdStoreContext, notBefore } from '../context.js';
import { type BodyOf, deferred } from '../deferred-body.js';
import { indexFileWrite, storedContentLinks } from '../links/index-step.js';
import { contentSearchFields } from '../search/content-fields.js';
import { type FileView, toFileView } from '../views.js';
import { checkWriteConditions, conditionsOf, type RequestConditions } from './conditions.js';
import { recordRevision } from './revisions.js';
import { findFileOr404, lockActiveProject, withCounterChange } from './shared.js';

export interface RestoreRevisionInput {
  readonly principal: Principal;
  readonly projectId: string;
  readonly filename: string;
  /** `{"revision": n}`, or (HTTP) the deferred request body. */
  readonly body: BodyOf<RestoreRequestInput>;
  readonly conditions?: RequestConditions;
}

/**
 * Restore (extensions §5): the content and metadata of a kept revision become a new revision
 * (`change: "restore"`). No content is copied: the new revision points at the restored revision's
 * content version, which stays referenced by both (the history counts each version once). One
 * transaction, under the project lock, checks the preconditions and that the revision is still kept,
 * so a concurrent write cannot prune it in between.
 */
export async function restoreRevision(ctx: MdStoreContext, input: RestoreRevisionInput): Promise<FileView> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId, input.filename);
  const existing = await findFileOr404(ctx.records, project.id, input.filename);
  const conditions = conditionsOf(input.conditions);
  const body = deferred<unknown>(input.body);
  body.check();
  checkWriteConditions(project, existing, conditions);
  const { revision } = parseRestoreBody(await body.read());
  // The restored version's text, read before the transaction (no blob I/O inside it): a content key
  // never changes what it holds, and the transaction checks the revision is still kept.
  const kept = await ctx.records.findRevision({ fileId: existing.id, revision });
  const search = kept ? await contentSearchFields(ctx, project, kept) : null;
  const links = kept ? await storedContentLinks(ctx, project, kept, input.filename) : null;
  const { view, doomed } = await ctx.records.withTransaction(async (tx) => {
    const locked = await lockActiveProject(tx, input.principal, project.id);
    const current = await findFileOr404(tx, locked.id, input.filename);
    checkWriteConditions(locked, current, conditions);
    const restored = await tx.findRevision({ fileId: current.id, revision });
    if (!restored) throw new RevisionNotFoundError();
    const before = await tx.listRevisionContents({ fileId: current.id });
    const at = notBefore(ctx.clock.now(), notBefore(current.updatedAt, locked.updatedAt));
    const updated: FileRecord = {
      ...current,
      contentKey: restored.contentKey,
      inline: restored.inline,
      sizeBytes: restored.sizeBytes,
      sha256: restored.sha256,
      metadataJson: restored.metadataJson,
      frontmatterJson: search?.contentKey === restored.contentKey ? search.frontmatterJson : null,
      revision: current.revision + 1,
      updatedAt: at,
    };
    await tx.updateFile({ file: updated });
    const known = search?.contentKey === restored.contentKey;
    await indexFileWrite(ctx, tx, {
      file: updated,
      contentText: known ? search.searchText : '',
      links: known && links ? links : { links: [], slugs: [], headings: [] },
    });
    const recorded = await recordRevision(ctx, tx, {
      project: locked,
      file: updated,
      change: 'restore',
      before,
      author: input.principal.keyId,
    });
    const change = { bytes: updated.sizeBytes - current.sizeBytes, historyBytes: recorded.historyDelta };
    await tx.updateProject({ project: withCounterChange(ctx, locked, change, at) });
    return { view: toFileView(updated, locked, ctx.blobs.scheme), doomed: recorded.doomed };
  });
  for (const intent of doomed) await removeDoomed(ctx, intent);
  return view;
}
