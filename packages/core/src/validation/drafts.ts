import * as v from 'valibot';
import { DRAFT_LIMITS } from '../defaults/drafts.js';
import { InvalidInputError } from '../errors.js';
import { DRAFT_STATES, type DraftState, type DraftVerdict } from '../model/records.js';
import { issueAt, toValidationIssues } from './issues.js';
import { isJsonObject } from './schemas.js';
import { isWellFormedUnicode } from './text.js';

/**
 * The bodies and queries of drafts (extensions §13). Operations are §9's, each judged when its turn
 * comes (`parseOperation`), so here they are only a bounded list.
 */

const UNICODE = 'Value error, the text is not well-formed Unicode';
const text = (max: number) =>
  v.pipe(
    v.string('Input should be a valid string'),
    v.check(isWellFormedUnicode, UNICODE),
    v.check((s) => !s.includes('\u0000'), 'Value error, must not contain the character U+0000'),
    v.maxLength(max, `String should have at most ${max} characters`),
  );

const Operations = v.pipe(
  v.array(v.unknown(), 'Input should be a valid list'),
  v.maxLength(
    DRAFT_LIMITS.maxOperationsPerRequest,
    `List should have at most ${DRAFT_LIMITS.maxOperationsPerRequest} items after validation`,
  ),
);

export const CreateDraftBodySchema = v.strictObject(
  {
    title: v.pipe(
      text(DRAFT_LIMITS.titleMaxLength),
      v.minLength(1, 'String should have at least 1 character'),
    ),
    description: v.optional(v.nullable(text(DRAFT_LIMITS.descriptionMaxLength))),
    operations: v.optional(Operations),
  },
  'Input should be a valid dictionary or object',
);

export const AddDraftOperationsBodySchema = v.strictObject(
  {
    operations: v.pipe(
      Operations,
      v.minLength(1, 'List should have at least 1 item after validation, not 0'),
    ),
  },
  'Input should be a valid dictionary or object',
);

export const DraftReviewBodySchema = v.strictObject(
  {
    verdict: v.picklist(['approve', 'request_changes'], "Input should be 'approve' or 'request_changes'"),
    comment: v.optional(text(DRAFT_LIMITS.commentMaxLength), ''),
  },
  'Input should be a valid dictionary or object',
);

function parsed<S extends v.GenericSchema>(schema: S, body: unknown): v.InferOutput<S> {
  if (!isJsonObject(body)) throw new InvalidInputError([issueAt(['body'], 'objectType')]);
  const result = v.safeParse(schema, body, { abortPipeEarly: true });
  if (!result.success) throw new InvalidInputError(toValidationIssues(result.issues, ['body']));
  return result.output;
}

export interface CreateDraftInput {
  readonly title: string;
  readonly description: string | null;
  readonly operations: readonly unknown[];
}

export function parseCreateDraftBody(body: unknown): CreateDraftInput {
  const out = parsed(CreateDraftBodySchema, body);
  return { title: out.title, description: out.description ?? null, operations: out.operations ?? [] };
}

export function parseAddDraftOperationsBody(body: unknown): readonly unknown[] {
  return parsed(AddDraftOperationsBodySchema, body).operations;
}

export function parseDraftReviewBody(body: unknown): { verdict: DraftVerdict; comment: string } {
  const out = parsed(DraftReviewBodySchema, body);
  return { verdict: out.verdict, comment: out.comment };
}

/** `?state=` of the drafts list: absent (every state) or one of them (422 otherwise). */
export function parseDraftStateQuery(state: unknown): DraftState | undefined {
  if (state === undefined) return undefined;
  if (typeof state === 'string' && (DRAFT_STATES as readonly string[]).includes(state))
    return state as DraftState;
  throw new InvalidInputError([
    {
      loc: ['query', 'state'],
      msg: "Input should be 'open', 'published' or 'closed'",
      type: 'literal_error',
    },
  ]);
}
