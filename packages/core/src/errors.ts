/**
 * Every failure the core reports is an `MdStoreError` with a stable `code`. Callers branch on `code`,
 * never on messages or classes; the HTTP server maps codes to statuses in one table. No error here
 * knows about HTTP.
 *
 * An error that carries only its message is made from the table of messages below (`mdStoreError`);
 * the few that carry more (validation issues, the current ETag of a 412, the size of a 416, the wait of
 * a 429, the rule of a store conflict) are small subclasses.
 */

import { HELD_LIMITS } from './defaults/held.js';
import type { FileConflict } from './merge/types.js';

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
  /** Extensions §12. */
  | 'ATTACHMENT_NOT_FOUND'
  /** An attachment path ending in `.md`/`.mdx` (those are files): 409. */
  | 'ATTACHMENT_PATH_IS_FILE'
  /** A move to the path of another attachment (extensions §12): 409. */
  | 'ATTACHMENT_PATH_TAKEN'
  /** A `Content-Type` a browser would render that the bytes do not have (extensions §12): 415. */
  | 'CONTENT_TYPE_MISMATCH'
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
  /** Delete File with `if_unreferenced` of a file other files link to (extensions §9): 409. */
  | 'FILE_REFERENCED'
  | 'DIFF_TOO_LARGE'
  /** A file too large to parse whole for its outline within one request's bound: 413. */
  | 'OUTLINE_TOO_LARGE'
  /** Retention removed a change event after the reader's `since` (extensions §7): 410. */
  | 'CHANGES_EXPIRED'
  /** Every worker of the content work pool busy and its queue full: 503 with `Retry-After`. */
  | 'CONTENT_WORK_BUSY'
  /** A held request (long poll, stream) past its key's or account's bound on the instance: 429. */
  | 'TOO_MANY_HELD_REQUESTS'
  /** A held request past the instance's bound on held requests: 503 with `Retry-After`. */
  | 'HELD_REQUESTS_FULL'
  /**
   * A step of content work passed its bound where it ran (estimate, deadline or memory limit of a
   * worker): raised by `ContentWork`, answered by the use case as that step's documented refusal.
   */
  | 'WORK_LIMIT_EXCEEDED'
  | 'STORAGE_LIMIT_REACHED'
  /** An account or project already holds the most live keys, shares or webhooks it may (issue 34): 409. */
  | 'COUNT_LIMIT_REACHED'
  /** An imported archive (or its body) larger than `maxImportBytes` uncompressed (extensions §10): 413. */
  | 'IMPORT_TOO_LARGE'
  // changesets (extensions §9)
  /** An operation of a changeset names a file that does not exist at that point of it: 409. */
  | 'FILE_MISSING'
  // three-way merges (extensions §13)
  /** Changes on both sides of a three-way merge overlap: 409 with the conflicting hunks, nothing written. */
  | 'MERGE_CONFLICT'
  /** A three-way merge whose inputs pass `MERGE_LIMITS` (lines, or line comparisons): 413. */
  | 'MERGE_TOO_LARGE'
  /** A project restored as of a time (extensions §16) past `RESTORE_LIMITS` (files, revisions, changes): 413. */
  | 'RESTORE_TOO_LARGE'
  // administration
  | 'ACCOUNT_NOT_FOUND'
  | 'ACCOUNT_NAME_TAKEN'
  | 'API_KEY_NOT_FOUND'
  // share links (extensions §11): a missing, expired or revoked share, or a file it does not share
  | 'SHARE_NOT_FOUND'
  // webhooks (extensions §7)
  | 'WEBHOOK_NOT_FOUND'
  // drafts (extensions §13)
  | 'DRAFT_NOT_FOUND'
  /** An operation, review or publish of a draft that is no longer open: 409. */
  | 'DRAFT_NOT_OPEN'
  /** A publish whose files' changes overlap changes made since their base: 409 with the hunks. */
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

/**
 * The message of every error that carries nothing else but what it is about, by code. What it is about
 * (`{ filename }`, `{ maxBytes }`, …) becomes fields of the error, whether the interface's text shows it
 * or not.
 */
