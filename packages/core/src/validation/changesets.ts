import * as v from 'valibot';
import { InvalidInputError, type ValidationIssue } from '../errors.js';
import { EditSchema, MAX_EDITS, toEdit, toEditIssue } from '../markdown/edit-schema.js';
import type { MarkdownEdit } from '../markdown/edits.js';
import { issueAt } from './issues.js';
import { checkUploadFilename, isJsonObject, type JsonObject, MetadataSchema } from './schemas.js';
import { isWellFormedUnicode } from './text.js';

/**
 * The body of `POST /api/projects/{id}/changesets` (extensions §9): `{"message"?, "dry_run"?,
 * "operations": [OP, …]}`. The envelope is judged first (422); each operation is judged when its turn
 * comes (`parseOperation`), so that the first failing operation decides the answer whatever its
 * failure: its shape (422), its filenames (400/415), then what it does to the files (plan).
 */

export const CHANGESET_LIMITS = {
  /** Operations in one changeset. */
  maxOperations: 1000,
  /** Characters of a changeset's message. */
  maxMessageLength: 1000,
  /** Content in all (puts), as a multiple of `maxFileBytes`. */
  contentFactor: 4,
} as const;

const MSG = {
  string: 'Input should be a valid string',
  unicode: 'Value error, the text is not well-formed Unicode',
  object: 'Input should be a valid dictionary or object',
  list: 'Input should be a valid list',
  bool: 'Input should be a valid boolean',
  op: "Input should be 'put', 'edit', 'delete' or 'move'",
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

export const ChangesetOperationSchema = v.pipe(
  v.custom<Record<string, unknown>>(isJsonObject, MSG.object),
  v.variant(
    'op',
    [PutOperationSchema, EditOperationSchema, DeleteOperationSchema, MoveOperationSchema],
    MSG.op,
  ),
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

/** One operation, checked: its fields typed, its filenames following the rules. */
export type ChangesetOperation =
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

/**
 * The operation at `index`: its shape (422 under `["body","operations",index]`), then the filename rules
 * of its names (400, or 415 for an extension), as a single upload or move judges them.
 */
export function parseOperation(raw: unknown, index: number): ChangesetOperation {
  const loc = operationLoc(index);
  const result = v.safeParse(ChangesetOperationSchema, raw);
  if (!result.success) {
    const issues: ValidationIssue[] = result.issues.map((found) => {
      const issue = toEditIssue(found);
      // `toEditIssue` places issues under ["body", …path]; the path starts inside the operation.
      const at = [...loc, ...issue.loc.slice(1)];
      const unknownOp = found.type === 'variant' && at.length <= loc.length + 1 && issue.type !== 'missing';
      return unknownOp ? { loc: [...loc, 'op'], msg: MSG.op, type: 'literal_error' } : { ...issue, loc: at };
    });
    throw new InvalidInputError(issues);
  }
  const op = result.output;
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
