import { DiffTooLargeError } from '../../errors.js';
import { unifiedDiff } from '../../markdown/diff.js';
import { parseRevisionParam } from '../../validation/history.js';
import { loadOwnedProject } from '../access.js';
import type { Principal } from '../authentication.js';
import { withContentHold } from '../content-budget.js';
import type { MdStoreContext } from '../context.js';
import { revisionText } from './revision-reads.js';
import { findFileOr404 } from './shared.js';

export interface DiffRevisionsInput {
  readonly principal: Principal;
  readonly projectId: string;
  readonly filename: string;
  /** The query values as sent: `from` required, `to` the current revision when absent. */
  readonly from?: string;
  readonly to?: string;
  readonly signal?: AbortSignal;
}

/**
 * A unified diff (3 lines of context) from revision `from` to revision `to` of a file, headed
 * `--- a/<filename>` / `+++ b/<filename>`; `''` when the contents are equal. `DIFF_TOO_LARGE` when it
 * would take more than 10⁷ line comparisons (the bound of `unifiedDiff`).
 */
export async function diffRevisions(ctx: MdStoreContext, input: DiffRevisionsInput): Promise<string> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId, input.filename);
  const from = parseRevisionParam(input.from, ['query', 'from']);
  const given = input.to === undefined ? undefined : parseRevisionParam(input.to, ['query', 'to']);
  const to = given ?? (await findFileOr404(ctx.records, project.id, input.filename)).revision;
  return withContentHold(ctx.contentBudget, input.signal, async (hold) => {
    const older = await revisionText(ctx, project, input.filename, from, input.signal, hold);
    const newer = await revisionText(ctx, project, input.filename, to, input.signal, hold);
    const { filename } = older.file;
    const names = { oldName: `a/${filename}`, newName: `b/${filename}` };
    const diff = unifiedDiff(older.text, newer.text, names);
    if (diff === null) throw new DiffTooLargeError();
    return diff;
  });
}
