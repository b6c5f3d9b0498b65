import * as v from 'valibot';
import { InvalidInputError } from '../errors.js';
import { ROLES, type Role } from '../model/records.js';
import { parseInstant } from '../search/filter/dates.js';
import { ISSUE, issueAt, toValidationIssues } from './issues.js';
import { isJsonObject, NameSchema, parseFolderPrefix, UuidSchema } from './schemas.js';
import { compareCodePoints } from './text.js';

/** Extensions §8: the bounds of a key's fields. */
export const KEY_LIMITS = {
  /** Projects one key may be scoped to: a scope is read id by id, so it stays small. */
  maxProjects: 100,
  /**
   * Keys not revoked one account may hold (issue 34): `GET /api/keys` answers at most this many, read
   * with a LIMIT; past it `POST /api/keys` is 409 `COUNT_LIMIT_REACHED`.
   */
  maxActive: 1000,
  /** Folders one key may be scoped to (extensions §14): each list and search walks them one by one. */
  maxPathPrefixes: 20,
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
  path_prefixes: v.optional(
    v.nullable(
      v.pipe(
        v.array(v.string(ISSUE.stringType.msg), 'Input should be a valid list'),
        v.minLength(1, 'List should have at least 1 item after validation'),
        v.maxLength(
          KEY_LIMITS.maxPathPrefixes,
          `List should have at most ${KEY_LIMITS.maxPathPrefixes} items after validation`,
        ),
        v.metadata({
          description:
            'Folders the key reaches (extensions §14), e.g. `["memories/"]`; null or absent: every file of its projects.',
        }),
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
  /** Folders with their closing `/`, none inside another, in code point order; null: every file. */
  readonly pathPrefixes: readonly string[] | null;
  readonly expiresAt: number | null;
}

/**
 * A key's folders as written: each checked (422 at its index), with its closing `/`; repeats and folders
 * inside another of the list dropped; in code point order, so two lists that reach the same files are
 * stored alike.
 */
export function normalisePathPrefixes(
  written: readonly string[],
  loc: readonly (string | number)[],
): string[] {
  const parsed = written.map((prefix, index) => parseFolderPrefix(prefix, [...loc, index]));
  const issues = parsed.flatMap((result) => ('issue' in result ? [result.issue] : []));
  if (issues.length > 0) throw new InvalidInputError(issues);
  const prefixes = [...new Set(parsed.map((result) => (result as { prefix: string }).prefix))].sort(
    compareCodePoints,
  );
  return prefixes.filter((prefix) => !prefixes.some((other) => other !== prefix && prefix.startsWith(other)));
}

/** Create Key body: every problem is 422 at its field; `expires_date` must be later than `now`. */
export function parseCreateKeyBody(body: unknown, now: number): CreateKeyInput {
  if (!isJsonObject(body)) throw new InvalidInputError([issueAt(['body'], 'objectType')]);
  const missing = (['name', 'role'] as const).filter((field) => !(field in body));
  if (missing.length > 0)
    throw new InvalidInputError(missing.map((field) => issueAt(['body', field], 'missing')));
  const result = v.safeParse(CreateKeyBodySchema, body, { abortPipeEarly: true });
  if (!result.success) throw new InvalidInputError(toValidationIssues(result.issues, ['body']));
  const { name, role, project_ids, path_prefixes, expires_date } = result.output;
  const expiresAt = expires_date === null ? null : Math.floor(parseInstant(expires_date)!);
  if (expiresAt !== null && expiresAt <= now) {
    throw new InvalidInputError([
      { loc: ['body', 'expires_date'], msg: FUTURE_MESSAGE, type: 'value_error' },
    ]);
  }
  return {
    name,
    role,
    projectIds: project_ids === null ? null : [...new Set(project_ids)],
    pathPrefixes:
      path_prefixes === null ? null : normalisePathPrefixes(path_prefixes, ['body', 'path_prefixes']),
    expiresAt,
  };
}
