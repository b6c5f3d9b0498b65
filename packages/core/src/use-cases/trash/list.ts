import { decodeTrashPosition, encodeTrashPosition, trashListBinding } from '../../listing/cursors.js';
import { LIST_LIMITS } from '../../listing/limits.js';
import { parseListParams } from '../../listing/query.js';
import type { TrashRecord } from '../../model/records.js';
import { loadOwnedProject } from '../access.js';
import type { Principal } from '../authentication.js';
import type { MdStoreContext } from '../context.js';

/** A trash item as the interface shows it. */
export interface TrashItemView {
  readonly trashId: string;
  readonly filename: string;
  readonly sizeBytes: number;
  readonly revision: number;
  readonly deletedAt: number;
  readonly expiresAt: number;
  /** A file's item, or a deleted attachment's (extensions §12). */
  readonly kind: 'file' | 'attachment';
  /** An attachment's: its path (also in `filename`) and content type. */
  readonly path?: string;
  readonly contentType?: string;
}

export interface TrashPage {
  readonly trash: TrashItemView[];
  /** Unexpired items of the whole trash, not just the page. */
  readonly totalCount: number;
  readonly nextCursor: string | null;
}

export const toTrashItemView = (item: TrashRecord): TrashItemView => ({
  trashId: item.id,
  filename: item.file.filename,
  sizeBytes: item.file.sizeBytes,
  revision: item.file.revision,
  deletedAt: item.deletedAt,
  expiresAt: item.expiresAt,
  kind: item.attachment ? 'attachment' : 'file',
  ...(item.attachment && { path: item.file.filename, contentType: item.attachment.contentType }),
});

/**
 * One page of the project's trash, newest deletion first (ties by trash id), expired items left out even
 * before the reconciler has purged them. `limit` and `cursor` as for the lists of extensions §3 (a page
 * of 100 by default; the cursor signed and bound to the account and the project). Keyset: a page starts
 * after the cursor's item, so items deleted during a walk never shift the items already seen.
 */
export async function listTrash(
  ctx: MdStoreContext,
  input: { principal: Principal; projectId: string; limit?: string | number; cursor?: string },
): Promise<TrashPage> {
  const request = parseListParams({ limit: input.limit, cursor: input.cursor });
  const limit = request.limit ?? LIST_LIMITS.defaultLimit;
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const binding = trashListBinding(input.principal.accountId, project.id);
  const after =
    request.cursor === undefined
      ? undefined
      : await decodeTrashPosition(request.cursor, binding, ctx.cursorKey);
  const now = ctx.clock.now();
  // One item more than the page tells whether there is a next page.
  const items = await ctx.records.listTrash({ projectId: project.id, now, limit: limit + 1, after });
  const page = items.slice(0, limit);
  const last = page.at(-1);
  return {
    trash: page.map(toTrashItemView),
    totalCount: await ctx.records.countTrash({ projectId: project.id, now }),
    nextCursor: items.length > limit && last ? await encodeTrashPosition(last, binding, ctx.cursorKey) : null,
  };
}
