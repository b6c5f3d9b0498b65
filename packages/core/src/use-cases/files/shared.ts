import { FileNotFoundError, StorageLimitReachedError } from '../../errors.js';
import type { FileRecord, ProjectRecord } from '../../model/records.js';
import type { RecordsReader, RecordsTransaction } from '../../ports/records.js';
import { assertOwnedActive } from '../access.js';
import type { Principal } from '../authentication.js';
import { type MdStoreContext, notBefore } from '../context.js';

export async function findFileOr404(
  records: Pick<RecordsReader, 'findFile'>,
  projectId: string,
  filename: string,
): Promise<FileRecord> {
  const file = await records.findFile({ projectId, filename });
  if (!file) throw new FileNotFoundError(filename);
  return file;
}

/** Locks the project for a file write; it must still be active and owned. */
export async function lockActiveProject(
  tx: RecordsTransaction,
  principal: Principal,
  projectId: string,
): Promise<ProjectRecord> {
  return assertOwnedActive(await tx.lockProject({ projectId }), principal, projectId);
}

/** A new, never reused key for one content version of a file. */
export const newContentKey = (ctx: MdStoreContext, fileId: string): string => `${fileId}/${ctx.ids.uuid()}`;

/** How a write moves the project's counters. */
export interface CounterChange {
  readonly files?: number;
  readonly bytes?: number;
  readonly historyBytes?: number;
  readonly trashBytes?: number;
  /** Attachments (extensions §12): their count and bytes. */
  readonly attachments?: number;
  readonly attachmentBytes?: number;
}

/**
 * The project after a file write: counters moved by the change and `updatedAt` never backwards (or left
 * alone with `touch: false`, for the writes the interface says leave the project untouched). A write
 * that makes the project hold more than `maxProjectBytes` in all is refused; writes that free room pass.
 */
export function withCounterChange(
  ctx: MdStoreContext,
  project: ProjectRecord,
  change: CounterChange,
  at: number,
  o: { touch: boolean } = { touch: true },
): ProjectRecord {
  const next: ProjectRecord = {
    ...project,
    fileCount: project.fileCount + (change.files ?? 0),
    totalSizeBytes: project.totalSizeBytes + (change.bytes ?? 0),
    historySizeBytes: project.historySizeBytes + (change.historyBytes ?? 0),
    trashSizeBytes: project.trashSizeBytes + (change.trashBytes ?? 0),
    attachmentCount: project.attachmentCount + (change.attachments ?? 0),
    attachmentBytes: project.attachmentBytes + (change.attachmentBytes ?? 0),
    updatedAt: o.touch ? notBefore(at, project.updatedAt) : project.updatedAt,
  };
  // Attachments count towards the bound (extensions §12).
  const held = (p: ProjectRecord) =>
    p.totalSizeBytes + p.historySizeBytes + p.trashSizeBytes + p.attachmentBytes;
  if (held(next) > ctx.settings.maxProjectBytes && held(next) > held(project)) {
    throw new StorageLimitReachedError();
  }
  return next;
}
