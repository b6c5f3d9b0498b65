import {
  ContentTooLargeError,
  EditConflictError,
  MalformedInputError,
  PreconditionRequiredError,
} from '../../errors.js';
import { unifiedDiff } from '../../markdown/diff.js';
import { type EditRequest, parseEditRequest } from '../../markdown/edit-schema.js';
import { applyEditsInTurns } from '../../markdown/edits.js';
import {
  giveTurn,
  LARGE_TEXT,
  newWorkBudget,
  turnAfterLargeStep,
  type WorkBudget,
} from '../../markdown/work-budget.js';
import type { FileRecord, ProjectRecord } from '../../model/records.js';
import type { ByteStream } from '../../ports/blobs.js';
import type { EditRequestInput } from '../../validation/bodies.js';
import { issueAt } from '../../validation/issues.js';
import { isJsonObject } from '../../validation/schemas.js';
import { utf8Pieces, utf8Size } from '../../validation/text.js';
import { loadOwnedProject } from '../access.js';
import type { Principal } from '../authentication.js';
import { type ContentHold, withContentHold } from '../content-budget.js';
import type { MdStoreContext } from '../context.js';
import { type BodyOf, deferred } from '../deferred-body.js';
import { type FileView, toFileView } from '../views.js';
import {
  checkWriteConditions,
  conditionsOf,
  type ParsedConditions,
  type RequestConditions,
  sentIfMatch,
} from './conditions.js';
import { storeContent } from './content.js';
import {
  isCurrentBase,
  type MergeBase,
  mergeBaseText,
  mergedOrConflict,
  parseMergeBase,
} from './merge-base.js';
import { currentText, isMdxFilename } from './parts.js';
import { findFileOr404, lockActiveProject } from './shared.js';
import { commitContentVersion } from './update-content.js';

export interface EditFileInput {
  readonly principal: Principal;
  readonly projectId: string;
  readonly filename: string;
  /** `{"edits": [...], "dry_run": false}` as parsed JSON, or (HTTP) the request body it comes in. */
  readonly body: BodyOf<EditRequestInput>;
  readonly conditions?: RequestConditions;
  /** `?merge_base=` (extensions §13): the edits apply to that revision, merged into the current one. */
  readonly mergeBase?: string;
  readonly signal?: AbortSignal;
}

export interface EditResult {
  /** The file after the edits; for a dry run, the file as it is with the would-be size and digest. */
  readonly file: FileView;
  /** Unified diff of the change (3 lines of context), `''` for none, null when too costly to compute. */
  readonly diff: string | null;
  readonly dryRun: boolean;
  /** With `merge_base`: true when a three-way merge happened (absent otherwise). */
  readonly merged?: boolean;
}

/** Attempts on ever newer content before giving up on a file that keeps changing. */
export const MAX_EDIT_ATTEMPTS = 10;

const EDITS_LOC = ['body', 'edits'] as const;

/**
 * `PATCH …/files/{filename}` (extensions §4): the edits applied in order to the content current when
 * the change commits, all or nothing, as one new revision (`change: "edit"`).
 *
 * Content may live in the blob store and no transaction is held across blob I/O, so the write is
 * optimistic: read the current revision and its text, apply the edits (every byte outside the edited
 * spans is the file's own), store the result as a new version, and in the commit transaction check,
 * under the project lock, that the file is still at the revision read. If another write came first,
 * the new version is discarded and the edits are applied again to the newer content (where they may
 * now fail, as they would on it). With `If-Match` the commit's precondition check refuses instead
 * (412): of writers holding the same ETag exactly one wins.
 */
