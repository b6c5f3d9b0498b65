/**
 * Every failure the core reports is an `MdStoreError` with a stable `code`. Callers branch on `code`,
 * never on messages or classes; the HTTP server maps codes to statuses in one table. No error here
 * knows about HTTP.
 *
 * An error that carries only its message is made from the table of messages below (`mdStoreError`);
 * the few that carry more (validation issues, the current ETag of a 412, the size of a 416, the wait of
 * a 429, the rule of a store conflict) are small subclasses.
 */

/** One problem with the input, in the interface's validation shape. */
export interface ValidationIssue {
  /** Where: e.g. `['body', 'name']` or `['path', 'project_id']`. */
  readonly loc: readonly (string | number)[];
  readonly msg: string;
  readonly type: string;
}

export type ErrorCode =
  // request outcomes the interface names
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'DEFAULT_PROJECT_PROTECTED'
  | 'PROJECT_NOT_FOUND'
  | 'FILE_NOT_FOUND'
  | 'PROJECT_NAME_TAKEN'
  | 'FILENAME_TAKEN'
  | 'CONTENT_TOO_LARGE'
  | 'UNSUPPORTED_EXTENSION'
  /** Input that cannot be read as a request of this operation (the interface's 400 cases). */
  | 'MALFORMED_INPUT'
  /** Input that was read but breaks a field rule (the interface's 422 cases). */
  | 'INVALID_INPUT'
  | 'RATE_LIMITED'
  // conditional requests, ranges and digests (extensions §2)
  | 'PRECONDITION_FAILED'
  | 'PRECONDITION_REQUIRED'
  | 'RANGE_NOT_SATISFIABLE'
  // editing and history (extensions §4, §5)
  /** An edit or section read that cannot apply to the current content: 409 with issues. */
  | 'EDIT_CONFLICT'
  | 'REVISION_NOT_FOUND'
  | 'TRASH_ITEM_NOT_FOUND'
  | 'DIFF_TOO_LARGE'
  /** A file too large to parse whole for its outline within one request's bound: 413. */
  | 'OUTLINE_TOO_LARGE'
  | 'STORAGE_LIMIT_REACHED'
  // administration
  | 'ACCOUNT_NOT_FOUND'
  | 'ACCOUNT_NAME_TAKEN'
  | 'API_KEY_NOT_FOUND'
  // raised by adapters through the ports
  | 'RECORD_CONFLICT'
  | 'BLOB_NOT_FOUND'
  | 'BLOB_TOO_LARGE'
  | 'BUCKET_NOT_FOUND'
  | 'STORE_UNAVAILABLE';

/**
 * The mark of an `MdStoreError`, shared by every copy of this module (`Symbol.for`): an app whose
 * dependencies hold two copies of `@mdstore/core` (an adapter built against another version, a test
 * sandbox) still recognises the errors of the other copy, which `instanceof` would not.
 */
const MDSTORE_ERROR = Symbol.for('@mdstore/core MdStoreError');

export class MdStoreError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    Object.defineProperty(this, MDSTORE_ERROR, { value: true });
  }
}

/** Whether `error` is an error of the core (of any copy of it), with `code` when given: by code, never by class. */
export const isMdStoreError = (error: unknown, code?: ErrorCode): error is MdStoreError =>
  typeof error === 'object' &&
  error !== null &&
  (error as { [MDSTORE_ERROR]?: unknown })[MDSTORE_ERROR] === true &&
  (code === undefined || (error as MdStoreError).code === code);

/** Same as `MdStoreError`, with its code known to the type system. */
export type MdStoreErrorOf<C extends ErrorCode> = MdStoreError & { readonly code: C };

/**
 * The message of every error that carries nothing else, by code. What a message names is its argument;
 * an argument named with `_` is what the error is about, kept for callers although the interface's text
 * does not show it.
 */
const MESSAGES = {
  UNAUTHENTICATED: () => 'Invalid authentication credentials',
  FORBIDDEN: () => 'You do not have permission to access this resource',
  DEFAULT_PROJECT_PROTECTED: () => 'Cannot delete default project',
  PROJECT_NOT_FOUND: (_projectId: string) => 'Project not found',
  FILE_NOT_FOUND: (_filename: string) => 'File not found',
  PROJECT_NAME_TAKEN: (projectName: string) => `Project with name '${projectName}' already exists`,
  FILENAME_TAKEN: (filename: string) => `File with name '${filename}' already exists`,
  CONTENT_TOO_LARGE: (maxBytes: number) => `File too large: the maximum size is ${maxBytes} bytes`,
  UNSUPPORTED_EXTENSION: (_filename: string) => 'Unsupported file type: only .md and .mdx files are accepted',
  PRECONDITION_REQUIRED: () => "Precondition required: send If-Match with the file's ETag",
  REVISION_NOT_FOUND: () => 'Revision not found',
  TRASH_ITEM_NOT_FOUND: () => 'Trash item not found',
  DIFF_TOO_LARGE: () => 'Diff too large',
  OUTLINE_TOO_LARGE: (maxLength: number) =>
    `File too large for an outline: at most ${maxLength} characters are parsed for one; ` +
    'read parts of it with ?lines= or ?section= instead',
  STORAGE_LIMIT_REACHED: () => 'Project storage limit reached',
  ACCOUNT_NOT_FOUND: (account: string) => `Account '${account}' not found`,
  ACCOUNT_NAME_TAKEN: (accountName: string) => `Account with name '${accountName}' already exists`,
  API_KEY_NOT_FOUND: (keyId: string) => `API key '${keyId}' not found or already revoked`,
  BLOB_NOT_FOUND: (_bucket: string, _key: string) => 'Blob not found',
  BLOB_TOO_LARGE: (maxBytes: number) => `Blob larger than ${maxBytes} bytes`,
  BUCKET_NOT_FOUND: (_bucket: string) => 'Bucket not found',
  /** A dependency (database, blob store) failed or timed out; the operation may be retried. */
  STORE_UNAVAILABLE: (message: string) => message,
} as const satisfies { readonly [C in ErrorCode]?: (...args: never[]) => string };

