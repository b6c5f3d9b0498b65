import * as v from 'valibot';
import { InvalidInputError } from '../errors.js';
import { ISSUE, issueAt, toValidationIssues } from './issues.js';
import { isJsonObject } from './schemas.js';

/** Extensions §11: how long a share link may live, in seconds. */
export const SHARE_LIMITS = {
  minSeconds: 60,
  maxSeconds: 2_592_000,
  defaultSeconds: 604_800,
  /** A path of a share's folder or file, in UTF-8 bytes (a filename's bound). */
  maxPathBytes: 1024,
  /**
   * Live shares (neither revoked nor expired) of one project (issue 34): the listing reads at most this
   * many, with a LIMIT; past it `POST …/shares` is 409 `COUNT_LIMIT_REACHED`.
   */
  maxLivePerProject: 1000,
} as const;

const PathSchema = v.pipe(
  v.string(ISSUE.stringType.msg),
  v.minLength(1, ISSUE.tooShort.msg),
  v.check(
    (path) => new TextEncoder().encode(path).byteLength <= SHARE_LIMITS.maxPathBytes,
    `Value error, at most ${SHARE_LIMITS.maxPathBytes} bytes of UTF-8`,
  ),
);

/** Create Share body, as parsed and as documented. */
export const CreateShareBodySchema = v.looseObject({
  filename: v.optional(PathSchema),
  prefix: v.optional(
    v.pipe(
      PathSchema,
      v.check(
        (prefix) => prefix.endsWith('/') && !prefix.startsWith('/'),
        'Value error, a folder ending with /',
      ),
    ),
  ),
  expires_in_seconds: v.optional(
    v.pipe(
      v.number('Input should be a valid integer'),
      v.integer('Input should be a valid integer'),
      v.minValue(
        SHARE_LIMITS.minSeconds,
        `Input should be greater than or equal to ${SHARE_LIMITS.minSeconds}`,
      ),
      v.maxValue(SHARE_LIMITS.maxSeconds, `Input should be less than or equal to ${SHARE_LIMITS.maxSeconds}`),
    ),
    SHARE_LIMITS.defaultSeconds,
  ),
});

export type CreateShareInput =
  | { readonly filename: string; readonly prefix: null; readonly expiresInSeconds: number }
  | { readonly filename: null; readonly prefix: string; readonly expiresInSeconds: number };

const ONE_OF = 'Value error, give exactly one of filename and prefix';

/** Create Share body: every problem is 422 at its field; exactly one of `filename` and `prefix`. */
export function parseCreateShareBody(body: unknown): CreateShareInput {
  if (!isJsonObject(body)) throw new InvalidInputError([issueAt(['body'], 'objectType')]);
  const result = v.safeParse(CreateShareBodySchema, body, { abortPipeEarly: true });
  if (!result.success) throw new InvalidInputError(toValidationIssues(result.issues, ['body']));
  const { filename, prefix, expires_in_seconds: expiresInSeconds } = result.output;
  if ((filename === undefined) === (prefix === undefined)) {
    throw new InvalidInputError([{ loc: ['body'], msg: ONE_OF, type: 'value_error' }]);
  }
  return filename !== undefined
    ? { filename, prefix: null, expiresInSeconds }
    : { filename: null, prefix: prefix!, expiresInSeconds };
}