const MESSAGES = {
  UNAUTHENTICATED: () => 'Invalid authentication credentials',
  FORBIDDEN: () => 'You do not have permission to access this resource',
  OPERATION_NOT_ALLOWED: () => 'API key does not allow this operation',
  API_KEY_EXPIRED: () => 'API key expired',
  DEFAULT_PROJECT_PROTECTED: () => 'Cannot delete default project',
  PROJECT_NOT_FOUND: (_: { projectId: string }) => 'Project not found',
  FILE_NOT_FOUND: (_: { filename: string }) => 'File not found',
  ATTACHMENT_NOT_FOUND: (_: { path: string }) => 'Attachment not found',
  ATTACHMENT_PATH_IS_FILE: (o: { path: string }) =>
    `'${o.path}' names a Markdown file: store .md and .mdx files as files, not attachments`,
  ATTACHMENT_PATH_TAKEN: (o: { path: string }) => `Attachment with path '${o.path}' already exists`,
  CONTENT_TYPE_MISMATCH: (o: { contentType: string }) =>
    `Unsupported media type: the content is not ${o.contentType} (its first bytes say otherwise)`,
  PROJECT_NAME_TAKEN: (o: { projectName: string }) => `Project with name '${o.projectName}' already exists`,
  FILENAME_TAKEN: (o: { filename: string }) => `File with name '${o.filename}' already exists`,
  CONTENT_TOO_LARGE: (o: { maxBytes: number }) => `File too large: the maximum size is ${o.maxBytes} bytes`,
  UNSUPPORTED_EXTENSION: (_: { filename: string }) =>
    'Unsupported file type: only .md and .mdx files are accepted',
  PRECONDITION_REQUIRED: () => "Precondition required: send If-Match with the file's ETag",
  REVISION_NOT_FOUND: () => 'Revision not found',
  TRASH_ITEM_NOT_FOUND: () => 'Trash item not found',
  DIFF_TOO_LARGE: () => 'Diff too large',
  CHANGES_EXPIRED: () => 'Changes expired: list the project again',
  OUTLINE_TOO_LARGE: () =>
    'File too large for an outline: its parse would pass the work one request may do; ' +
    'read parts of it with ?lines= or ?section= instead',
  STORAGE_LIMIT_REACHED: () => 'Project storage limit reached',
  COUNT_LIMIT_REACHED: (o: {
    what: 'API keys' | 'shares' | 'webhooks' | 'open drafts' | 'reviews';
    max: number;
  }) => `Too many active ${o.what}: at most ${o.max}; revoke or delete one first`,
  IMPORT_TOO_LARGE: (o: { maxBytes: number }) =>
    `Archive too large: its uncompressed size passes the maximum of ${o.maxBytes} bytes`,
  FILE_MISSING: (o: { filename: string }) => `File '${o.filename}' does not exist`,
  MERGE_TOO_LARGE: (o: { limit: 'lines' | 'comparisons'; max: number }) =>
    o.limit === 'lines'
      ? `Merge too large: a text has more than ${o.max} lines`
      : `Merge too large: it would need more than ${o.max} line comparisons; write with If-Match instead`,
  RESTORE_TOO_LARGE: (o: { what: 'files' | 'revisions' | 'changes'; max: number }) =>
    o.what === 'changes'
      ? `Restore too large: it would create, change or delete more than ${o.max} files in one changeset`
      : `Restore too large: the project has more than ${o.max} ${o.what === 'files' ? 'files and trash items' : 'revisions'} to examine`,
  ACCOUNT_NOT_FOUND: (o: { account: string }) => `Account '${o.account}' not found`,
  ACCOUNT_NAME_TAKEN: (o: { accountName: string }) => `Account with name '${o.accountName}' already exists`,
  API_KEY_NOT_FOUND: (o: { keyId: string }) => `API key '${o.keyId}' not found or already revoked`,
  SHARE_NOT_FOUND: () => 'Share not found',
  WEBHOOK_NOT_FOUND: (_: { webhookId: string }) => 'Webhook not found',
  DRAFT_NOT_FOUND: (_: { draftId: string }) => 'Draft not found',
  DRAFT_NOT_OPEN: (o: { state: string }) => `Draft is ${o.state}, not open`,
  BLOB_NOT_FOUND: (_: { bucket: string; key: string }) => 'Blob not found',
  BLOB_TOO_LARGE: (o: { maxBytes: number }) => `Blob larger than ${o.maxBytes} bytes`,
  BUCKET_NOT_FOUND: (_: { bucket: string }) => 'Bucket not found',
  /** A dependency (database, blob store) failed or timed out; the operation may be retried. */
  STORE_UNAVAILABLE: (o: { message: string }) => o.message,
} as const satisfies { readonly [C in ErrorCode]?: (about: never) => string };

/** The codes whose errors carry only a message and what they are about (the table above). */
export type MessageErrorCode = keyof typeof MESSAGES;
type About<C extends MessageErrorCode> = Parameters<(typeof MESSAGES)[C]>;