/** The codes whose errors carry only a message (the table above). */
export type MessageErrorCode = keyof typeof MESSAGES;
type MessageArgs<C extends MessageErrorCode> = Parameters<(typeof MESSAGES)[C]>;

/** The error of `code`, its message from the table. */
export function mdStoreError<C extends MessageErrorCode>(
  code: C,
  ...args: MessageArgs<C>
): MdStoreErrorOf<C> {
  const message = (MESSAGES[code] as (...a: MessageArgs<C>) => string)(...args);
  return new MdStoreError(code, message) as MdStoreErrorOf<C>;
}

/**
 * The error of a code from the table under the name its class had: callable with or without `new`, and
 * `instanceof` tells it by code (`isMdStoreError(value, code)`), so code written against the classes
 * keeps working while every such error is one type.
 */
export interface ErrorOfCode<C extends ErrorCode, A extends unknown[]> {
  new (...args: A): MdStoreErrorOf<C>;
  (...args: A): MdStoreErrorOf<C>;
}

function errorOfCode<C extends ErrorCode, A extends unknown[]>(
  code: C,
  make: (...args: A) => MdStoreErrorOf<C>,
): ErrorOfCode<C, A> {
  // A function declaration, not an arrow, so that `new` may call it: it returns the error it made.
  function factory(...args: A) {
    return make(...args);
  }
  Object.defineProperty(factory, Symbol.hasInstance, {
    value: (value: unknown) => isMdStoreError(value, code),
  });
  return factory as unknown as ErrorOfCode<C, A>;
}

const named = <C extends MessageErrorCode>(code: C) =>
  errorOfCode(code, (...args: MessageArgs<C>) => mdStoreError(code, ...args));

export const UnauthenticatedError = named('UNAUTHENTICATED');
export type UnauthenticatedError = MdStoreErrorOf<'UNAUTHENTICATED'>;
export const ForbiddenError = named('FORBIDDEN');
export type ForbiddenError = MdStoreErrorOf<'FORBIDDEN'>;
export const DefaultProjectProtectedError = named('DEFAULT_PROJECT_PROTECTED');
export type DefaultProjectProtectedError = MdStoreErrorOf<'DEFAULT_PROJECT_PROTECTED'>;
export const ProjectNotFoundError = named('PROJECT_NOT_FOUND');
export type ProjectNotFoundError = MdStoreErrorOf<'PROJECT_NOT_FOUND'>;
export const FileNotFoundError = named('FILE_NOT_FOUND');
export type FileNotFoundError = MdStoreErrorOf<'FILE_NOT_FOUND'>;
export const ProjectNameTakenError = named('PROJECT_NAME_TAKEN');
export type ProjectNameTakenError = MdStoreErrorOf<'PROJECT_NAME_TAKEN'>;
export const FilenameTakenError = named('FILENAME_TAKEN');
export type FilenameTakenError = MdStoreErrorOf<'FILENAME_TAKEN'>;
export const ContentTooLargeError = named('CONTENT_TOO_LARGE');
export type ContentTooLargeError = MdStoreErrorOf<'CONTENT_TOO_LARGE'>;
export const UnsupportedExtensionError = named('UNSUPPORTED_EXTENSION');
export type UnsupportedExtensionError = MdStoreErrorOf<'UNSUPPORTED_EXTENSION'>;
export const PreconditionRequiredError = named('PRECONDITION_REQUIRED');
export type PreconditionRequiredError = MdStoreErrorOf<'PRECONDITION_REQUIRED'>;
export const RevisionNotFoundError = named('REVISION_NOT_FOUND');
export type RevisionNotFoundError = MdStoreErrorOf<'REVISION_NOT_FOUND'>;
export const TrashItemNotFoundError = named('TRASH_ITEM_NOT_FOUND');
export type TrashItemNotFoundError = MdStoreErrorOf<'TRASH_ITEM_NOT_FOUND'>;
export const DiffTooLargeError = named('DIFF_TOO_LARGE');
export type DiffTooLargeError = MdStoreErrorOf<'DIFF_TOO_LARGE'>;
export const OutlineTooLargeError = named('OUTLINE_TOO_LARGE');
export type OutlineTooLargeError = MdStoreErrorOf<'OUTLINE_TOO_LARGE'>;
export const StorageLimitReachedError = named('STORAGE_LIMIT_REACHED');
export type StorageLimitReachedError = MdStoreErrorOf<'STORAGE_LIMIT_REACHED'>;
export const AccountNotFoundError = named('ACCOUNT_NOT_FOUND');
export type AccountNotFoundError = MdStoreErrorOf<'ACCOUNT_NOT_FOUND'>;
export const AccountNameTakenError = named('ACCOUNT_NAME_TAKEN');
export type AccountNameTakenError = MdStoreErrorOf<'ACCOUNT_NAME_TAKEN'>;
export const ApiKeyNotFoundError = named('API_KEY_NOT_FOUND');
export type ApiKeyNotFoundError = MdStoreErrorOf<'API_KEY_NOT_FOUND'>;
export const BlobNotFoundError = named('BLOB_NOT_FOUND');
export type BlobNotFoundError = MdStoreErrorOf<'BLOB_NOT_FOUND'>;
export const BlobTooLargeError = named('BLOB_TOO_LARGE');
export type BlobTooLargeError = MdStoreErrorOf<'BLOB_TOO_LARGE'>;
export const BucketNotFoundError = named('BUCKET_NOT_FOUND');
export type BucketNotFoundError = MdStoreErrorOf<'BUCKET_NOT_FOUND'>;
export type StoreUnavailableError = MdStoreErrorOf<'STORE_UNAVAILABLE'>;
/** `STORE_UNAVAILABLE`, with the failure that caused it as `cause`. */
export const StoreUnavailableError = errorOfCode(
  'STORE_UNAVAILABLE',
  (message: string, options?: { cause?: unknown }) =>
    new MdStoreError(
      'STORE_UNAVAILABLE',
      MESSAGES.STORE_UNAVAILABLE(message),
      options,
    ) as MdStoreErrorOf<'STORE_UNAVAILABLE'>,
);

