import * as v from 'valibot';
import { checkContentType } from '../attachments/content-types.js';
import { InvalidInputError, MalformedInputError, type ValidationIssue } from '../errors.js';
import { EditSchema, MAX_EDITS, toEdit, toEditIssue } from '../markdown/edit-schema.js';
import type { MarkdownEdit } from '../markdown/edits.js';
import { issueAt } from './issues.js';
import {
  checkAttachmentPath,
  checkUploadFilename,
  isJsonObject,
  type JsonObject,
  MetadataSchema,
} from './schemas.js';
import { isWellFormedUnicode } from './text.js';

/**
 * The body of `POST /api/projects/{id}/changesets` (extensions §9): `{"message"?, "dry_run"?,
 * "operations": [OP, …]}`. The envelope is judged first (422); each operation is judged when its turn
 * comes (`parseOperation`), so that the first failing operation decides the answer whatever its
 * failure: its shape (422), its filenames (400/415), then what it does to the files (plan).
 * `attach` and `detach` (extensions §12) write and delete attachments in the same transaction; drafts
 * (extensions §13) take the file operations only.
 */

export const CHANGESET_LIMITS = {
  /** Operations in one changeset. */
  maxOperations: 1000,
  /** Characters of a changeset's message. */
  maxMessageLength: 1000,
  /** Content in all (puts, and attachments' decoded bytes), as a multiple of `maxFileBytes`. */
  contentFactor: 4,
} as const;

const MSG = {
  string: 'Input should be a valid string',
  unicode: 'Value error, the text is not well-formed Unicode',
  object: 'Input should be a valid dictionary or object',
  list: 'Input should be a valid list',
  bool: 'Input should be a valid boolean',
  op: "Input should be 'put', 'edit', 'delete' or 'move'",
  changesetOp: "Input should be 'put', 'edit', 'delete', 'move', 'attach' or 'detach'",
  base64: 'Value error, not base64 (standard alphabet, padded)',
  ifMatch: 'Value error, if_match must be an ETag, "*" or null',
} as const;

const Text = v.pipe(v.string(MSG.string), v.check(isWellFormedUnicode, MSG.unicode));
const Filename = v.pipe(v.string(MSG.string), v.description('A filename (extensions §1 rules).'));
/** An ETag (or a list of them, as in `If-Match`), `"*"`: the file must exist; `null`: it must not. */
const IfMatch = v.optional(
  v.pipe(
    v.nullable(v.pipe(v.string(MSG.ifMatch), v.minLength(1, MSG.ifMatch))),
    v.description('An ETag of the file, `"*"` (the file must exist) or null (it must not).'),
  ),
);

export const PutOperationSchema = v.strictObject(
  {
    op: v.literal('put'),
    filename: Filename,
    content: v.pipe(Text, v.description('The whole content, as text (UTF-8 once stored).')),
    metadata: v.optional(v.nullable(MetadataSchema)),
    if_match: IfMatch,
  },
  MSG.object,
);

export const EditOperationSchema = v.strictObject(
  {
    op: v.literal('edit'),
    filename: Filename,
    edits: v.pipe(
      v.array(EditSchema, MSG.list),
      v.minLength(1, 'List should have at least 1 item after validation, not 0'),
      v.maxLength(MAX_EDITS, `List should have at most ${MAX_EDITS} items after validation`),
    ),
    if_match: IfMatch,
  },
  MSG.object,
);

export const DeleteOperationSchema = v.strictObject(
  { op: v.literal('delete'), filename: Filename, if_match: IfMatch },
  MSG.object,
);

export const MoveOperationSchema = v.strictObject(
  { op: v.literal('move'), filename: Filename, to: Filename, if_match: IfMatch },
  MSG.object,
);

const AttachmentPath = v.pipe(
  v.string(MSG.string),
  v.description('An attachment path (extensions §12: the filename rules, any extension but .md/.mdx).'),
);

