import { evaluatePreconditions, parsePreconditions } from '../../conditional/index.js';
import {
  ContentTooLargeError,
  type ErrorCode,
  FileNotFoundError,
  FilenameTakenError,
  isMdStoreError,
  MalformedInputError,
  type MdStoreError,
  mdStoreError,
  OperationFailedError,
  PreconditionFailedError,
  PreconditionRequiredError,
  type ValidationIssue,
} from '../../errors.js';
import { applyEditsInTurns } from '../../markdown/edits.js';
import { giveTurn, LARGE_TEXT, newWorkBudget, type WorkBudget } from '../../markdown/work-budget.js';
import { fileEtag } from '../../model/etags.js';
import type { AttachmentRecord, FileRecord, ProjectRecord, RevisionChange } from '../../model/records.js';
import {
  type AttachmentOperation,
  base64DecodedLength,
  CHANGESET_LIMITS,
  type ChangesetOperation,
  type IfMatchInput,
  operationLoc,
  parseOperation,
} from '../../validation/changesets.js';
import { issueAt } from '../../validation/issues.js';
import { LIMITS } from '../../validation/schemas.js';
import type { MdStoreContext } from '../context.js';
import { isMdxFilename, readText } from '../files/parts.js';
import type { FileDates } from '../files/steps.js';
import {
  attachmentBytes,
  attachmentExists,
  missingAttachment,
  type PlannedAttachment,
  prefetchAttachments,
} from './plan-attachments.js';

/**
 * The plan of a changeset (extensions §9), made outside any transaction: the operations are judged and
 * applied in order to a view of the project (the files they name, read from the store once, and the
 * changes of the earlier operations), so each sees what came before it. What the plan read is kept
 * (`seen`): the commit checks under the project lock that the store still holds exactly that, or plans
 * again (`StalePlan`).
 */

/** One file as the changeset leaves it: an existing file (`origin`) or a new one. */
export interface PlannedFile {
  /** The stored file this one is; null for a file the changeset creates. */
  readonly origin: FileRecord | null;
  /** The id the file has (a new id for a new file). */
  readonly fileId: string;
  filename: string;
  /** The new content; null when the content stays the origin's (or comes from `source`). */
  text: string | null;
  /**
   * The new content when it is not held as text (an import's, extensions §10): read when the commit
   * reaches the file, so that a changeset of many files holds one content at a time. Only with `text`
   * null.
   */
  source?: ContentSource;
  /** The metadata it ends with (JSON text or null). */
  metadataJson: string | null;
  /** The dates a new file takes instead of the commit's (an import that keeps dates). */
  dates?: FileDates;
  /** The change its one revision records (the strongest of its operations). */
  kind: RevisionChange;
  deleted: boolean;
}

/** A content the commit reads when it reaches its file: UTF-8 text checked by whoever made the source. */
export interface ContentSource {
  readonly sizeBytes: number;
  /** Lower-case hex SHA-256 of the bytes, as the source knows it: the commit hashes what it reads again. */
  readonly sha256: string;
  load(): Promise<Uint8Array>;
}

export interface ChangesetPlan {
  readonly project: ProjectRecord;
  /** Every file an operation touched, in the order first touched. */
  readonly files: readonly PlannedFile[];
  /** The file (or attachment) each operation touched, by operation, and its name at that operation. */
  readonly touched: readonly Touched[];
  /** Every attachment path an operation touched (extensions §12), in the order first touched. */
  readonly attachments?: readonly PlannedAttachment[];
  /** What the plan read of the store, by filename (null: no such file). */
  readonly seen: ReadonlyMap<string, FileRecord | null>;
}

/** What one operation touched: a file under a name, or an attachment path. */
export type Touched =
  | { readonly file: PlannedFile; readonly filename: string }
  | { readonly attachment: PlannedAttachment; readonly path: string };

/** The store changed between the plan and the commit: plan again. */
export class StalePlan extends Error {
  constructor() {
    super('A file of the changeset changed before it could commit');
  }
}

