import { FileNotFoundError, FilenameTakenError, isMdStoreError, isRecordConflict } from '../../errors.js';
import type { FileRecord, ProjectRecord } from '../../model/records.js';
import type { ByteStream } from '../../ports/blobs.js';
import type { CopyRequestInput } from '../../validation/bodies.js';
import { parseCopyBody } from '../../validation/history.js';
import { assertPathInScope, loadOwnedProject } from '../access.js';
import type { Principal } from '../authentication.js';
import { type MdStoreContext, notBefore } from '../context.js';
import { type BodyOf, deferred } from '../deferred-body.js';
import { indexFileWrite } from '../links/index-step.js';
import { type FileView, toFileView } from '../views.js';
import { checkWriteConditions, conditionsOf, type RequestConditions } from './conditions.js';
import { storeContent } from './content.js';
import { openContent } from './download.js';
import { recordRevision } from './revisions.js';
import { findFileOr404, lockActiveProject, withCounterChange } from './shared.js';

export interface CopyFileInput {
  readonly principal: Principal;
  readonly projectId: string;
  readonly filename: string;
  /** `{"to": "…", "project_id"?: "…"}`, or (HTTP) the deferred request body. */
  readonly body: BodyOf<CopyRequestInput>;
  /** Judged against the source file (`If-Match`: copy only this version); never required (no 428). */
  readonly conditions?: RequestConditions;
  readonly signal?: AbortSignal;
}

/**
 * Attempts when the source version is pruned by a concurrent write while it is being copied; then the
 * file is reported as not found (it keeps changing faster than it can be read).
 */
const COPY_ATTEMPTS = 3;

/**
 * Copy (extensions §5): a new file (revision 1, `change: "copy"`) with the source's content and
 * metadata, in this project or another active project of the caller's account.
 *
 * The content is copied, never shared: it is streamed from the source version into a new version of
 * the new file through the ordinary write path (`storeContent`: inline in the commit transaction, or a
 * new blob under the staged note). Each content version thus belongs to exactly one file, as pruning,
 * deletion, reconciliation and the history counters already assume, and a crash at any point leaves
 * either the whole copy or nothing (an abandoned staged blob is removed by reconciliation). The copy
 * counts in the destination's counters and storage cap like an upload.
 */
export async function copyFile(ctx: MdStoreContext, input: CopyFileInput): Promise<FileView> {
  const source = await loadOwnedProject(ctx.records, input.principal, input.projectId, input.filename);
  const existing = await findFileOr404(ctx.records, source.id, input.filename);
  const conditions = conditionsOf(input.conditions);
  const body = deferred<unknown>(input.body);
  body.check();
  checkWriteConditions(source, existing, conditions, { requireIfMatch: false });
  const { to, projectId } = parseCopyBody(await body.read());
  const target =
    projectId === null || projectId === source.id
      ? source
      : await loadOwnedProject(ctx.records, input.principal, projectId);
  assertPathInScope(input.principal, to);
  if (await ctx.records.findFile({ projectId: target.id, filename: to })) throw new FilenameTakenError(to);
  for (let attempt = 1; ; attempt++) {
    const file = await findFileOr404(ctx.records, source.id, input.filename);
    checkWriteConditions(source, file, conditions, { requireIfMatch: false });
    const content = await openContent(ctx, source, file, null, input.signal);
    if (content) {
      try {
        return await commitCopy(ctx, input, { file, content, target, to });
      } catch (error) {
        if (!isMdStoreError(error, 'BLOB_NOT_FOUND')) throw error;
        if (attempt >= COPY_ATTEMPTS) throw new FileNotFoundError(input.filename);
      }
    } else if (attempt >= COPY_ATTEMPTS) {
      throw new FileNotFoundError(input.filename);
    }
  }
}

async function commitCopy(
  ctx: MdStoreContext,
  input: CopyFileInput,
  o: { file: FileRecord; content: ByteStream; target: ProjectRecord; to: string },
): Promise<FileView> {
  const fileId = ctx.ids.uuid();
  try {
    return await storeContent(
      ctx,
      { project: o.target, fileId },
      { content: o.content, loc: ['body'], filename: o.to, signal: input.signal },
      async () => undefined,
      async (tx, stored) => {
        const locked = await lockActiveProject(tx, input.principal, o.target.id);
        const at = notBefore(ctx.clock.now(), locked.updatedAt);
        const file: FileRecord = {
          id: fileId,
          projectId: locked.id,
          filename: o.to,
          sizeBytes: stored.sizeBytes,
          sha256: stored.sha256,
          metadataJson: o.file.metadataJson,
          frontmatterJson: stored.frontmatterJson,
          contentKey: stored.contentKey,
          inline: stored.inline,
          revision: 1,
          createdAt: at,
          updatedAt: at,
        };
        await tx.insertFile({ file });
        await indexFileWrite(ctx, tx, { file, contentText: stored.searchText, links: stored.links });
        const recorded = await recordRevision(ctx, tx, {
          project: locked,
          file,
          change: 'copy',
          before: [],
          author: input.principal.keyId,
        });
        const change = { files: 1, bytes: file.sizeBytes, historyBytes: recorded.historyDelta };
        await tx.updateProject({ project: withCounterChange(ctx, locked, change, at) });
        return { result: toFileView(file, locked, ctx.blobs.scheme), doomed: recorded.doomed };
      },
    );
  } catch (error) {
    if (isRecordConflict(error, 'filename')) {
      throw new FilenameTakenError(o.to);
    }
    throw error;
  }
}
