import * as v from 'valibot';
import { InvalidInputError, type ValidationIssue } from '../errors.js';
import { ISSUE, issueAt } from '../validation/issues.js';
import { isJsonObject } from '../validation/schemas.js';
import { isWellFormedUnicode } from '../validation/text.js';
import type { MarkdownEdit } from './edits.js';

/**
 * The PATCH body `{"edits": [EDIT, …], "dry_run": false}` (extensions §4). Every problem is a 422 issue
 * under `["body", …]`, all of them reported at once. Unknown fields are refused (`extra_forbidden`),
 * in the body and in each edit, unlike the project bodies that ignore them: a misspelt `"sectoin"` or
 * `"dryrun"` must not turn into an edit of the whole file or a real write.
 */

export const MAX_EDITS = 100;

const EDIT_ISSUE = {
  listType: { type: 'list_type', msg: 'Input should be a valid list' },
  tooFewEdits: { type: 'too_short', msg: 'List should have at least 1 item after validation, not 0' },
  tooManyEdits: { type: 'too_long', msg: `List should have at most ${MAX_EDITS} items after validation` },
  unknownOp: {
    type: 'literal_error',
    msg: "Input should be 'replace', 'append', 'prepend', 'replace_section' or 'insert'",
  },
  count: { type: 'value_error', msg: 'Value error, count must be a positive integer or "all"' },
  section: {
    type: 'value_error',
    msg: 'Value error, section must be a heading text or a non-empty array of heading texts',
  },
  intType: { type: 'int_type', msg: 'Input should be a valid integer' },
  lineTooSmall: { type: 'greater_than_equal', msg: 'Input should be greater than or equal to 1' },
  boolType: { type: 'bool_type', msg: 'Input should be a valid boolean' },
  extra: { type: 'extra_forbidden', msg: 'Extra inputs are not permitted' },
} as const satisfies Record<string, Omit<ValidationIssue, 'loc'>>;

const KNOWN = [
  ...Object.values(EDIT_ISSUE),
  ISSUE.stringType,
  ISSUE.tooShort,
  ISSUE.notUnicode,
  ISSUE.objectType,
];

const Text = v.pipe(v.string(ISSUE.stringType.msg), v.check(isWellFormedUnicode, ISSUE.notUnicode.msg));

const HeadingText = v.pipe(
  v.string(EDIT_ISSUE.section.msg),
  v.check(isWellFormedUnicode, ISSUE.notUnicode.msg),
);

export const HeadingPathSchema = v.union(
  [HeadingText, v.pipe(v.array(HeadingText, EDIT_ISSUE.section.msg), v.minLength(1, EDIT_ISSUE.section.msg))],
  EDIT_ISSUE.section.msg,
);

const Count = v.union(
  [
    v.pipe(
      v.number(EDIT_ISSUE.count.msg),
      v.safeInteger(EDIT_ISSUE.count.msg),
      v.minValue(1, EDIT_ISSUE.count.msg),
    ),
    v.literal('all', EDIT_ISSUE.count.msg),
  ],
  EDIT_ISSUE.count.msg,
);

const Line = v.pipe(
  v.number(EDIT_ISSUE.intType.msg),
  v.safeInteger(EDIT_ISSUE.intType.msg),
  v.minValue(1, EDIT_ISSUE.lineTooSmall.msg),
);

const OBJECT = ISSUE.objectType.msg;

export const EditSchema = v.pipe(
  v.custom<Record<string, unknown>>(isJsonObject, OBJECT),
  v.variant(
    'op',
    [
      v.strictObject(
        {
          op: v.literal('replace'),
          old: v.pipe(Text, v.minLength(1, ISSUE.tooShort.msg)),
          new: Text,
          count: v.optional(Count, 1),
        },
        OBJECT,
      ),
      v.strictObject(
        { op: v.picklist(['append', 'prepend']), text: Text, section: v.optional(HeadingPathSchema) },
        OBJECT,
      ),
      v.strictObject({ op: v.literal('replace_section'), section: HeadingPathSchema, text: Text }, OBJECT),
      v.strictObject({ op: v.literal('insert'), line: Line, text: Text }, OBJECT),
    ],
    EDIT_ISSUE.unknownOp.msg,
  ),
);

export const EditRequestSchema = v.strictObject(
  {
    edits: v.pipe(
      v.array(EditSchema, EDIT_ISSUE.listType.msg),
      v.minLength(1, EDIT_ISSUE.tooFewEdits.msg),
      v.maxLength(MAX_EDITS, EDIT_ISSUE.tooManyEdits.msg),
    ),
    dry_run: v.optional(v.boolean(EDIT_ISSUE.boolType.msg), false),
  },
  OBJECT,
);

export interface EditRequest {
  readonly edits: MarkdownEdit[];
  readonly dryRun: boolean;
}

/** Reads a PATCH body; every problem is an `InvalidInputError` (422) listing all issues. */
export function parseEditRequest(body: unknown): EditRequest {
  if (!isJsonObject(body)) throw new InvalidInputError([issueAt(['body'], 'objectType')]);
  const result = v.safeParse(EditRequestSchema, body);
  if (!result.success) throw new InvalidInputError(result.issues.map(toEditIssue));
  return { edits: result.output.edits.map(toEdit), dryRun: result.output.dry_run };
}

export type ParsedEdit = v.InferOutput<typeof EditSchema>;

export function toEdit(edit: ParsedEdit): MarkdownEdit {
  switch (edit.op) {
    case 'replace':
      return { op: 'replace', old: edit.old, new: edit.new, count: edit.count };
    case 'insert':
      return { op: 'insert', line: edit.line, text: edit.text };
    case 'replace_section':
      return { op: 'replace_section', section: edit.section, text: edit.text };
    default:
      return edit.section === undefined
        ? { op: edit.op, text: edit.text }
        : { op: edit.op, text: edit.text, section: edit.section };
  }
}

/** Valibot's issue in the interface's shape; object-level issues say which key is missing or extra. */
export function toEditIssue(found: v.BaseIssue<unknown>): ValidationIssue {
  const loc = ['body', ...(found.path ?? []).map((item) => item.key as string | number)];
  const at = (entry: Omit<ValidationIssue, 'loc'>): ValidationIssue => ({
    loc,
    msg: entry.msg,
    type: entry.type,
  });
  if (found.type === 'strict_object') {
    if (found.expected === 'never') return at(EDIT_ISSUE.extra);
    if (found.received === 'undefined') return at(ISSUE.missing);
  }
  if (found.type === 'variant')
    return at(found.received === 'undefined' ? ISSUE.missing : EDIT_ISSUE.unknownOp);
  const known = KNOWN.find((entry) => entry.msg === found.message);
  return known ? at(known) : at({ msg: found.message, type: found.type });
}
