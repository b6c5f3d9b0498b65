import { EditConflictError } from '../../errors.js';
import type { FileRecord, ProjectRecord } from '../../model/records.js';
import type { RecordsTransaction } from '../../ports/records.js';
import type { ChangesetOperationInput } from '../../validation/changesets.js';
import { parseChangesetEnvelope } from '../../validation/changesets.js';
import { inPathScope, loadOwnedProject } from '../access.js';
import { type AttachmentView, toAttachmentView } from '../attachments/shared.js';
import type { Principal } from '../authentication.js';
import type { MdStoreContext } from '../context.js';
import { type BodyOf, deferred } from '../deferred-body.js';
import { type FileView, toFileView } from '../views.js';
import { commitChangeset, prepareContents } from './commit.js';
import { type ChangesetPlan, type PlannedFile, planChangeset, StalePlan } from './plan.js';
import { dryRunAttachmentView, type PlannedAttachment } from './plan-attachments.js';

export interface ApplyChangesetInput {
  readonly principal: Principal;
  readonly projectId: string;
  readonly message?: string | null;
  readonly dryRun?: boolean;
  /** The operations as a client sends them (JSON shape); each is checked when its turn comes. */
  readonly operations: readonly ChangesetOperationInput[] | readonly unknown[];
  readonly signal?: AbortSignal;
  /**
   * Bytes of `put` content in all: `maxFileBytes` × 4 by default (the HTTP route's rule); an importer
   * (extensions §10), which bounds its archive itself, may set its own.
   */
  readonly maxContentBytes?: number;
  /**
   * More writes of the same transaction, after the files' (a draft's publish marks the draft published
   * and adds its event, extensions §13): all of it commits, or none. It may throw to roll everything back.
   */
  readonly alsoInTransaction?: (tx: RecordsTransaction, changesetId: string) => Promise<void>;
}

/**
 * What an operation left: the file after the changeset, or the name it deleted; for `attach` and
 * `detach` (extensions §12), the attachment after the changeset, or the path it deleted.
 */
export type ChangesetFileResult = FileChangeResult | AttachmentChangeResult;
export type FileChangeResult = FileView | { readonly filename: string; readonly deleted: true };
export type AttachmentChangeResult =
  | { readonly attachment: AttachmentView }
  | { readonly path: string; readonly deleted: true };

/** Whether an operation's result is a file's (not an attachment's). */
export const isFileResult = (result: ChangesetFileResult): result is FileChangeResult => 'filename' in result;

export interface ChangesetResult {
  /** null for a dry run (nothing was written). */
  readonly changesetId: string | null;
  /** One per operation, in operation order. */
  readonly files: readonly ChangesetFileResult[];
  readonly dryRun: boolean;
}

/** Plans made again at most when files keep changing under a changeset without `if_match`. */
export const MAX_CHANGESET_ATTEMPTS = 10;

/**
 * Applies a changeset (extensions §9): the operations in order, each seeing the earlier ones, as ONE
 * transaction on the records store, all or nothing; the first failing operation decides the answer.
 * The plan is made outside the transaction (files read, edits applied); the commit checks under the
 * project lock that the files are still those the plan read, or the changeset is planned again on the
 * newer files, where `if_match` then fails (of two changesets holding one ETag, exactly one wins).
 * For the importer (extensions §10) as well as the HTTP route and MCP.
 */
export function applyChangeset(ctx: MdStoreContext, input: ApplyChangesetInput): Promise<ChangesetResult> {
  return applyOn(ctx, input, undefined);
}

