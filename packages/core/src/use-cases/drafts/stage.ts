import { evaluatePreconditions, parsePreconditions } from '../../conditional/index.js';
import { DRAFT_LIMITS } from '../../defaults/drafts.js';
import {
  ContentTooLargeError,
  EditConflictError,
  type ErrorCode,
  FilenameTakenError,
  InvalidInputError,
  isMdStoreError,
  MalformedInputError,
  mdStoreError,
  OperationFailedError,
  PreconditionFailedError,
} from '../../errors.js';
import { applyEditsInTurns } from '../../markdown/edits.js';
import { newWorkBudget } from '../../markdown/work-budget.js';
import { fileEtag } from '../../model/etags.js';
import type { DraftFileRecord, FileRecord, ProjectRecord } from '../../model/records.js';
import {
  CHANGESET_LIMITS,
  type FileOperation,
  type IfMatchInput,
  operationLoc,
  parseFileOperation,
} from '../../validation/changesets.js';
import { issueAt } from '../../validation/issues.js';
import { operationFailed, utf8Length } from '../changesets/plan.js';
import type { MdStoreContext } from '../context.js';
import { isMdxFilename, readText } from '../files/parts.js';

/**
 * Staging §9 operations into a draft (extensions §13), outside any transaction: each operation is judged
 * as a changeset judges it (its shape, its filenames, `if_match` against the live file, the content
 * rules) and applied to the draft's view of the file: its proposal when the draft already has one, else
 * the live file. A draft keeps ONE row per file, the net proposal: the whole text (an edit is applied
 * now, to that view), the metadata (`null`: keep the file's; `"null"`: clear it), or the delete or move;
 * the row keeps the ETag the file had when the draft first touched it (its base). A file the draft
 * deletes or moves takes no further operation, nor does a name a move of the draft takes (409).
 */

/** The bytes of content a draft may hold in all: what its publish, one changeset, may write. */
export const draftContentLimit = (ctx: MdStoreContext): number =>
  ctx.settings.maxFileBytes * CHANGESET_LIMITS.contentFactor;

export interface StagedFiles {
  /** The rows the operations wrote or replaced, in the order first touched. */
  readonly rows: readonly DraftFileRecord[];
}

/** The refusals an operation causes by what it asks (as a changeset's plan judges them). */
const OPERATION_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'MALFORMED_INPUT',
  'INVALID_INPUT',
  'EDIT_CONFLICT',
  'PRECONDITION_FAILED',
  'FILENAME_TAKEN',
  'FILE_MISSING',
  'CONTENT_TOO_LARGE',
  'UNSUPPORTED_EXTENSION',
  'OUTLINE_TOO_LARGE',
]);

const BUSY_MSG = 'Value error, the draft already deletes or moves this file';