/** Same as `MdStoreError`, with its code (and, for the table's codes, what it is about) in its type. */
export type MdStoreErrorOf<C extends ErrorCode> = MdStoreError & {
  readonly code: C;
} & (C extends MessageErrorCode ? (About<C> extends [infer A] ? Readonly<A> : unknown) : unknown);

/** The error of `code`: its message from the table, what it is about as its fields. */
export function mdStoreError<C extends MessageErrorCode>(code: C, ...about: About<C>): MdStoreErrorOf<C> {
  const message = (MESSAGES[code] as (about?: object) => string)(about[0]);
  return Object.assign(new MdStoreError(code, message), about[0]) as MdStoreErrorOf<C>;
}

/**
 * The error of a code under the name its class had: callable with or without `new` and with the same
 * arguments, and `instanceof` tells it by code (`isMdStoreError(value, code)`), so code written against
 * the classes keeps working while every such error is one type.
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

export const UnauthenticatedError = errorOfCode('UNAUTHENTICATED', () => mdStoreError('UNAUTHENTICATED'));
export type UnauthenticatedError = MdStoreErrorOf<'UNAUTHENTICATED'>;
export const ForbiddenError = errorOfCode('FORBIDDEN', () => mdStoreError('FORBIDDEN'));
export type ForbiddenError = MdStoreErrorOf<'FORBIDDEN'>;
export const OperationNotAllowedError = errorOfCode('OPERATION_NOT_ALLOWED', () =>
  mdStoreError('OPERATION_NOT_ALLOWED'),
);
export type OperationNotAllowedError = MdStoreErrorOf<'OPERATION_NOT_ALLOWED'>;
export const ApiKeyExpiredError = errorOfCode('API_KEY_EXPIRED', () => mdStoreError('API_KEY_EXPIRED'));
export type ApiKeyExpiredError = MdStoreErrorOf<'API_KEY_EXPIRED'>;
export const DefaultProjectProtectedError = errorOfCode('DEFAULT_PROJECT_PROTECTED', () =>
  mdStoreError('DEFAULT_PROJECT_PROTECTED'),
);
export type DefaultProjectProtectedError = MdStoreErrorOf<'DEFAULT_PROJECT_PROTECTED'>;
export const ProjectNotFoundError = errorOfCode('PROJECT_NOT_FOUND', (projectId: string) =>
  mdStoreError('PROJECT_NOT_FOUND', { projectId }),
);
export type ProjectNotFoundError = MdStoreErrorOf<'PROJECT_NOT_FOUND'>;
export const FileNotFoundError = errorOfCode('FILE_NOT_FOUND', (filename: string) =>
  mdStoreError('FILE_NOT_FOUND', { filename }),
);
export type FileNotFoundError = MdStoreErrorOf<'FILE_NOT_FOUND'>;
export const AttachmentNotFoundError = errorOfCode('ATTACHMENT_NOT_FOUND', (path: string) =>
  mdStoreError('ATTACHMENT_NOT_FOUND', { path }),
);
export type AttachmentNotFoundError = MdStoreErrorOf<'ATTACHMENT_NOT_FOUND'>;
export const AttachmentPathIsFileError = errorOfCode('ATTACHMENT_PATH_IS_FILE', (path: string) =>
  mdStoreError('ATTACHMENT_PATH_IS_FILE', { path }),
);
export type AttachmentPathIsFileError = MdStoreErrorOf<'ATTACHMENT_PATH_IS_FILE'>;
export const AttachmentPathTakenError = errorOfCode('ATTACHMENT_PATH_TAKEN', (path: string) =>
  mdStoreError('ATTACHMENT_PATH_TAKEN', { path }),
);
export type AttachmentPathTakenError = MdStoreErrorOf<'ATTACHMENT_PATH_TAKEN'>;
export const ContentTypeMismatchError = errorOfCode('CONTENT_TYPE_MISMATCH', (contentType: string) =>
  mdStoreError('CONTENT_TYPE_MISMATCH', { contentType }),
);
export type ContentTypeMismatchError = MdStoreErrorOf<'CONTENT_TYPE_MISMATCH'>;
export const ProjectNameTakenError = errorOfCode('PROJECT_NAME_TAKEN', (projectName: string) =>
  mdStoreError('PROJECT_NAME_TAKEN', { projectName }),
);
export type ProjectNameTakenError = MdStoreErrorOf<'PROJECT_NAME_TAKEN'>;
export const FilenameTakenError = errorOfCode('FILENAME_TAKEN', (filename: string) =>
  mdStoreError('FILENAME_TAKEN', { filename }),
);
export type FilenameTakenError = MdStoreErrorOf<'FILENAME_TAKEN'>;
export const ContentTooLargeError = errorOfCode('CONTENT_TOO_LARGE', (maxBytes: number) =>
  mdStoreError('CONTENT_TOO_LARGE', { maxBytes }),
);
export type ContentTooLargeError = MdStoreErrorOf<'CONTENT_TOO_LARGE'>;
export const UnsupportedExtensionError = errorOfCode('UNSUPPORTED_EXTENSION', (filename: string) =>
  mdStoreError('UNSUPPORTED_EXTENSION', { filename }),
);
export type UnsupportedExtensionError = MdStoreErrorOf<'UNSUPPORTED_EXTENSION'>;
export const PreconditionRequiredError = errorOfCode('PRECONDITION_REQUIRED', () =>
  mdStoreError('PRECONDITION_REQUIRED'),
);
export type PreconditionRequiredError = MdStoreErrorOf<'PRECONDITION_REQUIRED'>;
export const RevisionNotFoundError = errorOfCode('REVISION_NOT_FOUND', () =>
  mdStoreError('REVISION_NOT_FOUND'),
);
export type RevisionNotFoundError = MdStoreErrorOf<'REVISION_NOT_FOUND'>;
export const TrashItemNotFoundError = errorOfCode('TRASH_ITEM_NOT_FOUND', () =>
  mdStoreError('TRASH_ITEM_NOT_FOUND'),
);
export type TrashItemNotFoundError = MdStoreErrorOf<'TRASH_ITEM_NOT_FOUND'>;
export const DiffTooLargeError = errorOfCode('DIFF_TOO_LARGE', () => mdStoreError('DIFF_TOO_LARGE'));
export type DiffTooLargeError = MdStoreErrorOf<'DIFF_TOO_LARGE'>;
export const ChangesExpiredError = errorOfCode('CHANGES_EXPIRED', () => mdStoreError('CHANGES_EXPIRED'));
export type ChangesExpiredError = MdStoreErrorOf<'CHANGES_EXPIRED'>;
export const OutlineTooLargeError = errorOfCode('OUTLINE_TOO_LARGE', () => mdStoreError('OUTLINE_TOO_LARGE'));
export type OutlineTooLargeError = MdStoreErrorOf<'OUTLINE_TOO_LARGE'>;
export const StorageLimitReachedError = errorOfCode('STORAGE_LIMIT_REACHED', () =>
  mdStoreError('STORAGE_LIMIT_REACHED'),
);
export type StorageLimitReachedError = MdStoreErrorOf<'STORAGE_LIMIT_REACHED'>;
export const AccountNotFoundError = errorOfCode('ACCOUNT_NOT_FOUND', (account: string) =>
  mdStoreError('ACCOUNT_NOT_FOUND', { account }),
);
export type AccountNotFoundError = MdStoreErrorOf<'ACCOUNT_NOT_FOUND'>;
export const AccountNameTakenError = errorOfCode('ACCOUNT_NAME_TAKEN', (accountName: string) =>
  mdStoreError('ACCOUNT_NAME_TAKEN', { accountName }),
);
export type AccountNameTakenError = MdStoreErrorOf<'ACCOUNT_NAME_TAKEN'>;
export const ApiKeyNotFoundError = errorOfCode('API_KEY_NOT_FOUND', (keyId: string) =>
  mdStoreError('API_KEY_NOT_FOUND', { keyId }),
);
export type ApiKeyNotFoundError = MdStoreErrorOf<'API_KEY_NOT_FOUND'>;
export const BlobNotFoundError = errorOfCode('BLOB_NOT_FOUND', (bucket: string, key: string) =>
  mdStoreError('BLOB_NOT_FOUND', { bucket, key }),
);
export type BlobNotFoundError = MdStoreErrorOf<'BLOB_NOT_FOUND'>;
export const BlobTooLargeError = errorOfCode('BLOB_TOO_LARGE', (maxBytes: number) =>
  mdStoreError('BLOB_TOO_LARGE', { maxBytes }),
);
export type BlobTooLargeError = MdStoreErrorOf<'BLOB_TOO_LARGE'>;
export const BucketNotFoundError = errorOfCode('BUCKET_NOT_FOUND', (bucket: string) =>
  mdStoreError('BUCKET_NOT_FOUND', { bucket }),
);
export type BucketNotFoundError = MdStoreErrorOf<'BUCKET_NOT_FOUND'>;
/** `STORE_UNAVAILABLE` with its own message, and the failure that caused it as `cause`. */
export const StoreUnavailableError = errorOfCode(
  'STORE_UNAVAILABLE',
  (message: string, options?: { cause?: unknown }) =>
    new MdStoreError('STORE_UNAVAILABLE', message, options) as MdStoreErrorOf<'STORE_UNAVAILABLE'>,
);
export type StoreUnavailableError = MdStoreErrorOf<'STORE_UNAVAILABLE'>;

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

