import type { ChangeEventInput, ChangeEventType } from '../../model/changes.js';
import { fileEtag } from '../../model/etags.js';
import type { FileRecord, ProjectRecord, RevisionChange } from '../../model/records.js';
import type { RecordsTransaction } from '../../ports/records.js';
import type { MdStoreContext } from '../context.js';

/**
 * The change feed's writers (extensions §7): each write kind's transaction hands its one event to the
 * store here, so that an acknowledged write always has its event and a rolled-back one never has. A
 * changeset (§9) that reuses the per-file steps passes its id through `changesetId`.
 */

/** What a per-file step may say about the event beyond what its revision tells. */
export interface FileEventOptions {
  /** Overrides the type the revision's change implies (a trash restore is `file.restored`). */
  readonly type?: ChangeEventType;
  /** The old name of a moved file. */
  readonly from?: string;
  readonly changesetId?: string | null;
}

/** The event type a new revision of each kind of change stands for. */
const TYPE_OF_CHANGE: Readonly<Record<RevisionChange, ChangeEventType>> = {
  created: 'file.created',
  copy: 'file.created',
  content: 'file.updated',
  metadata: 'file.updated',
  edit: 'file.updated',
  restore: 'file.updated',
  move: 'file.moved',
};

export const fileEventType = (change: RevisionChange, options?: FileEventOptions): ChangeEventType =>
  options?.type ?? TYPE_OF_CHANGE[change];

/** The event of a file as it is after the change (`file` null: it is gone). */
export async function emitFileEvent(
  ctx: MdStoreContext,
  tx: RecordsTransaction,
  o: {
    project: ProjectRecord;
    type: ChangeEventType;
    filename: string;
    file: FileRecord | null;
    from?: string | null;
    changesetId?: string | null;
  },
): Promise<void> {
  const { file } = o;
  const event: ChangeEventInput = {
    accountId: o.project.accountId,
    type: o.type,
    projectId: o.project.id,
    filename: o.filename,
    from: o.from ?? null,
    revision: file?.revision ?? null,
    etag: file ? fileEtag(file) : null,
    sizeBytes: file?.sizeBytes ?? null,
    sha256: file?.sha256 ?? null,
    changesetId: o.changesetId ?? null,
    at: ctx.clock.now(),
  };
  await tx.appendChangeEvents({ events: [event] });
}

/** `project.created`, `project.updated` or `project.deleted` (one, never an event per file). */
export async function emitProjectEvent(
  ctx: MdStoreContext,
  tx: RecordsTransaction,
  o: { project: ProjectRecord; type: 'project.created' | 'project.updated' | 'project.deleted' },
): Promise<void> {
  await tx.appendChangeEvents({
    events: [
      {
        accountId: o.project.accountId,
        type: o.type,
        projectId: o.project.id,
        filename: null,
        from: null,
        revision: null,
        etag: null,
        sizeBytes: null,
        sha256: null,
        changesetId: null,
        at: ctx.clock.now(),
      },
    ],
  });
}