/** Base of the errors whose detail is a list of issues in the interface's validation shape. */
export abstract class InputError extends MdStoreError {
  constructor(
    code: 'MALFORMED_INPUT' | 'INVALID_INPUT' | 'EDIT_CONFLICT',
    readonly issues: readonly ValidationIssue[],
  ) {
    super(code, issues.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; '));
  }
}

export class MalformedInputError extends InputError {
  declare readonly code: 'MALFORMED_INPUT';
  constructor(issues: readonly ValidationIssue[]) {
    super('MALFORMED_INPUT', issues);
  }
}

export class InvalidInputError extends InputError {
  declare readonly code: 'INVALID_INPUT';
  constructor(issues: readonly ValidationIssue[]) {
    super('INVALID_INPUT', issues);
  }
}

/** The content cannot take the edit or section read (match count, missing or ambiguous section): 409. */
export class EditConflictError extends InputError {
  declare readonly code: 'EDIT_CONFLICT';
  constructor(issues: readonly ValidationIssue[]) {
    super('EDIT_CONFLICT', issues);
  }
}

/** A precondition (`If-Match`, `If-None-Match` on a write, `If-Unmodified-Since`) does not hold. */
export class PreconditionFailedError extends MdStoreError {
  declare readonly code: 'PRECONDITION_FAILED';
  /** The resource's current ETag, sent back with the 412. */
  constructor(readonly currentEtag: string | undefined) {
    super('PRECONDITION_FAILED', 'Precondition failed');
  }
}

export class RangeNotSatisfiableError extends MdStoreError {
  declare readonly code: 'RANGE_NOT_SATISFIABLE';
  /** The representation's size, sent back in the 416's `Content-Range`. */
  constructor(readonly sizeBytes: number) {
    super('RANGE_NOT_SATISFIABLE', 'Range not satisfiable');
  }
}

export class RateLimitedError extends MdStoreError {
  declare readonly code: 'RATE_LIMITED';
  /** Sent back as `Retry-After`. */
  constructor(readonly retryAfterSeconds: number) {
    super('RATE_LIMITED', `Rate limit exceeded. Try again in ${retryAfterSeconds} seconds.`);
  }
}

export type UniqueRule = 'account_name' | 'project_name' | 'filename';

/** Thrown by a records adapter when a write breaks a unique rule. */
export class RecordConflictError extends MdStoreError {
  declare readonly code: 'RECORD_CONFLICT';
  constructor(
    readonly rule: UniqueRule,
    options?: { cause?: unknown },
  ) {
    super('RECORD_CONFLICT', `Unique rule '${rule}' violated`, options);
  }
}

/** Whether `error` is a store's unique-rule conflict on `rule` (by code, like `isMdStoreError`). */
export const isRecordConflict = (error: unknown, rule: RecordConflictError['rule']): boolean =>
  isMdStoreError(error, 'RECORD_CONFLICT') && (error as RecordConflictError).rule === rule;
