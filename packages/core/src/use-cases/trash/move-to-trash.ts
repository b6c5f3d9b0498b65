import { DAY_MS } from '../../defaults/trash.js';
import type { FileRecord, ProjectRecord } from '../../model/records.js';
import type { RecordsTransaction, RevisionContent } from '../../ports/records.js';
import type { MdStoreContext } from '../context.js';
import { historyBytes } from '../files/revisions.js';
import type { CounterChange } from '../files/shared.js';

/**
 * Inside the delete's commit transaction (the file record already removed): the file goes into the
 * trash with its revisions and inline contents left in place, its name free again. `expiresAt` is fixed
 * now, from the retention the project has now; changing the setting later does not move it. Nothing
 * leaves the blob store. Returns how the counters move: the file's bytes go from current and history to
 * trash.
 */
export async function moveToTrash(
  ctx: MdStoreContext,
  tx: RecordsTransaction,
  o: { project: ProjectRecord; file: FileRecord; revisions: readonly RevisionContent[]; at: number },
): Promise<CounterChange> {
  const { file, project, at } = o;
  await tx.insertTrashItem({
    item: {
      id: ctx.ids.uuid(),
      projectId: project.id,
      file,
      deletedAt: at,
      expiresAt: at + project.trashRetentionDays * DAY_MS,
    },
  });
  const history = historyBytes(o.revisions, file.contentKey);
  return { files: -1, bytes: -file.sizeBytes, historyBytes: -history, trashBytes: file.sizeBytes + history };
}