export async function editFile(ctx: MdStoreContext, input: EditFileInput): Promise<EditResult> {
  const project = await loadOwnedProject(ctx.records, input.principal, input.projectId, input.filename);
  const existing = await findFileOr404(ctx.records, project.id, input.filename);
  const conditions = conditionsOf(input.conditions);
  const base = parseMergeBase(input.mergeBase, conditions);
  const request = await receiveEdits(project, existing, input, conditions, base !== undefined);
  const budget = newWorkBudget();
  // The first attempt works on the record just read and judged; a retry reads (and judges) it again.
  let known: FileRecord | undefined = existing;
  for (let attempt = 1; attempt <= MAX_EDIT_ATTEMPTS; attempt++) {
    const attemptInput = { ...input, conditions, known, base };
    // Each attempt holds its texts from the content budget until it ends (content-budget.ts).
    const outcome = await withContentHold(ctx.contentBudget, input.signal, (hold) =>
      attemptEdit(ctx, project, attemptInput, request, budget, hold),
    );
    known = undefined;
    if (!(outcome instanceof StaleRevision)) return outcome;
    await caughtUp(ctx, project, input.filename, outcome);
  }
  throw new EditConflictError([
    {
      loc: EDITS_LOC,
      msg: `The file changed ${MAX_EDIT_ATTEMPTS} times while the edits were being applied; send them again`,
      type: 'concurrent_writes',
    },
  ]);
}

/**
 * The preconditions, then the body, in the order of extensions §2, with one twist the dry run brings:
 * it never answers 428, and whether a request is a dry run is in its body. So when the project requires
 * `If-Match` and none came, the body is read first; a body that is not a JSON object with
 * `"dry_run": true` is then 428 (before anything in it is judged), a dry run goes on without it.
 */
async function receiveEdits(
  project: ProjectRecord,
  file: FileRecord,
  input: EditFileInput,
  conditions: ParsedConditions,
  merging: boolean,
): Promise<EditRequest> {
  const body = deferred<unknown>(input.body);
  body.check();
  // `merge_base` stands for `If-Match` (merge-base.ts).
  const missingIfMatch = project.requireIfMatch && !sentIfMatch(conditions) && !merging;
  if (!missingIfMatch)
    checkWriteConditions(project, file, conditions, merging ? { requireIfMatch: false } : {});
  let raw: unknown;
  try {
    raw = await body.read();
  } catch (error) {
    if (missingIfMatch) throw new PreconditionRequiredError();
    throw error;
  }
  if (missingIfMatch) {
    if (!(isJsonObject(raw) && raw.dry_run === true)) throw new PreconditionRequiredError();
    checkWriteConditions(project, file, conditions, { requireIfMatch: false });
  }
  return parseEditRequest(raw);
}

/** An attempt whose file changed before it could commit: the commit transaction saw `seen`. */
export class StaleRevision extends Error {
  constructor(readonly seen: Pick<FileRecord, 'id' | 'revision'>) {
    super('The file changed before the edit could commit');
  }
}

/** How long a retry waits at most for reads to show the revision its commit saw. */
const CATCH_UP_DELAYS_MS = [0, 1, 2, 4, 8, 16, 32, 64];

/**
 * Waits until reads outside a transaction show at least the revision the failed commit saw. A store may
 * make a commit visible to its own later transactions before its readers see it (SQLite's group commit
 * releases a transaction into a batch whose COMMIT comes a few milliseconds later): a retry that read
 * the older revision again would fail again for nothing, and spend an attempt.
 */
