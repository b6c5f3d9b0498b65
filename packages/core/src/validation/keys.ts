import * as v from 'valibot';
import { InvalidInputError } from '../errors.js';
import { ROLES, type Role } from '../model/records.js';
import { parseInstant } from '../search/filter/dates.js';
import { ISSUE, issueAt, toValidationIssues } from './issues.js';
import { isJsonObject, NameSchema, UuidSchema } from './schemas.js';

/** Extensions §8: the bounds of a key's fields. */
export const KEY_LIMITS = {
  /** Projects one key may be scoped to: a scope is read id by id, so it stays small. */
  maxProjects: 100,
  /**
   * Keys not revoked one account may hold (issue 34): `GET /api/keys` answers at most this many, read
   * with a LIMIT; past it `POST /api/keys` is 409 `COUNT_LIMIT_REACHED`.
   */
  maxActive: 1000,
} as const;

const ROLE_MESSAGE = "Input should be 'read', 'propose', 'write' or 'admin'";
const DATE_MESSAGE = 'Input should be a valid datetime (ISO 8601)';
const FUTURE_MESSAGE = 'Value error, expires_date must be in the future';

export const RoleSchema = v.picklist(ROLES, ROLE_MESSAGE);

/** Create Key body, as parsed and as documented. */
export const CreateKeyBodySchema = v.looseObject({
  name: NameSchema,
  role: RoleSchema,
  project_ids: v.optional(
    v.nullable(
      v.pipe(
        v.array(UuidSchema, 'Input should be a valid list'),
        v.maxLength(
          KEY_LIMITS.maxProjects,
          `List should have at most ${KEY_LIMITS.maxProjects} items after validation`,
        ),
      ),
    ),
    null,
  ),
  expires_date: v.optional(
    v.nullable(
      v.pipe(
        v.string(ISSUE.stringType.msg),
        v.check((text) => parseInstant(text) !== undefined, DATE_MESSAGE),
        v.metadata({ format: 'date-time' }),
      ),
    ),
    null,
  ),
});

export interface CreateKeyInput {
  readonly name: string;
  readonly role: Role;
  /** Without repeats, in the order given; null: every project of the account. */
  readonly projectIds: readonly string[] | null;
  readonly expiresAt: number | null;
}

/** Create Key body: every problem is 422 at its field; `expires_date` must be later than `now`. */
export function parseCreateKeyBody(body: unknown, now: number): CreateKeyInput {
  if (!isJsonObject(body)) throw new InvalidInputError([issueAt(['body'], 'objectType')]);
  const missing = (['name', 'role'] as const).filter((field) => !(field in body));
  if (missing.length > 0)
    throw new InvalidInputError(missing.map((field) => issueAt(['body', field], 'missing')));
  const result = v.safeParse(CreateKeyBodySchema, body, { abortPipeEarly: true });
  if (!result.success) throw new InvalidInputError(toValidationIssues(result.issues, ['body']));
  const { name, role, project_ids, expires_date } = result.output;
  const expiresAt = expires_date === null ? null : Math.floor(parseInstant(expires_date)!);
  if (expiresAt !== null && expiresAt <= now) {
    throw new InvalidInputError([
      { loc: ['body', 'expires_date'], msg: FUTURE_MESSAGE, type: 'value_error' },
    ]);
  }
  return { name, role, projectIds: project_ids === null ? null : [...new Set(project_ids)], expiresAt };
}
