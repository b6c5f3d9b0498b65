import * as v from 'valibot';
import { HISTORY_LIMITS } from '../defaults/history.js';
import { InvalidInputError, type ValidationIssue } from '../errors.js';
import { issueAt, toValidationIssues } from './issues.js';
import { checkUploadFilename, isJsonObject, type JsonObject, UuidSchema } from './schemas.js';

/**
 * The inputs of the history endpoints (extensions §5): query and path values as sent (strings), and
 * the JSON bodies of restore, move and copy. Query problems are 422 at `["query", NAME]`.
 */

type Loc = readonly (string | number)[];

const invalid = (loc: Loc, msg: string, type = 'value_error'): InvalidInputError =>
  new InvalidInputError([{ loc, msg, type } satisfies ValidationIssue]);

const DECIMAL = /^[0-9]{1,15}$/;
const REVISION_MAX_MSG = `Input should be less than or equal to ${HISTORY_LIMITS.revisionMax}`;

/** A positive revision number written in decimal (a query or path value). */
export function parseRevisionParam(raw: string | undefined, loc: Loc): number {
  if (raw === undefined || raw === '') throw new InvalidInputError([issueAt(loc, 'missing')]);
  const value = DECIMAL.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1)
    throw invalid(loc, 'Input should be a valid integer greater than or equal to 1', 'int_parsing');
  if (value > HISTORY_LIMITS.revisionMax) throw invalid(loc, REVISION_MAX_MSG, 'less_than_equal');
  return value;
}

/** `limit` of the revision list: 1 to `revisionsPageMax`, `revisionsPageDefault` when absent. */
export function parseRevisionsLimit(raw: string | undefined): number {
  return parsePageLimit(raw, {
    fallback: HISTORY_LIMITS.revisionsPageDefault,
    max: HISTORY_LIMITS.revisionsPageMax,
  });
}

/** `limit` of a page: 1 to `max`, `fallback` when absent (422 at `["query","limit"]` otherwise). */
export function parsePageLimit(raw: string | undefined, o: { fallback: number; max: number }): number {
  if (raw === undefined) return o.fallback;
  const loc = ['query', 'limit'];
  const value = DECIMAL.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value)) throw invalid(loc, 'Input should be a valid integer', 'int_parsing');
  if (value < 1) throw invalid(loc, 'Input should be greater than or equal to 1', 'greater_than_equal');
  if (value > o.max) {
    throw invalid(loc, `Input should be less than or equal to ${o.max}`, 'less_than_equal');
  }
  return value;
}

function requireObject(body: unknown): JsonObject {
  if (!isJsonObject(body)) throw new InvalidInputError([issueAt(['body'], 'objectType')]);
  return body;
}

/** A revision number in a JSON body: an integer from 1 to `HISTORY_LIMITS.revisionMax`. */
export const RevisionSchema = v.pipe(
  v.number('Input should be a valid integer'),
  v.integer('Input should be a valid integer'),
  v.minValue(1, 'Input should be greater than or equal to 1'),
  v.maxValue(HISTORY_LIMITS.revisionMax, REVISION_MAX_MSG),
);

/** Restore body `{"revision": n}`: a missing or wrong `revision` is 422. */
export function parseRestoreBody(body: unknown): { revision: number } {
  const object = requireObject(body);
  const loc = ['body', 'revision'];
  if (!('revision' in object)) throw new InvalidInputError([issueAt(loc, 'missing')]);
  const result = v.safeParse(RevisionSchema, object.revision, { abortPipeEarly: true });
  if (!result.success) throw new InvalidInputError(toValidationIssues(result.issues, loc));
  return { revision: result.output };
}

/** The rules a move's or copy's `to` follows: a file's name (400, or 415) unless told otherwise. */
type TargetRules = (name: string, loc: Loc) => void;

/** `to` of a move or copy: a string (else 422) following `rules` (the filename rules by default). */
function parseTarget(object: JsonObject, rules: TargetRules = checkUploadFilename): string {
  const loc = ['body', 'to'];
  if (!('to' in object)) throw new InvalidInputError([issueAt(loc, 'missing')]);
  if (typeof object.to !== 'string') throw new InvalidInputError([issueAt(loc, 'stringType')]);
  rules(object.to, loc);
  return object.to;
}

/**
 * Move body `{"to": "new.md", "rewrite_links"?: bool, "dry_run"?: bool}` (extensions §5, §9); an
 * attachment's move (extensions §12) holds `to` to the attachment path rules instead (`rules`).
 */
export function parseMoveBody(
  body: unknown,
  rules?: TargetRules,
): { to: string; rewriteLinks: boolean; dryRun: boolean } {
  const object = requireObject(body);
  return {
    to: parseTarget(object, rules),
    rewriteLinks: optionalBoolean(object, 'rewrite_links'),
    dryRun: optionalBoolean(object, 'dry_run'),
  };
}

function optionalBoolean(object: JsonObject, name: string): boolean {
  const value = object[name];
  if (value === undefined) return false;
  if (typeof value !== 'boolean')
    throw invalid(['body', name], 'Input should be a valid boolean', 'bool_type');
  return value;
}

/** Copy body `{"to": "…", "project_id"?: "…"}`; `project_id` absent or null means this project. */
export function parseCopyBody(body: unknown): { to: string; projectId: string | null } {
  const object = requireObject(body);
  const to = parseTarget(object);
  if (object.project_id === undefined || object.project_id === null) return { to, projectId: null };
  const result = v.safeParse(UuidSchema, object.project_id);
  if (!result.success) throw new InvalidInputError(toValidationIssues(result.issues, ['body', 'project_id']));
  return { to, projectId: result.output };
}
