import * as v from 'valibot';
import { InvalidInputError } from '../errors.js';
import { parseInstant } from '../search/filter/dates.js';
import { CHANGESET_LIMITS } from './changesets.js';
import { ISSUE, issueAt, toValidationIssues } from './issues.js';
import { isJsonObject } from './schemas.js';

/**
 * A project as it was (extensions §16): the body of `POST /api/projects/{id}/restore` and its bounds.
 */
export const RESTORE_LIMITS = {
  /** Files and trash items a restore examines at most (each read with its revisions): past it 413. */
  maxFiles: 10_000,
  /** Revision rows a restore reads at most, all files together: past it 413. */
  maxRevisionsRead: 100_000,
  /** Files a restore may create, change or delete in its one changeset: past it, 413 (a dry run says so). */
  maxChanges: CHANGESET_LIMITS.maxOperations,
  /** Entries of each list of the answer (created, changed, deleted, unrecoverable); the counts are exact. */
  maxListed: 1000,
} as const;

const DATE_MESSAGE = 'Input should be a valid datetime (ISO 8601)';

export const ProjectAsOfRequestSchema = v.strictObject(
  {
    as_of: v.pipe(
      v.string(ISSUE.stringType.msg),
      v.check((text) => parseInstant(text) !== undefined, DATE_MESSAGE),
      v.metadata({ format: 'date-time' }),
      v.description('The time the files are brought back to (ISO 8601; no zone means UTC).'),
    ),
    dry_run: v.optional(
      v.pipe(
        v.boolean('Input should be a valid boolean'),
        v.description('true: answer what would be created, changed and deleted, write nothing.'),
      ),
      false,
    ),
  },
  'Input should be a valid dictionary or object',
);

export interface ProjectAsOfRequest {
  /** Epoch milliseconds (whole: a fraction of a millisecond is dropped). */
  readonly asOf: number;
  readonly dryRun: boolean;
}

/**
 * The body, judged against the project: 422 at `["body","as_of"]` for a time that is not a date-time,
 * in the future (after `now`), or before the project was created (there was nothing to restore).
 */
export function parseRestoreBody(body: unknown, o: { now: number; createdAt: number }): ProjectAsOfRequest {
  if (!isJsonObject(body)) throw new InvalidInputError([issueAt(['body'], 'objectType')]);
  if (!('as_of' in body)) throw new InvalidInputError([issueAt(['body', 'as_of'], 'missing')]);
  const result = v.safeParse(ProjectAsOfRequestSchema, body, { abortPipeEarly: true });
  if (!result.success) throw new InvalidInputError(toValidationIssues(result.issues, ['body']));
  const asOf = Math.floor(parseInstant(result.output.as_of)!);
  const loc = ['body', 'as_of'];
  if (asOf > o.now) {
    throw new InvalidInputError([{ loc, msg: 'Value error, as_of is in the future', type: 'value_error' }]);
  }
  if (asOf < o.createdAt) {
    throw new InvalidInputError([
      { loc, msg: 'Value error, as_of is before the project was created', type: 'value_error' },
    ]);
  }
  return { asOf, dryRun: result.output.dry_run };
}