/** `applyChangeset`, its first attempt on `known` (the project just loaded and judged) when given. */
async function applyOn(
  ctx: MdStoreContext,
  input: ApplyChangesetInput,
  known: ProjectRecord | undefined,
): Promise<ChangesetResult> {
  const dryRun = input.dryRun ?? false;
  for (let attempt = 1; attempt <= MAX_CHANGESET_ATTEMPTS; attempt++) {
    const project =
      attempt === 1 && known ? known : await loadOwnedProject(ctx.records, input.principal, input.projectId);
    try {
      const plan = await planChangeset(ctx, project, {
        operations: input.operations,
        dryRun,
        maxContentBytes: input.maxContentBytes,
        signal: input.signal,
        reaches: (path) => inPathScope(input.principal, path),
      });
      if (dryRun) return dryRunResult(ctx, plan);
      const changeset = { id: ctx.ids.uuid(), message: input.message ?? null };
      const committed = await commitChangeset(ctx, {
        principal: input.principal,
        plan,
        changeset,
        signal: input.signal,
        alsoInTransaction: input.alsoInTransaction && ((tx) => input.alsoInTransaction!(tx, changeset.id)),
      });
      return {
        changesetId: changeset.id,
        files: results(
          plan,
          (file) => {
            const record = committed.records.get(file);
            return record && toFileView(record, committed.project, ctx.blobs.scheme);
          },
          (planned) => {
            const record = committed.attachments.get(planned.path);
            return record && toAttachmentView(record);
          },
        ),
        dryRun: false,
      };
    } catch (error) {
      if (!(error instanceof StalePlan)) throw error;
      // A store may show a commit to its later transactions before its readers see it (SQLite's group
      // commit): the next plan waits a little, so that it does not read the older files again.
      await new Promise((resolve) => setTimeout(resolve, Math.min(2 ** attempt, 64)));
    }
  }
  throw new EditConflictError([
    {
      loc: ['body', 'operations'],
      msg: `The files changed ${MAX_CHANGESET_ATTEMPTS} times while the changeset was being applied; send it again`,
      type: 'concurrent_writes',
    },
  ]);
}

/** `POST /api/projects/{id}/changesets`: the body read once the project is known, then `applyChangeset`. */
export async function applyChangesetRequest(
  ctx: MdStoreContext,
  input: { principal: Principal; projectId: string; body: BodyOf<unknown>; signal?: AbortSignal },
): Promise<ChangesetResult> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId);
  const body = deferred<unknown>(input.body);
  body.check();
  const request = parseChangesetEnvelope(await body.read());
  const changeset = {
    principal: input.principal,
    projectId: input.projectId,
    message: request.message,
    dryRun: request.dryRun,
    operations: request.operations,
    signal: input.signal,
  };
  return applyOn(ctx, changeset, project);
}

function results(
  plan: ChangesetPlan,
  viewOf: (file: PlannedFile) => FileView | undefined,
  attachmentViewOf: (attachment: PlannedAttachment) => AttachmentView | undefined,
): ChangesetFileResult[] {
  return plan.touched.map((touched) => {
    if ('file' in touched)
      return viewOf(touched.file) ?? { filename: touched.filename, deleted: true as const };
    const attachment = attachmentViewOf(touched.attachment);
    return attachment ? { attachment } : { path: touched.path, deleted: true as const };
  });
}

/** A dry run: every file as it would be (size and digest of the new content; ETag and revision unchanged). */
async function dryRunResult(ctx: MdStoreContext, plan: ChangesetPlan): Promise<ChangesetResult> {
  const contents = new Map((await prepareContents(ctx, plan)).map((content) => [content.file, content]));
  const now = ctx.clock.now();
  return {
    changesetId: null,
    dryRun: true,
    files: results(
      plan,
      (file) => {
        if (file.deleted) return undefined;
        const content = contents.get(file);
        const base: FileRecord = file.origin ?? {
          id: file.fileId,
          projectId: plan.project.id,
          filename: file.filename,
          sizeBytes: 0,
          sha256: '',
          metadataJson: null,
          frontmatterJson: null,
          contentKey: '',
          inline: true,
          revision: 1,
          createdAt: now,
          updatedAt: now,
        };
        const record: FileRecord = {
          ...base,
          filename: file.filename,
          metadataJson: file.metadataJson,
          ...(content && { sizeBytes: content.bytes.byteLength, sha256: content.sha256 }),
        };
        return toFileView(record, plan.project, ctx.blobs.scheme);
      },
      (planned) => dryRunAttachmentView(ctx, plan.project, planned),
    ),
  };
}