/** Of several changes to one file, the one its revision records. */
const RANK: Readonly<Record<RevisionChange, number>> = {
  created: 6,
  content: 5,
  edit: 4,
  restore: 3,
  copy: 3,
  metadata: 2,
  move: 1,
};
const stronger = (a: RevisionChange, b: RevisionChange): RevisionChange => (RANK[a] >= RANK[b] ? a : b);

/** The refusals an operation causes by what it asks (the rest, e.g. a store failure, are not its own). */
const OPERATION_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'MALFORMED_INPUT',
  'INVALID_INPUT',
  'EDIT_CONFLICT',
  'PRECONDITION_FAILED',
  'PRECONDITION_REQUIRED',
  'FILENAME_TAKEN',
  'FILE_MISSING',
  'CONTENT_TOO_LARGE',
  'UNSUPPORTED_EXTENSION',
  'OUTLINE_TOO_LARGE',
  'ATTACHMENT_NOT_FOUND',
  'ATTACHMENT_PATH_IS_FILE',
  'CONTENT_TYPE_MISMATCH',
]);

const TYPE_BY_CODE: Readonly<Record<string, string>> = {
  PRECONDITION_FAILED: 'precondition_failed',
  PRECONDITION_REQUIRED: 'precondition_required',
  FILENAME_TAKEN: 'filename_taken',
  FILE_MISSING: 'file_not_found',
  CONTENT_TOO_LARGE: 'content_too_large',
  UNSUPPORTED_EXTENSION: 'unsupported_extension',
  STORAGE_LIMIT_REACHED: 'storage_limit',
  ATTACHMENT_NOT_FOUND: 'attachment_not_found',
  ATTACHMENT_PATH_IS_FILE: 'attachment_path_is_file',
  CONTENT_TYPE_MISMATCH: 'content_type_mismatch',
};

/**
 * The error of a single operation as the changeset answers it: same code (so same status), its detail
 * always issues under `["body","operations",index,…]` (an error that had only a message gets one issue
 * with that message, at `loc`).
 */
export function operationFailed(
  error: MdStoreError,
  index: number,
  loc: readonly (string | number)[] = operationLoc(index),
): OperationFailedError {
  const issues = (error as { issues?: readonly ValidationIssue[] }).issues;
  const listed = issues ?? [
    { loc, msg: error.message, type: TYPE_BY_CODE[error.code] ?? error.code.toLowerCase() },
  ];
  return new OperationFailedError(error.code, listed, index, { cause: error });
}

export interface PlanInput {
  readonly operations: readonly unknown[];
  readonly dryRun: boolean;
  /** Bytes of `put` content in all; `maxFileBytes` × 4 (extensions §9) unless the caller says. */
  readonly maxContentBytes?: number;
  readonly signal?: AbortSignal;
  /**
   * The paths the writing key reaches (extensions §14): an operation naming another (its `filename` or
   * its `to`) is 404 "File not found", as a single write there is (an attachment's `path`: 404
   * "Attachment not found"), and nothing is written.
   */
  readonly reaches?: (path: string) => boolean;
}

export async function planChangeset(
  ctx: MdStoreContext,
  project: ProjectRecord,
  input: PlanInput,
): Promise<ChangesetPlan> {
  checkContentTotal(ctx, input);
  const planner = new Planner(ctx, project, input);
  await planner.prefetch(input.operations);
  let sinceTurn = 0;
  for (let index = 0; index < input.operations.length; index++) {
    // Puts are judged whole (their size, in one pass): other requests get a turn after every megabyte.
    const raw = input.operations[index] as { content?: unknown; content_base64?: unknown };
    sinceTurn += typeof raw?.content === 'string' ? raw.content.length : 0;
    sinceTurn += typeof raw?.content_base64 === 'string' ? raw.content_base64.length : 0;
    if (sinceTurn >= LARGE_TEXT) {
      sinceTurn = 0;
      await giveTurn();
    }
    try {
      const operation = parseOperation(input.operations[index], index);
      if (operation.op === 'attach' || operation.op === 'detach') {
        if (input.reaches && !input.reaches(operation.path)) throw missingAttachment(operation.path);
        await planner.attachment(operation, index);
        continue;
      }
      if (input.reaches) {
        for (const path of [operation.filename, operation.op === 'move' ? operation.to : undefined]) {
          if (path !== undefined && !input.reaches(path)) throw new FileNotFoundError(path);
        }
      }
      await planner.apply(operation, index);
    } catch (error) {
      // What the operation itself caused is answered as the operation's; a store or pool failure as is.
      if (
        isMdStoreError(error) &&
        OPERATION_CODES.has(error.code) &&
        !(error instanceof OperationFailedError)
      ) {
        throw operationFailed(error, index);
      }
      throw error;
    }
  }
  return {
    project,
    files: planner.files,
    touched: planner.touched,
    seen: planner.seen,
    attachments: planner.attachments,
  };
}