export const AttachOperationSchema = v.strictObject(
  {
    op: v.literal('attach'),
    path: AttachmentPath,
    content_base64: v.pipe(
      v.string(MSG.string),
      v.description('The bytes, base64 (standard alphabet, padded).'),
    ),
    content_type: v.pipe(
      v.string(MSG.string),
      v.description('The media type, checked against the bytes as the PUT route checks it.'),
    ),
    if_match: IfMatch,
  },
  MSG.object,
);

export const DetachOperationSchema = v.strictObject(
  { op: v.literal('detach'), path: AttachmentPath, if_match: IfMatch },
  MSG.object,
);

const FILE_OPERATIONS = [
  PutOperationSchema,
  EditOperationSchema,
  DeleteOperationSchema,
  MoveOperationSchema,
] as const;

/** The operations of a draft (extensions §13): files only. */
export const FileOperationSchema = v.pipe(
  v.custom<Record<string, unknown>>(isJsonObject, MSG.object),
  v.variant('op', FILE_OPERATIONS, MSG.op),
);

/** The operations of a changeset: the files', and attachments' `attach` and `detach` (extensions §12). */
export const ChangesetOperationSchema = v.pipe(
  v.custom<Record<string, unknown>>(isJsonObject, MSG.object),
  v.variant('op', [...FILE_OPERATIONS, AttachOperationSchema, DetachOperationSchema], MSG.changesetOp),
);

/** An operation as a client sends it (JSON): what `applyChangeset` takes. */
export type ChangesetOperationInput = v.InferInput<typeof ChangesetOperationSchema>;

export const ChangesetRequestSchema = v.strictObject(
  {
    message: v.optional(
      v.nullable(
        v.pipe(
          Text,
          v.maxLength(CHANGESET_LIMITS.maxMessageLength, 'String should have at most 1000 characters'),
        ),
      ),
    ),
    dry_run: v.optional(v.boolean(MSG.bool), false),
    operations: v.pipe(
      v.array(v.unknown(), MSG.list),
      v.minLength(1, 'List should have at least 1 item after validation, not 0'),
      v.maxLength(
        CHANGESET_LIMITS.maxOperations,
        `List should have at most ${CHANGESET_LIMITS.maxOperations} items after validation`,
      ),
    ),
  },
  MSG.object,
);

export type ChangesetRequestInput = v.InferInput<typeof ChangesetRequestSchema>;

/** `if_match` as sent: absent (no condition), null (must not exist), or the header's value. */
export type IfMatchInput = string | null | undefined;

/** One file operation, checked: its fields typed, its filenames following the rules. */
export type FileOperation =
  | {
      readonly op: 'put';
      readonly filename: string;
      readonly content: string;
      /** undefined: keep the file's metadata (none for a new file). */
      readonly metadata: JsonObject | null | undefined;
      readonly ifMatch: IfMatchInput;
    }
  | {
      readonly op: 'edit';
      readonly filename: string;
      readonly edits: MarkdownEdit[];
      readonly ifMatch: IfMatchInput;
    }
  | { readonly op: 'delete'; readonly filename: string; readonly ifMatch: IfMatchInput }
  | { readonly op: 'move'; readonly filename: string; readonly to: string; readonly ifMatch: IfMatchInput };

/** An attachment operation, checked: its path, its type, its bytes decoded (their type not judged yet). */
export type AttachmentOperation =
  | {
      readonly op: 'attach';
      readonly path: string;
      readonly bytes: Uint8Array;
      readonly contentType: string;
      readonly ifMatch: IfMatchInput;
    }
  | { readonly op: 'detach'; readonly path: string; readonly ifMatch: IfMatchInput };

/** One operation of a changeset, checked. */
export type ChangesetOperation = FileOperation | AttachmentOperation;

export const operationLoc = (index: number): readonly (string | number)[] => ['body', 'operations', index];

