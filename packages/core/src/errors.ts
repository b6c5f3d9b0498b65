/**
 * Every failure the core reports is an `MdStoreError` with a stable `code`. Callers branch on `code`,
 * never on messages or classes; the HTTP server maps codes to statuses in one table. No error here
 * knows about HTTP.
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
  // access (extensions §8)
  /** The key is valid but its role (or project scope, for project creation) does not cover the operation. */
  | 'OPERATION_NOT_ALLOWED'
  /** The key is past its `expires_date`. */
  | 'API_KEY_EXPIRED'
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

export class UnauthenticatedError extends MdStoreError {
  declare readonly code: 'UNAUTHENTICATED';
  constructor() {
    super('UNAUTHENTICATED', 'Invalid authentication credentials');
  }
}

export class ForbiddenError extends MdStoreError {
  declare readonly code: 'FORBIDDEN';
  constructor() {
    super('FORBIDDEN', 'You do not have permission to access this resource');
  }
}

export class OperationNotAllowedError extends MdStoreError {
  declare readonly code: 'OPERATION_NOT_ALLOWED';
  constructor() {
    super('OPERATION_NOT_ALLOWED', 'API key does not allow this operation');
  }
}

export class ApiKeyExpiredError extends MdStoreError {
  declare readonly code: 'API_KEY_EXPIRED';
  constructor() {
    super('API_KEY_EXPIRED', 'API key expired');
  }
}

export class DefaultProjectProtectedError extends MdStoreError {
  declare readonly code: 'DEFAULT_PROJECT_PROTECTED';
  constructor() {
    super('DEFAULT_PROJECT_PROTECTED', 'Cannot delete default project');
  }
}

export class ProjectNotFoundError extends MdStoreError {
  declare readonly code: 'PROJECT_NOT_FOUND';
  constructor(readonly projectId: string) {
    super('PROJECT_NOT_FOUND', 'Project not found');
  }
}

export class FileNotFoundError extends MdStoreError {
  declare readonly code: 'FILE_NOT_FOUND';
  constructor(readonly filename: string) {
    super('FILE_NOT_FOUND', 'File not found');
  }
}

export class ProjectNameTakenError extends MdStoreError {
  declare readonly code: 'PROJECT_NAME_TAKEN';
  constructor(readonly projectName: string) {
    super('PROJECT_NAME_TAKEN', `Project with name '${projectName}' already exists`);
  }
}

export class FilenameTakenError extends MdStoreError {
  declare readonly code: 'FILENAME_TAKEN';
  constructor(readonly filename: string) {
    super('FILENAME_TAKEN', `File with name '${filename}' already exists`);
  }
}

export class ContentTooLargeError extends MdStoreError {
  declare readonly code: 'CONTENT_TOO_LARGE';
  constructor(readonly maxBytes: number) {
    super('CONTENT_TOO_LARGE', `File too large: the maximum size is ${maxBytes} bytes`);
  }
}

export class UnsupportedExtensionError extends MdStoreError {
  declare readonly code: 'UNSUPPORTED_EXTENSION';
  constructor(readonly filename: string) {
    super('UNSUPPORTED_EXTENSION', 'Unsupported file type: only .md and .mdx files are accepted');
  }
}

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

/** The project requires `If-Match` on writes to existing files and the request has none. */
export class PreconditionRequiredError extends MdStoreError {
  declare readonly code: 'PRECONDITION_REQUIRED';
  constructor() {
    super('PRECONDITION_REQUIRED', "Precondition required: send If-Match with the file's ETag");
  }
}

export class RangeNotSatisfiableError extends MdStoreError {
  declare readonly code: 'RANGE_NOT_SATISFIABLE';
  constructor(readonly sizeBytes: number) {
    super('RANGE_NOT_SATISFIABLE', 'Range not satisfiable');
  }
}

export class RevisionNotFoundError extends MdStoreError {
  declare readonly code: 'REVISION_NOT_FOUND';
  constructor() {
    super('REVISION_NOT_FOUND', 'Revision not found');
  }
}

export class TrashItemNotFoundError extends MdStoreError {
  declare readonly code: 'TRASH_ITEM_NOT_FOUND';
  constructor() {
    super('TRASH_ITEM_NOT_FOUND', 'Trash item not found');
  }
}

export class DiffTooLargeError extends MdStoreError {
  declare readonly code: 'DIFF_TOO_LARGE';
  constructor() {
    super('DIFF_TOO_LARGE', 'Diff too large');
  }
}

export class OutlineTooLargeError extends MdStoreError {
  declare readonly code: 'OUTLINE_TOO_LARGE';
  constructor(readonly maxLength: number) {
    super(
      'OUTLINE_TOO_LARGE',
      `File too large for an outline: at most ${maxLength} characters are parsed for one; ` +
        'read parts of it with ?lines= or ?section= instead',
    );
  }
}

export class StorageLimitReachedError extends MdStoreError {
  declare readonly code: 'STORAGE_LIMIT_REACHED';
  constructor() {
    super('STORAGE_LIMIT_REACHED', 'Project storage limit reached');
  }
}

export class RateLimitedError extends MdStoreError {
  declare readonly code: 'RATE_LIMITED';
  constructor(readonly retryAfterSeconds: number) {
    super('RATE_LIMITED', `Rate limit exceeded. Try again in ${retryAfterSeconds} seconds.`);
  }
}

export class AccountNotFoundError extends MdStoreError {
  declare readonly code: 'ACCOUNT_NOT_FOUND';
  constructor(readonly account: string) {
    super('ACCOUNT_NOT_FOUND', `Account '${account}' not found`);
  }
}

export class AccountNameTakenError extends MdStoreError {
  declare readonly code: 'ACCOUNT_NAME_TAKEN';
  constructor(readonly accountName: string) {
    super('ACCOUNT_NAME_TAKEN', `Account with name '${accountName}' already exists`);
  }
}

export class ApiKeyNotFoundError extends MdStoreError {
  declare readonly code: 'API_KEY_NOT_FOUND';
  constructor(readonly keyId: string) {
    super('API_KEY_NOT_FOUND', `API key '${keyId}' not found or already revoked`);
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

export class BlobNotFoundError extends MdStoreError {
  declare readonly code: 'BLOB_NOT_FOUND';
  constructor(
    readonly bucket: string,
    readonly key: string,
  ) {
    super('BLOB_NOT_FOUND', 'Blob not found');
  }
}

export class BlobTooLargeError extends MdStoreError {
  declare readonly code: 'BLOB_TOO_LARGE';
  constructor(readonly maxBytes: number) {
    super('BLOB_TOO_LARGE', `Blob larger than ${maxBytes} bytes`);
  }
}

export class BucketNotFoundError extends MdStoreError {
  declare readonly code: 'BUCKET_NOT_FOUND';
  constructor(readonly bucket: string) {
    super('BUCKET_NOT_FOUND', 'Bucket not found');
  }
}

/** A dependency (database, blob store) failed or timed out; the operation may be retried. */
export class StoreUnavailableError extends MdStoreError {
  declare readonly code: 'STORE_UNAVAILABLE';
  constructor(message: string, options?: { cause?: unknown }) {
    super('STORE_UNAVAILABLE', message, options);
  }
}