/** The bytes of put content a changeset may hold in all. */
const contentLimit = (ctx: MdStoreContext, input: PlanInput) =>
  input.maxContentBytes ?? ctx.settings.maxFileBytes * CHANGESET_LIMITS.contentFactor;

const contentTotalError = (limit: number, index: number, field = 'content') => {
  const loc = [...operationLoc(index), field];
  return new OperationFailedError(
    'CONTENT_TOO_LARGE',
    [
      {
        loc,
        msg: `Changeset too large: at most ${limit} bytes of content in all`,
        type: 'content_too_large',
      },
    ],
    index,
  );
};

/**
 * The changeset's put content (and attachments' bytes) in all, judged BEFORE any operation is planned
 * (no file read, no content worked on): one linear pass over the contents' lengths. Past the bound, 413 at the operation whose
 * content passes it (issue 34).
 */
function checkContentTotal(ctx: MdStoreContext, input: PlanInput): void {
  const limit = contentLimit(ctx, input);
  let total = 0;
  for (let index = 0; index < input.operations.length; index++) {
    const raw = input.operations[index] as {
      op?: unknown;
      content?: unknown;
      content_base64?: unknown;
    } | null;
    if (raw?.op === 'attach' && typeof raw.content_base64 === 'string') {
      total += base64DecodedLength(raw.content_base64);
    } else if (raw?.op === 'put' && typeof raw.content === 'string') {
      // A string's UTF-8 size is at least its length: only those that may pass are counted exactly.
      total += raw.content.length > limit ? raw.content.length : utf8Length(raw.content);
    } else continue;
    if (total > limit)
      throw contentTotalError(limit, index, raw.op === 'attach' ? 'content_base64' : 'content');
  }
}

class Planner {
  readonly files: PlannedFile[] = [];
  readonly touched: Touched[] = [];
  readonly seen = new Map<string, FileRecord | null>();
  readonly attachments: PlannedAttachment[] = [];
  /** The attachment paths the changeset touched, by path. */
  readonly #attachmentView = new Map<string, PlannedAttachment>();
  /** The attachments read up front, by path (null: none). */
  #storedAttachments = new Map<string, AttachmentRecord | null>();
  /** The project as the plan has it so far, by name (null: nothing there now). */
  readonly #view = new Map<string, PlannedFile | null>();
  /** The files read up front, by name (null: none). */
  readonly #stored = new Map<string, FileRecord | null>();
  readonly #budget: WorkBudget = newWorkBudget();
  #contentBytes = 0;

  constructor(
    private readonly ctx: MdStoreContext,
    private readonly project: ProjectRecord,
    private readonly input: PlanInput,
  ) {}

  /**
   * `attach` (create or replace: its bytes judged as the PUT route judges them, counted in the
   * changeset's content) and `detach` (404 when no attachment is there), each with `if_match` as a file
   * operation's, against the attachment as the changeset has it at that point.
   */
  async attachment(op: AttachmentOperation, index: number): Promise<void> {
    const planned = await this.#attachmentAt(op.path);
    const exists = attachmentExists(planned);
    if (op.op === 'detach' && !exists) throw missingAttachment(op.path);
    if (exists) this.#checkIfMatch(planned.origin, op.ifMatch);
    else if (op.ifMatch !== undefined && op.ifMatch !== null) throw new PreconditionFailedError(undefined);
    if (op.op === 'attach') {
      const loc = [...operationLoc(index), 'content_base64'];
      try {
        planned.content = attachmentBytes(this.ctx, op);
      } catch (error) {
        throw isMdStoreError(error) && error.code === 'CONTENT_TOO_LARGE'
          ? operationFailedAt(error, loc)
          : error;
      }
      this.#countContent(op.bytes.byteLength, loc);
    } else planned.content = null;
    if (!this.attachments.includes(planned)) this.attachments.push(planned);
    this.touched.push({ attachment: planned, path: op.path });
  }

