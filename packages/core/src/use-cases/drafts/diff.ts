import { DRAFT_LIMITS } from '../../defaults/drafts.js';
import { unifiedDiff } from '../../markdown/diff.js';
import { fileEtag } from '../../model/etags.js';
import type { DraftFileRecord } from '../../model/records.js';
import { decodeCursor, encodeCursor } from '../../search/cursor.js';
import { invalidAt } from '../../search/issues.js';
import { parsePageLimit } from '../../validation/history.js';
import { loadOwnedProject } from '../access.js';
import type { Principal } from '../authentication.js';
import { withContentHold } from '../content-budget.js';
import type { MdStoreContext } from '../context.js';
import { draftBase } from './base.js';
import { loadDraft } from './shared.js';

/** One file of a draft's diff (extensions §13). */
export interface DraftFileDiff {
  readonly filename: string;
  readonly op: DraftFileRecord['op'];
  readonly to: string | null;
  readonly baseEtag: string | null;
  /** The file's ETag now (null: it does not exist). */
  readonly currentEtag: string | null;
  /** The file changed since the draft's base: publishing merges it (or refuses on overlap). */
  readonly stale: boolean;
  /**
   * Unified diff (3 lines of context) from the base to the draft's text (`--- a/…`, `+++ b/…`); `''` for a
   * move or no change; null when it would pass `unifiedDiff`'s work bound (`diffTooLarge`).
   */
  readonly diff: string | null;
  readonly diffTooLarge: boolean;
  /** The base revision is no longer kept: the diff is from an empty text. */
  readonly baseMissing: boolean;
}

export interface DraftDiffPage {
  readonly files: readonly DraftFileDiff[];
  readonly nextCursor: string | null;
}

const CURSOR_LOC = ['query', 'cursor'] as const;

/**
 * `GET …/drafts/{id}/diff` (`limit`, `cursor`): a page of the draft's files in the order first touched,
 * each with its diff from its base and whether it is stale. Bounded: at most `diffPageMax` files, the
 * texts read under the process's content budget, each diff under `unifiedDiff`'s bound.
 */
export async function diffDraft(
  ctx: MdStoreContext,
  input: {
    principal: Principal;
    projectId: string;
    draftId: string;
    limit?: string;
    cursor?: string;
    signal?: AbortSignal;
  },
): Promise<DraftDiffPage> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const draft = await loadDraft(ctx.records, project, input.draftId);
  const limit = parsePageLimit(input.limit, {
    fallback: DRAFT_LIMITS.diffPageDefault,
    max: DRAFT_LIMITS.diffPageMax,
  });
  const binding = { list: 'draft-diff', account: input.principal.accountId, draft: draft.id };
  let afterSeq: number | undefined;
  if (input.cursor !== undefined) {
    const payload = (await decodeCursor(input.cursor, binding, ctx.cursorKey, CURSOR_LOC)) as {
      q?: unknown;
    } | null;
    if (typeof payload?.q !== 'number' || !Number.isSafeInteger(payload.q))
      throw invalidAt(CURSOR_LOC, 'cursor');
    afterSeq = payload.q;
  }
  const rows = await ctx.records.listDraftFiles({ draftId: draft.id, afterSeq, limit: limit + 1 });
  const page = rows.slice(0, limit);
  const found = await ctx.records.findFiles({
    projectId: project.id,
    filenames: page.map((row) => row.filename),
  });
  const live = new Map(found.map((file) => [file.filename, file]));
  const files = await withContentHold(ctx.contentBudget, input.signal, async (hold) => {
    const out: DraftFileDiff[] = [];
    for (const row of page) {
      const file = live.get(row.filename) ?? null;
      const currentEtag = file ? fileEtag(file) : null;
      const base =
        row.op === 'move'
          ? null
          : await draftBase(ctx, { project, row, live: file, signal: input.signal, hold });
      const baseText = base?.text ?? '';
      const names = { oldName: `a/${row.filename}`, newName: `b/${row.to ?? row.filename}` };
      const diff = row.op === 'move' ? '' : unifiedDiff(baseText, row.content ?? '', names);
      out.push({
        filename: row.filename,
        op: row.op,
        to: row.to,
        baseEtag: row.baseEtag,
        currentEtag,
        stale: currentEtag !== row.baseEtag,
        diff,
        diffTooLarge: diff === null,
        baseMissing: row.op !== 'move' && base === null,
      });
    }
    return out;
  });
  const last = page.at(-1);
  const nextCursor =
    rows.length > limit && last ? await encodeCursor({ q: last.seq }, binding, ctx.cursorKey) : null;
  return { files, nextCursor };
}
