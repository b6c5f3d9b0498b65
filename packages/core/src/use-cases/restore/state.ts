import { mdStoreError } from '../../errors.js';
import type { FileRecord, ProjectRecord, RevisionRecord } from '../../model/records.js';
import { RESTORE_LIMITS } from '../../validation/restore.js';
import type { MdStoreContext } from '../context.js';
import { isAttachmentItem } from '../trash/attachments.js';

/**
 * What a file was at a time (extensions §16), from its kept revisions: the revision current then and the
 * name it had, or that it did not exist yet, or that its history no longer reaches that far.
 */
export type StateAsOf =
  | { readonly kind: 'present'; readonly revision: RevisionRecord; readonly filename: string }
  | { readonly kind: 'absent' }
  | { readonly kind: 'unrecoverable' };

/** Revision rows read per page while walking a file's history back. */
const REVISION_PAGE = 100;

/** Counts the revision rows a restore reads, all files together, and refuses past the bound. */
export class RevisionBudget {
  #read = 0;
  take(rows: number): void {
    this.#read += rows;
    if (this.#read > RESTORE_LIMITS.maxRevisionsRead) {
      throw mdStoreError('RESTORE_TOO_LARGE', { what: 'revisions', max: RESTORE_LIMITS.maxRevisionsRead });
    }
  }
}

/**
 * The file (a current one, or a trashed one's record) as it was at `asOf`: created after it, absent; else
 * the newest kept revision written at or before it, under the name that revision records. A revision
 * written before the stores recorded names (migration 15) takes the name of the nearest later revision
 * that has one, or the file's name now. No kept revision that old: unrecoverable (pruned by
 * `keep_revisions`).
 */
export async function stateAsOf(
  ctx: MdStoreContext,
  file: FileRecord,
  asOf: number,
  budget: RevisionBudget,
): Promise<StateAsOf> {
  if (file.createdAt > asOf) return { kind: 'absent' };
  let name = file.filename;
  let beforeRevision: number | undefined;
  for (;;) {
    const page = await ctx.records.listRevisions({
      fileId: file.id,
      limit: REVISION_PAGE,
      ...(beforeRevision !== undefined && { beforeRevision }),
    });
    budget.take(page.length);
    for (const revision of page) {
      if (revision.filename !== null) name = revision.filename;
      if (revision.createdAt <= asOf) return { kind: 'present', revision, filename: name };
    }
    if (page.length < REVISION_PAGE) return { kind: 'unrecoverable' };
    beforeRevision = page[page.length - 1]!.revision;
  }
}

/** The file trash items that may matter at `asOf`: those deleted after it (newest deletion first). */
export async function* trashDeletedAfter(
  ctx: MdStoreContext,
  project: ProjectRecord,
  asOf: number,
  now: number,
) {
  let after: { deletedAt: number; id: string } | undefined;
  for (;;) {
    const page = await ctx.records.listTrash({
      projectId: project.id,
      now,
      limit: REVISION_PAGE,
      ...(after && { after }),
    });
    for (const item of page) {
      if (item.deletedAt <= asOf) return;
      // A project as it was is its files' (extensions §16): deleted attachments stay in the trash.
      if (isAttachmentItem(item)) continue;
      yield item;
    }
    if (page.length < REVISION_PAGE) return;
    const last = page[page.length - 1]!;
    after = { deletedAt: last.deletedAt, id: last.id };
  }
}
