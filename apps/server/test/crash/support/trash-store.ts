import type { ProjectModel } from './model.js';
import type { StoreSnapshot } from './store-inspection.js';

type Check = (ok: boolean, message: () => string) => boolean;

/** The file trash items of a project shaped as file records (id = the file's id), for the revision checks. */
export const liveTrashFiles = (store: StoreSnapshot, projectId: string): StoreSnapshot['files'][number][] =>
  store.trash
    .filter((item) => item.projectId === projectId && item.kind === 'file')
    .map((item) => ({
      id: item.fileId,
      projectId: item.projectId,
      filename: item.filename,
      sizeBytes: item.sizeBytes,
      sha256: item.sha256,
      contentKey: item.contentKey,
      inline: item.inline,
      revision: item.revision,
      metadataJson: null,
    }));

/**
 * The trash as stored (extensions §5): `trash_size_bytes` is what its items hold (content plus earlier
 * contents, each once; a deleted attachment's item its size, extensions §12), as many file items as the
 * client knows of, and none past its `expires_date` (the start-up reconciliation purged them before the
 * server listened). Attachments' items are checked with the attachments (attachments.ts).
 */
export function checkTrashRecords(
  check: Check,
  store: StoreSnapshot,
  project: StoreSnapshot['projects'][number],
  model: ProjectModel,
): void {
  const items = store.trash.filter((item) => item.projectId === project.id);
  let held = 0;
  for (const item of items) {
    const keys = new Map<string, number>();
    for (const revision of store.revisions) {
      if (revision.fileId === item.fileId && revision.contentKey !== item.contentKey)
        keys.set(revision.contentKey, revision.sizeBytes);
    }
    held += item.sizeBytes + [...keys.values()].reduce((sum, size) => sum + size, 0);
    check(
      item.expiresAt > Date.now(),
      () => `expired trash item ${item.id} survived start-up reconciliation`,
    );
  }
  check(
    project.trashSizeBytes === held,
    () => `project ${project.id} trash_size_bytes ${project.trashSizeBytes}, its trash holds ${held}`,
  );
  const files = items.filter((item) => item.kind === 'file');
  check(
    files.length === (model.trash?.length ?? 0),
    () => `project ${project.id} has ${files.length} file trash items, ${model.trash?.length ?? 0} known`,
  );
}
