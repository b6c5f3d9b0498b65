import type * as v from 'valibot';
import type { ValidationIssue } from '../errors.js';

/**
 * Issue types and messages follow the interface's validation shape (`loc`/`msg`/`type`), with the
 * vocabulary a client of a pydantic-style API already knows.
 */
export const ISSUE = {
  missing: { type: 'missing', msg: 'Field required' },
  stringType: { type: 'string_type', msg: 'Input should be a valid string' },
  objectType: { type: 'model_attributes_type', msg: 'Input should be a valid dictionary or object' },
  dictType: { type: 'dict_type', msg: 'Input should be a valid dictionary' },
  tooShort: { type: 'string_too_short', msg: 'String should have at least 1 character' },
  tooLong: { type: 'string_too_long', msg: 'String should have at most 255 characters' },
  blank: { type: 'value_error', msg: 'Value error, must not be empty or whitespace-only' },
  controlChars: { type: 'value_error', msg: 'Value error, must not contain control characters' },
  notUnicode: { type: 'value_error', msg: 'Value error, must be valid Unicode text' },
  /** Text no store can hold (Postgres refuses U+0000 in text): a description, a path or query value. */
  nulChar: { type: 'value_error', msg: 'Value error, must not contain the character U+0000' },
  uuid: { type: 'uuid_parsing', msg: 'Input should be a valid UUID' },
  jsonInvalid: { type: 'json_invalid', msg: 'JSON decode error' },
  noFieldGiven: { type: 'missing', msg: 'At least one of name or description must be provided' },
  metadataTooLarge: { type: 'value_error', msg: 'Value error, metadata must be at most 65536 bytes as JSON' },
  metadataTooDeep: {
    type: 'value_error',
    msg: 'Value error, metadata must be nested at most 32 levels deep',
  },
  filenameLength: {
    type: 'value_error',
    msg: 'Value error, filename must be 1 to 1024 bytes of UTF-8, each folder or name 1 to 255',
  },
  filenameChars: {
    type: 'value_error',
    msg: 'Value error, filename must not contain \\ or control characters',
  },
  filenameSegment: {
    type: 'value_error',
    msg: 'Value error, filename must not start or end with /, or have an empty, . or .. folder',
  },
  filenameFolder: {
    type: 'value_error',
    msg: 'Value error, a folder name must not end in .md or .mdx',
  },
  filenameStem: { type: 'value_error', msg: 'Value error, filename must have a name before its extension' },
  fileMissing: { type: 'missing', msg: 'Field required: a file part named "file"' },
  fileRepeated: { type: 'value_error', msg: 'Value error, exactly one file part is allowed' },
  contentEmpty: { type: 'value_error', msg: 'Value error, content must not be empty' },
  contentNotUtf8: { type: 'value_error', msg: 'Value error, content must be valid UTF-8 text' },
} as const satisfies Record<string, Omit<ValidationIssue, 'loc'>>;

export type IssueKind = keyof typeof ISSUE;

/** Members in the order the interface shows them: `loc`, `msg`, `type`. */
const issue = (loc: readonly (string | number)[], entry: Omit<ValidationIssue, 'loc'>): ValidationIssue => ({
  loc,
  msg: entry.msg,
  type: entry.type,
});

export const issueAt = (loc: readonly (string | number)[], kind: IssueKind): ValidationIssue =>
  issue(loc, ISSUE[kind]);

/** Valibot's names of the checks the schemas use, as the pydantic-style vocabulary of the API names them. */
const TYPE_NAMES: Readonly<Record<string, string>> = {
  boolean: 'bool_type',
  number: 'int_type',
  integer: 'int_type',
  min_value: 'greater_than_equal',
  max_value: 'less_than_equal',
};

/** Valibot reports its own issue types; this turns them into interface issues under `prefix`. */
export function toValidationIssues(
  issues: readonly v.BaseIssue<unknown>[],
  prefix: readonly (string | number)[],
): ValidationIssue[] {
  return issues.map((found) => {
    const path = (found.path ?? []).map((item) => item.key as string | number);
    const known = Object.values(ISSUE).find((entry) => entry.msg === found.message);
    const loc = [...prefix, ...path];
    if (known) return issue(loc, known);
    if (found.type === 'string') return issue(loc, ISSUE.stringType);
    if (found.type === 'object' || found.type === 'loose_object') return issue(loc, ISSUE.objectType);
    return issue(loc, { msg: found.message, type: TYPE_NAMES[found.type] ?? found.type });
  });
}