/**
 * An operation of a changeset failed (extensions §9): the error it failed with, its code kept (so its
 * status too), its detail always a list of issues under `["body","operations",i,…]`.
 */
export class OperationFailedError extends MdStoreError {
  constructor(
    code: ErrorCode,
    readonly issues: readonly ValidationIssue[],
    /** The index of the operation that failed. */
    readonly operation: number,
    options?: { cause?: unknown },
  ) {
    super(code, issues.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; '), options);
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

/** A file other files link to, deleted with `if_unreferenced` (extensions §9): 409 with the referrers. */
export class FileReferencedError extends MdStoreError {
  declare readonly code: 'FILE_REFERENCED';
  /** The files that link to it, in filename order. */
  constructor(readonly referencedBy: readonly string[]) {
    super('FILE_REFERENCED', 'File is referenced');
  }
}

/** Every worker of the content work pool busy and its queue full (503); `Retry-After` from the field. */
export class ContentWorkBusyError extends MdStoreError {
  declare readonly code: 'CONTENT_WORK_BUSY';
  /** Seconds a client should wait before it tries again. */
  readonly retryAfterSeconds = 1;
  constructor() {
    super(
      'CONTENT_WORK_BUSY',
      'Service Unavailable: too much work on large files is under way; try again shortly',
    );
  }
}

/**
 * A held request (long poll, SSE stream) refused past a bound of `HELD_LIMITS`: the key's or the
 * account's (`TOO_MANY_HELD_REQUESTS`, 429) or the instance's (`HELD_REQUESTS_FULL`, 503), with
 * `Retry-After` from the field.
 */
export class HeldRequestsLimitError extends MdStoreError {
  declare readonly code: 'TOO_MANY_HELD_REQUESTS' | 'HELD_REQUESTS_FULL';
  readonly retryAfterSeconds = HELD_LIMITS.retryAfterSeconds;
  constructor(readonly scope: 'key' | 'account' | 'instance') {
    super(
      scope === 'instance' ? 'HELD_REQUESTS_FULL' : 'TOO_MANY_HELD_REQUESTS',
      scope === 'instance'
        ? 'Service Unavailable: this instance holds as many change streams as it allows; try again shortly'
        : `Too many open change streams for this ${scope === 'key' ? 'API key' : 'account'}`,
    );
  }
}

/** A step of content work stopped past its bound; the use case answers it as the step's refusal. */
export class WorkLimitExceededError extends MdStoreError {
  declare readonly code: 'WORK_LIMIT_EXCEEDED';
  constructor(readonly reason: 'estimate' | 'deadline' | 'memory') {
    super('WORK_LIMIT_EXCEEDED', `Content work stopped: past its ${reason} limit`);
  }
}

export class RateLimitedError extends MdStoreError {
  declare readonly code: 'RATE_LIMITED';
  /** Sent back as `Retry-After`. */
  constructor(readonly retryAfterSeconds: number) {
    super('RATE_LIMITED', `Rate limit exceeded. Try again in ${retryAfterSeconds} seconds.`);
  }
}

/**
 * Overlapping changes of a three-way merge (extensions §13): a draft's publish or a write with
 * `?merge_base=`. 409 `{"detail": "Draft conflicts", "conflicts": [{filename, hunks}]}`; nothing changed.
 */
export class MergeConflictError extends MdStoreError {
  declare readonly code: 'MERGE_CONFLICT';
  constructor(readonly conflicts: readonly FileConflict[]) {
    super('MERGE_CONFLICT', 'Draft conflicts');
  }
}

export const MergeTooLargeError = errorOfCode(
  'MERGE_TOO_LARGE',
  (limit: 'lines' | 'comparisons', max: number) => mdStoreError('MERGE_TOO_LARGE', { limit, max }),
);
export type MergeTooLargeError = MdStoreErrorOf<'MERGE_TOO_LARGE'>;

export type UniqueRule = 'account_name' | 'project_name' | 'filename' | 'attachment_path';

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
export const ShareNotFoundError = errorOfCode('SHARE_NOT_FOUND', () => mdStoreError('SHARE_NOT_FOUND'));
export type ShareNotFoundError = MdStoreErrorOf<'SHARE_NOT_FOUND'>;