/** The envelope of the body: 422 with every issue outside the operations themselves. */
export function parseChangesetEnvelope(body: unknown): {
  message: string | null;
  dryRun: boolean;
  operations: unknown[];
} {
  if (!isJsonObject(body)) throw new InvalidInputError([issueAt(['body'], 'objectType')]);
  const result = v.safeParse(ChangesetRequestSchema, body);
  if (!result.success) throw new InvalidInputError(result.issues.map(toEditIssue));
  return {
    message: result.output.message ?? null,
    dryRun: result.output.dry_run,
    operations: result.output.operations,
  };
}

/** Issues of an operation's shape, under `["body","operations",index,…]`. */
function shapeIssues(
  issues: readonly v.BaseIssue<unknown>[],
  index: number,
  opMessage: string,
): ValidationIssue[] {
  const loc = operationLoc(index);
  return issues.map((found) => {
    const issue = toEditIssue(found);
    // `toEditIssue` places issues under ["body", …path]; the path starts inside the operation.
    const at = [...loc, ...issue.loc.slice(1)];
    const unknownOp = found.type === 'variant' && at.length <= loc.length + 1 && issue.type !== 'missing';
    return unknownOp ? { loc: [...loc, 'op'], msg: opMessage, type: 'literal_error' } : { ...issue, loc: at };
  });
}

type FileOperationOutput = v.InferOutput<typeof FileOperationSchema>;

function checkedFileOperation(op: FileOperationOutput, index: number): FileOperation {
  const loc = operationLoc(index);
  checkUploadFilename(op.filename, [...loc, 'filename']);
  const ifMatch = op.if_match;
  switch (op.op) {
    case 'put':
      return { op: 'put', filename: op.filename, content: op.content, metadata: op.metadata, ifMatch };
    case 'edit':
      return { op: 'edit', filename: op.filename, edits: op.edits.map(toEdit), ifMatch };
    case 'delete':
      return { op: 'delete', filename: op.filename, ifMatch };
    case 'move':
      checkUploadFilename(op.to, [...loc, 'to']);
      return { op: 'move', filename: op.filename, to: op.to, ifMatch };
  }
}

/**
 * The file operation at `index` (a draft's): its shape (422 under `["body","operations",index]`), then
 * the filename rules of its names (400, or 415 for an extension), as a single upload or move judges them.
 */
export function parseFileOperation(raw: unknown, index: number): FileOperation {
  const result = v.safeParse(FileOperationSchema, raw);
  if (!result.success) throw new InvalidInputError(shapeIssues(result.issues, index, MSG.op));
  return checkedFileOperation(result.output, index);
}

/**
 * The changeset operation at `index`: a file operation as `parseFileOperation` judges it, or an
 * attachment's: its path (400, `.md`/`.mdx` 409 as the PUT route), its type (400), its bytes (400 when
 * not base64).
 */
export function parseOperation(raw: unknown, index: number): ChangesetOperation {
  const result = v.safeParse(ChangesetOperationSchema, raw);
  if (!result.success) throw new InvalidInputError(shapeIssues(result.issues, index, MSG.changesetOp));
  const op = result.output;
  if (op.op !== 'attach' && op.op !== 'detach') return checkedFileOperation(op, index);
  const loc = operationLoc(index);
  checkAttachmentPath(op.path, [...loc, 'path']);
  if (op.op === 'detach') return { op: 'detach', path: op.path, ifMatch: op.if_match };
  const contentType = checkContentType(op.content_type, [...loc, 'content_type']);
  const bytes = decodeBase64(op.content_base64);
  if (bytes === undefined) {
    throw new MalformedInputError([
      { loc: [...loc, 'content_base64'], msg: MSG.base64, type: 'value_error' },
    ]);
  }
  return { op: 'attach', path: op.path, bytes, contentType, ifMatch: op.if_match };
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Bytes of padded standard base64, or undefined when the text is not that. */
export function decodeBase64(text: string): Uint8Array | undefined {
  if (!BASE64.test(text)) return undefined;
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Bytes a padded base64 text decodes to (for a text that is not base64: about as many). */
export const base64DecodedLength = (text: string): number =>
  Math.floor((text.length * 3) / 4) - (text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0);
