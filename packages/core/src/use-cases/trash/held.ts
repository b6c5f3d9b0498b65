import type { FileRecord, TrashRecord } from '../../model/records.js';
import type { RevisionContent } from '../../ports/records.js';
import type { MdStoreContext } from '../context.js';
import { historyBytes } from '../files/revisions.js';

/**
 * Bytes a file holds with its kept revisions: its current content plus every earlier content version
 * (each counted once). Moves between `totalSizeBytes` + `historySizeBytes` and `trashSizeBytes` when the
 * file goes into or comes out of the trash.
 */
export const heldBytes = (
  file: Pick<FileRecord, 'sizeBytes' | 'contentKey'>,
  revisions: readonly RevisionContent[],
) => file.sizeBytes + historyBytes(revisions, file.contentKey);

/** An item is gone for callers from its `expiresAt` on, purged or not. */
export const isLive = (
  item: TrashRecord | null,
  ctx: Pick<MdStoreContext, 'clock'>,
  at = ctx.clock.now(),
): item is TrashRecord => item !== null && item.expiresAt > at;