  async #attachmentAt(path: string): Promise<PlannedAttachment> {
    const known = this.#attachmentView.get(path);
    if (known) return known;
    const prefetched = this.#storedAttachments.get(path);
    const origin =
      prefetched !== undefined
        ? prefetched
        : await this.ctx.records.findAttachment({ projectId: this.project.id, path });
    const planned: PlannedAttachment = { path, origin, content: undefined };
    this.#attachmentView.set(path, planned);
    return planned;
  }

  async apply(op: ChangesetOperation, index: number): Promise<void> {
    if (op.op === 'attach' || op.op === 'detach') return this.attachment(op, index);
    const loc = operationLoc(index);
    const file = await this.#lookup(op.filename);
    if (op.op === 'put') return this.#put(op, file, index);
    if (!file) throw mdStoreError('FILE_MISSING', { filename: op.filename });
    this.#checkIfMatch(file.origin, op.ifMatch);
    this.#touch(file, op.filename);
    if (op.op === 'delete') {
      file.deleted = true;
      this.#view.set(op.filename, null);
    } else if (op.op === 'move') {
      if (await this.#lookup(op.to)) throw new FilenameTakenError(op.to);
      this.#view.set(op.filename, null);
      this.#view.set(op.to, file);
      file.filename = op.to;
      file.kind = stronger(file.kind, 'move');
      // The answer names the file under its new name.
      this.touched[this.touched.length - 1] = { file, filename: op.to };
    } else {
      const before = file.text ?? (await this.#originText(file.origin!));
      const after = await applyEditsInTurns(before, op.edits, {
        mdx: isMdxFilename(file.filename),
        loc: [...loc, 'edits'],
        budget: this.#budget,
        maxBytes: this.ctx.settings.maxFileBytes,
        work: this.ctx.contentWork,
        signal: this.input.signal,
      });
      this.#checkContent(after, [...loc, 'edits'], false);
      file.text = after;
      file.kind = stronger(file.kind, 'edit');
    }
  }

  async #put(op: Extract<ChangesetOperation, { op: 'put' }>, file: PlannedFile | null, index: number) {
    const metadataJson = op.metadata === undefined ? undefined : op.metadata && JSON.stringify(op.metadata);
    this.#checkContent(op.content, [...operationLoc(index), 'content'], true);
    if (file) {
      this.#checkIfMatch(file.origin, op.ifMatch);
      file.text = op.content;
      if (metadataJson !== undefined) file.metadataJson = metadataJson;
      file.kind = stronger(file.kind, file.origin ? 'content' : 'created');
      this.#touch(file, op.filename);
      return;
    }
    if (op.ifMatch !== undefined && op.ifMatch !== null) throw new PreconditionFailedError(undefined);
    const created: PlannedFile = {
      origin: null,
      fileId: this.ctx.ids.uuid(),
      filename: op.filename,
      text: op.content,
      metadataJson: metadataJson ?? null,
      kind: 'created',
      deleted: false,
    };
    this.#view.set(op.filename, created);
    this.#touch(created, op.filename);
  }

  /**
   * Reads at once the files the operations name (`filename`, `to`; names longer than any filename can
   * be are left out): one read instead of one per name. A name not read here is read when looked up.
   */
  async prefetch(operations: readonly unknown[]): Promise<void> {
    const names = new Set<string>();
    for (const raw of operations) {
      const op = raw as { op?: unknown; filename?: unknown; to?: unknown };
      if (op?.op === 'attach' || op?.op === 'detach') continue;
      for (const name of [op?.filename, op?.to])
        if (typeof name === 'string' && name.length <= LIMITS.filenameMaxBytes) names.add(name);
    }
    const found = await this.ctx.records.findFiles({ projectId: this.project.id, filenames: [...names] });
    this.#storedAttachments = await prefetchAttachments(this.ctx, this.project.id, operations);
    const byName = new Map(found.map((file) => [file.filename, file]));
    for (const name of names) this.#stored.set(name, byName.get(name) ?? null);
  }

  /** The file under `filename` at this point of the changeset, read from the store the first time. */
  async #lookup(filename: string): Promise<PlannedFile | null> {
    const known = this.#view.get(filename);
    if (known !== undefined) return known;
    const prefetched = this.#stored.get(filename);
    const stored =
      prefetched !== undefined
        ? prefetched
        : await this.ctx.records.findFile({ projectId: this.project.id, filename });
    this.seen.set(filename, stored);
    const file: PlannedFile | null = stored && {
      origin: stored,
      fileId: stored.id,
      filename,
      text: null,
      metadataJson: stored.metadataJson,
      kind: 'move',
      deleted: false,
    };
    this.#view.set(filename, file);
    return file;
  }

  #touch(file: PlannedFile, filename: string): void {
    if (!this.files.includes(file)) this.files.push(file);
    this.touched.push({ file, filename });
  }

  /**
   * `if_match`: null, the file must not exist (it does: 412); an ETag list or `"*"` is judged against the
   * stored file the operation's file is (an ETag a client may hold); a file the changeset creates
   * matches only `"*"`. Without it, a project that requires `If-Match` refuses a write to an existing
   * file (428), but for a dry run.
   */
  #checkIfMatch(origin: FileRecord | AttachmentRecord | null, ifMatch: IfMatchInput): void {
    const etag = origin ? fileEtag(origin) : undefined;
    if (ifMatch === null) throw new PreconditionFailedError(etag);
    if (ifMatch === undefined) {
      if (origin && this.project.requireIfMatch && !this.input.dryRun) {
        throw new PreconditionRequiredError();
      }
      return;
    }
    const conditions = parsePreconditions({ ifMatch });
    const state = origin
      ? { etag: fileEtag(origin), lastModified: origin.updatedAt }
      : { etag: '"new"', lastModified: 0 };
    const matches =
      ifMatch.trim() === '*' ||
      (origin !== null && evaluatePreconditions(conditions, state, 'write') === 'proceed');
    if (!matches) throw new PreconditionFailedError(etag);
  }

  /** The content rules of a put or an edit's result: not empty (400), not above the size limits (413). */
  #checkContent(text: string, loc: readonly (string | number)[], counted: boolean): void {
    const { maxFileBytes } = this.ctx.settings;
    const bytes = utf8Length(text);
    if (bytes === 0) throw new MalformedInputError([issueAt(loc, 'contentEmpty')]);
    if (bytes > maxFileBytes) throw operationFailedAt(new ContentTooLargeError(maxFileBytes), loc);
    if (counted) this.#countContent(bytes, loc);
  }

  /** Bytes of the changeset's content in all (puts and attachments): 413 past the limit. */
  #countContent(bytes: number, loc: readonly (string | number)[]): void {
    this.#contentBytes += bytes;
    const limit = contentLimit(this.ctx, this.input);
    if (this.#contentBytes > limit) throw contentTotalError(limit, loc[2] as number, loc[3] as string);
  }

  async #originText(origin: FileRecord): Promise<string> {
    const text = await readText(this.ctx, this.project, origin, this.input.signal);
    // The version was replaced and removed since it was read: the plan starts again on newer files.
    if (text === null) throw new StalePlan();
    return text;
  }
}

const operationFailedAt = (error: MdStoreError, loc: readonly (string | number)[]) =>
  operationFailed(error, loc[2] as number, loc);

const encoder = new TextEncoder();
/** UTF-8 length of a text, without encoding it. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}
export const encodeText = (text: string): Uint8Array => encoder.encode(text);
