import { STATUS_CODES } from 'node:http';
import {
  type ContentWorkBusyError,
  type ErrorCode,
  type FileReferencedError,
  type HeldRequestsLimitError,
  type InputError,
  isMdStoreError,
  type MdStoreError,
  type MergeConflictError,
  type PreconditionFailedError,
  type RangeNotSatisfiableError,
  type RateLimitedError,
  unsatisfiedRangeHeader,
  type ValidationIssue,
} from '@mdstore/core';

/** The one table from the core's error codes to HTTP statuses. Any other failure is a 500. */
export const STATUS_BY_CODE: Readonly<Partial<Record<ErrorCode, number>>> = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  OPERATION_NOT_ALLOWED: 403,
  API_KEY_EXPIRED: 401,
  API_KEY_NOT_FOUND: 404,
  SHARE_NOT_FOUND: 404,
  WEBHOOK_NOT_FOUND: 404,
  DRAFT_NOT_FOUND: 404,
  DRAFT_NOT_OPEN: 409,
  DEFAULT_PROJECT_PROTECTED: 403,
  PROJECT_NOT_FOUND: 404,
  FILE_NOT_FOUND: 404,
  ATTACHMENT_NOT_FOUND: 404,
  ATTACHMENT_PATH_IS_FILE: 409,
  ATTACHMENT_PATH_TAKEN: 409,
  CONTENT_TYPE_MISMATCH: 415,
  PROJECT_NAME_TAKEN: 409,
  FILENAME_TAKEN: 409,
  CONTENT_TOO_LARGE: 413,
  UNSUPPORTED_EXTENSION: 415,
  MALFORMED_INPUT: 400,
  INVALID_INPUT: 422,
  RATE_LIMITED: 429,
  PRECONDITION_FAILED: 412,
  PRECONDITION_REQUIRED: 428,
  RANGE_NOT_SATISFIABLE: 416,
  EDIT_CONFLICT: 409,
  FILE_MISSING: 409,
  MERGE_CONFLICT: 409,
  MERGE_TOO_LARGE: 413,
  RESTORE_TOO_LARGE: 413,
  REVISION_NOT_FOUND: 404,
  TRASH_ITEM_NOT_FOUND: 404,
  FILE_REFERENCED: 409,
  DIFF_TOO_LARGE: 413,
  OUTLINE_TOO_LARGE: 413,
  CHANGES_EXPIRED: 410,
  STORAGE_LIMIT_REACHED: 413,
  COUNT_LIMIT_REACHED: 409,
  IMPORT_TOO_LARGE: 413,
  CONTENT_WORK_BUSY: 503,
  TOO_MANY_HELD_REQUESTS: 429,
  HELD_REQUESTS_FULL: 503,
};

export type ErrorDetail = string | readonly ValidationIssue[];

/** A refusal decided by the transport itself (media type, body size, routing), not by the core. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: ErrorDetail,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(typeof detail === 'string' ? detail : `HTTP ${status}`);
    this.name = 'HttpError';
  }
}

export const INTERNAL_ERROR_DETAIL = 'Internal Server Error';

export interface ErrorResponse {
  readonly status: number;
  readonly detail: ErrorDetail;
  readonly headers: Readonly<Record<string, string>>;
  /** Fields the body has besides `detail` (a 409 `File is referenced`'s `referenced_by`). */
  readonly fields?: Readonly<Record<string, unknown>>;
}

const statusText = (status: number): string => STATUS_CODES[status] ?? 'Error';

/** A 4xx status carried by an error from Express or its router (http-errors style), if any. */
function clientErrorStatus(error: unknown): number | undefined {
  if (!(error instanceof Error)) return undefined;
  const { status, statusCode } = error as { status?: unknown; statusCode?: unknown };
  const value = typeof status === 'number' ? status : statusCode;
  return typeof value === 'number' && value >= 400 && value < 500 ? value : undefined;
}

export const pathEncodingIssue: ValidationIssue = {
  loc: ['path'],
  msg: 'Value error, the path is not valid percent-encoded UTF-8',
  type: 'value_error',
};

/** Turns any thrown value into the status, body detail and headers of the error response. */
export function toErrorResponse(error: unknown): ErrorResponse {
  if (error instanceof HttpError)
    return { status: error.status, detail: error.detail, headers: error.headers };
  if (isMdStoreError(error)) {
    const status = STATUS_BY_CODE[error.code];
    if (status !== undefined) return coreErrorResponse(error, status);
  }
  // Express's router throws a URIError for a path segment that is not valid percent-encoding.
  if (error instanceof URIError) return { status: 400, detail: [pathEncodingIssue], headers: {} };
  const clientStatus = clientErrorStatus(error);
  if (clientStatus !== undefined)
    return { status: clientStatus, detail: statusText(clientStatus), headers: {} };
  return { status: 500, detail: INTERNAL_ERROR_DETAIL, headers: {} };
}

/** Headers an error of the core brings with its answer, by code. */
function coreErrorHeaders(error: MdStoreError): Record<string, string> {
  switch (error.code) {
    case 'UNAUTHENTICATED':
    case 'API_KEY_EXPIRED':
      return { 'WWW-Authenticate': 'Bearer' };
    case 'RATE_LIMITED':
      return { 'Retry-After': String((error as RateLimitedError).retryAfterSeconds) };
    case 'CONTENT_WORK_BUSY':
      return { 'Retry-After': String((error as ContentWorkBusyError).retryAfterSeconds) };
    case 'TOO_MANY_HELD_REQUESTS':
    case 'HELD_REQUESTS_FULL':
      return { 'Retry-After': String((error as HeldRequestsLimitError).retryAfterSeconds) };
    case 'PRECONDITION_FAILED': {
      const etag = (error as PreconditionFailedError).currentEtag;
      return etag === undefined ? {} : { ETag: etag };
    }
    case 'RANGE_NOT_SATISFIABLE':
      return { 'Content-Range': unsatisfiedRangeHeader((error as RangeNotSatisfiableError).sizeBytes) };
    default:
      return {};
  }
}

function coreErrorResponse(error: MdStoreError, status: number): ErrorResponse {
  const issues = (error as Partial<InputError>).issues;
  const fields =
    error.code === 'FILE_REFERENCED'
      ? { referenced_by: [...(error as FileReferencedError).referencedBy] }
      : error.code === 'MERGE_CONFLICT'
        ? { conflicts: (error as MergeConflictError).conflicts }
        : undefined;
  return {
    status,
    detail: issues ?? error.message,
    headers: coreErrorHeaders(error),
    ...(fields && { fields }),
  };
}

/** A generic single-message error for a status, e.g. `{"detail":"Not Found"}`. */
export const httpError = (status: number, headers?: Record<string, string>): HttpError =>
  new HttpError(status, statusText(status), headers);

export { statusText };