export async function stageOperations(
  ctx: MdStoreContext,
  o: {
    project: ProjectRecord;
    draftId: string;
    existing: readonly DraftFileRecord[];
    operations: readonly unknown[];
    signal?: AbortSignal;
  },
): Promise<StagedFiles> {
  const rows = new Map(o.existing.map((row) => [row.filename, row] as const));
  const changed = new Map<string, DraftFileRecord>();
  const live = new Map<string, FileRecord | null>();
  let nextSeq = o.existing.reduce((max, row) => Math.max(max, row.seq + 1), 0);
  const budget = newWorkBudget();
  const lookup = async (filename: string) => {
    if (!live.has(filename)) {
      live.set(filename, await ctx.records.findFile({ projectId: o.project.id, filename }));
    }
    return live.get(filename)!;
  };
  const movedTo = (name: string) => [...rows.values()].some((row) => row.op === 'move' && row.to === name);
  for (let index = 0; index < o.operations.length; index++) {
    const loc = operationLoc(index);
    try {
      const op = parseFileOperation(o.operations[index], index);
      const row = rows.get(op.filename);
      if (row?.op === 'delete' || row?.op === 'move' || movedTo(op.filename)) {
        throw new EditConflictError([{ loc: [...loc, 'filename'], msg: BUSY_MSG, type: 'draft_conflict' }]);
      }
      const file = await lookup(op.filename);
      checkIfMatch(file, op.ifMatch);
      const base = row ? row.baseEtag : file ? fileEtag(file) : null;
      const next = await stage(ctx, o, { op, row, file, loc, budget, lookup, movedTo });
      const staged: DraftFileRecord = {
        draftId: o.draftId,
        seq: row?.seq ?? nextSeq++,
        filename: op.filename,
        baseEtag: base,
        ...next,
      };
      rows.set(op.filename, staged);
      changed.set(op.filename, staged);
    } catch (error) {
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
  if (rows.size > DRAFT_LIMITS.maxFiles) {
    throw new InvalidInputError([
      {
        loc: ['body', 'operations'],
        msg: `Value error, a draft holds at most ${DRAFT_LIMITS.maxFiles} files`,
        type: 'value_error',
      },
    ]);
  }
  const limit = draftContentLimit(ctx);
  let total = 0;
  for (const row of rows.values()) total += row.content === null ? 0 : utf8Length(row.content);
  if (total > limit) {
    throw new OperationFailedError(
      'CONTENT_TOO_LARGE',
      [
        {
          loc: ['body', 'operations'],
          msg: `Draft too large: at most ${limit} bytes of content in all`,
          type: 'content_too_large',
        },
      ],
      -1,
    );
  }
  return { rows: [...changed.values()] };
}

type Staged = Pick<DraftFileRecord, 'op' | 'content' | 'metadataJson' | 'to'>;

async function stage(
  ctx: MdStoreContext,
  o: { project: ProjectRecord; signal?: AbortSignal },
  s: {
    op: FileOperation;
    row: DraftFileRecord | undefined;
    file: FileRecord | null;
    loc: readonly (string | number)[];
    budget: ReturnType<typeof newWorkBudget>;
    lookup: (name: string) => Promise<FileRecord | null>;
    movedTo: (name: string) => boolean;
  },
): Promise<Staged> {
  const { op, row, file, loc } = s;
  const exists = row !== undefined || file !== null;
  switch (op.op) {
    case 'put': {
      checkContent(ctx, op.content, [...loc, 'content']);
      const metadataJson =
        op.metadata === undefined ? (row?.metadataJson ?? null) : JSON.stringify(op.metadata ?? null);
      return { op: 'put', content: op.content, metadataJson, to: null };
    }
    case 'edit': {
      if (!exists) throw mdStoreError('FILE_MISSING', { filename: op.filename });
      const before = row?.content ?? (await liveText(ctx, o.project, file!, o.signal));
      const after = await applyEditsInTurns(before, op.edits, {
        mdx: isMdxFilename(op.filename),
        loc: [...loc, 'edits'],
        budget: s.budget,
        maxBytes: ctx.settings.maxFileBytes,
        work: ctx.contentWork,
        signal: o.signal,
      });
      checkContent(ctx, after, [...loc, 'edits']);
      return { op: row?.op ?? 'edit', content: after, metadataJson: row?.metadataJson ?? null, to: null };
    }
    case 'delete':
    case 'move': {
      if (!file) throw mdStoreError('FILE_MISSING', { filename: op.filename });
      // A file the draft already changes is published as that change; deleting or moving it on top would
      // make two operations of one row: the draft refuses it (close it and propose again).
      if (row)
        throw new EditConflictError([
          {
            loc: [...loc, 'op'],
            msg: BUSY_MSG.replace('deletes or moves', 'changes'),
            type: 'draft_conflict',
          },
        ]);
      if (op.op === 'delete') return { op: 'delete', content: null, metadataJson: null, to: null };
      if ((await s.lookup(op.to)) || s.movedTo(op.to)) throw new FilenameTakenError(op.to);
      return { op: 'move', content: null, metadataJson: null, to: op.to };
    }
  }
}

/** `if_match` judged against the live file, as a changeset judges it. */
function checkIfMatch(file: FileRecord | null, ifMatch: IfMatchInput): void {
  if (ifMatch === undefined) return;
  const etag = file ? fileEtag(file) : undefined;
  if (ifMatch === null) {
    if (file) throw new PreconditionFailedError(etag);
    return;
  }
  if (ifMatch.trim() === '*') {
    if (!file) throw new PreconditionFailedError(undefined);
    return;
  }
  const state = file ? { etag: fileEtag(file), lastModified: file.updatedAt } : undefined;
  if (!state || evaluatePreconditions(parsePreconditions({ ifMatch }), state, 'write') !== 'proceed') {
    throw new PreconditionFailedError(etag);
  }
}

function checkContent(ctx: MdStoreContext, text: string, loc: readonly (string | number)[]): void {
  const bytes = utf8Length(text);
  if (bytes === 0) throw new MalformedInputError([issueAt(loc, 'contentEmpty')]);
  if (bytes > ctx.settings.maxFileBytes) throw new ContentTooLargeError(ctx.settings.maxFileBytes);
}

/** The live text of a file (read again once when it is replaced while being read). */
export async function liveText(
  ctx: MdStoreContext,
  project: ProjectRecord,
  file: FileRecord,
  signal?: AbortSignal,
): Promise<string> {
  const text = await readText(ctx, project, file, signal);
  if (text !== null) return text;
  const again = await ctx.records.findFile({ projectId: project.id, filename: file.filename });
  const retried = again && (await readText(ctx, project, again, signal));
  if (retried == null) throw mdStoreError('FILE_MISSING', { filename: file.filename });
  return retried;
}