export async function caughtUp(
  ctx: MdStoreContext,
  project: ProjectRecord,
  filename: string,
  stale: StaleRevision,
): Promise<void> {
  for (const delay of CATCH_UP_DELAYS_MS) {
    const file = await ctx.records.findFile({ projectId: project.id, filename });
    if (!file || file.id !== stale.seen.id || file.revision >= stale.seen.revision) return;
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/** What an attempt needs of the request: its preconditions parsed, and the record to start from, if known. */
type AttemptInput = Omit<EditFileInput, 'conditions'> & {
  readonly conditions: ParsedConditions;
  readonly known: FileRecord | undefined;
  readonly base: MergeBase | undefined;
};

async function attemptEdit(
  ctx: MdStoreContext,
  project: ProjectRecord,
  input: AttemptInput,
  request: EditRequest,
  budget: WorkBudget,
  hold: ContentHold,
): Promise<EditResult | StaleRevision> {
  const requireIfMatch = request.dryRun || input.base ? false : undefined;
  const read = await currentText(ctx, project, input.filename, {
    signal: input.signal,
    known: input.known,
    hold,
    proceed: (file) => {
      checkWriteConditions(project, file, input.conditions, { requireIfMatch });
      return true;
    },
  });
  const { file } = read;
  const before = read.text!;
  const base = input.base
    ? await mergeBaseText(ctx, project, file, input.base, before, { signal: input.signal, hold })
    : before;
  const edited = await applyEditsInTurns(base, request.edits, {
    mdx: isMdxFilename(input.filename),
    loc: EDITS_LOC,
    budget,
    maxBytes: ctx.settings.maxFileBytes,
    work: ctx.contentWork,
    signal: input.signal,
  });
  const merge =
    input.base && !isCurrentBase(file, input.base)
      ? mergedOrConflict(input.filename, base, before, edited)
      : { text: edited, merged: false };
  const after = merge.text;
  const merged = merge.merged ? { merged: true } : {};
  // Each linear step on a large text is followed by a turn of the event loop (work-budget.ts).
  // The result is never held encoded whole: its size is counted, and it is encoded piece by piece as
  // it is hashed or stored.
  const sizeBytes = checkedResultSize(ctx, utf8Size(after));
  await turnAfterLargeStep(after);
  // The result and the diff are reserved as they come: the result (about its size) before the diff is
  // made, the diff once its size is known.
  await hold.reserve(sizeBytes);
  const diff = unifiedDiff(before, after, { oldName: `a/${file.filename}`, newName: `b/${file.filename}` });
  await turnAfterLargeStep(after);
  await hold.reserve(diff?.length ?? 0);
  if (request.dryRun) {
    const hash = ctx.hashing.sha256();
    for await (const piece of encodedPieces(after)) hash.update(piece);
    const view = toFileView(file, project, ctx.blobs.scheme);
    return { file: { ...view, sizeBytes, sha256: hash.digestHex() }, diff, dryRun: true, ...merged };
  }
  try {
    const view = await commitEdit(ctx, project, file, input, after);
    return { file: view, diff, dryRun: false, ...merged };
  } catch (error) {
    if (error instanceof StaleRevision) return error;
    throw error;
  }
}

/** The content rules of the result's UTF-8 size: not above the size limit (413), not empty (400). */
export function checkedResultSize(
  ctx: MdStoreContext,
  sizeBytes: number,
  loc: readonly (string | number)[] = EDITS_LOC,
): number {
  if (sizeBytes > ctx.settings.maxFileBytes) throw new ContentTooLargeError(ctx.settings.maxFileBytes);
  if (sizeBytes === 0) throw new MalformedInputError([issueAt(loc, 'contentEmpty')]);
  return sizeBytes;
}

/** The text's UTF-8, piece by piece, with a turn of the event loop after each megabyte or so. */
export async function* encodedPieces(text: string): ByteStream {
  let since = 0;
  for (const piece of utf8Pieces(text)) {
    yield piece;
    since += piece.byteLength;
    if (since >= LARGE_TEXT) {
      since = 0;
      await giveTurn();
    }
  }
}

/**
 * Stores the new version (inline or in the blob store) and commits it, if the file is still at the
 * revision the edits were applied to; otherwise `StaleRevision` (the stored version is discarded).
 */
function commitEdit(
  ctx: MdStoreContext,
  project: ProjectRecord,
  read: FileRecord,
  input: AttemptInput,
  text: string,
): Promise<FileView> {
  return storeContent(
    ctx,
    { project, fileId: read.id },
    { content: encodedPieces(text), loc: EDITS_LOC, filename: input.filename, signal: input.signal },
    async () => undefined,
    async (tx, stored) => {
      const locked = await lockActiveProject(tx, input.principal, project.id);
      const current = await findFileOr404(tx, locked.id, input.filename);
      checkWriteConditions(locked, current, input.conditions, input.base ? { requireIfMatch: false } : {});
      if (current.id !== read.id || current.revision !== read.revision) throw new StaleRevision(current);
      return commitContentVersion(ctx, tx, {
        project: locked,
        current,
        stored,
        change: 'edit',
        author: input.principal.keyId,
      });
    },
  );
}
