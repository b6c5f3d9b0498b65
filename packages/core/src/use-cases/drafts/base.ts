import { fileEtag } from '../../model/etags.js';
import type { DraftFileRecord, FileRecord, ProjectRecord } from '../../model/records.js';
import type { ContentHold } from '../content-budget.js';
import type { MdStoreContext } from '../context.js';
import { readText } from '../files/parts.js';
import { fileAtRevision } from '../files/revision-reads.js';

/**
 * The base of a draft's file (extensions §13): the file as it was when the draft first touched it, the
 * revision whose ETag the draft recorded, read from history. A file the draft creates has an empty
 * base. `null` when that revision is no longer known: pruned from history, or the file since deleted
 * (and perhaps created again under a new id); the caller then takes the empty text as base, so that
 * every difference is a conflict (never a silent overwrite).
 */
export interface DraftBase {
  readonly text: string;
  readonly metadataJson: string | null;
}

const ETAG = /^"([0-9a-f]{8})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{4})([0-9a-f]{12})-(\d+)"$/;

export async function draftBase(
  ctx: MdStoreContext,
  o: {
    project: ProjectRecord;
    row: DraftFileRecord;
    live: FileRecord | null;
    liveText?: string;
    signal?: AbortSignal;
    hold?: ContentHold;
  },
): Promise<DraftBase | null> {
  const { row, live } = o;
  if (row.baseEtag === null) return { text: '', metadataJson: null };
  if (live && fileEtag(live) === row.baseEtag) {
    const text = o.liveText ?? (await readText(ctx, o.project, live, o.signal, o.hold));
    return text === null ? null : { text, metadataJson: live.metadataJson };
  }
  const match = ETAG.exec(row.baseEtag);
  if (!match || !live) return null;
  const fileId = match.slice(1, 6).join('-');
  if (fileId !== live.id) return null;
  const revision = await ctx.records.findRevision({ fileId, revision: Number(match[6]) });
  if (!revision) return null;
  const text = await readText(ctx, o.project, fileAtRevision(live, revision), o.signal, o.hold);
  return text === null ? null : { text, metadataJson: revision.metadataJson };
}
