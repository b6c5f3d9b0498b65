import { isMdStoreError, RecordConflictError, StoreUnavailableError, type UniqueRule } from '@mdstore/core';

/** The unique constraints that carry a rule of the records port, by constraint (or index) name. */
const RULE_BY_CONSTRAINT: Readonly<Record<string, UniqueRule>> = {
  accounts_name_key: 'account_name',
  projects_active_name_key: 'project_name',
  files_project_filename_key: 'filename',
  attachments_project_path_key: 'attachment_path',
};

const SQLSTATE = /^[0-9A-Z]{5}$/;
const SYSTEM_ERROR = /^E[A-Z]+$/;

/**
 * SQLSTATE classes and codes meaning "the database cannot serve this now; try again later":
 * connection exceptions, invalid authorization / unknown database (misconfigured or not ready yet),
 * insufficient resources, operator intervention (shutdown, query cancelled by statement_timeout),
 * lock_not_available, idle-in-transaction timeout, and serialization failures that outlived the retries.
 */
const UNAVAILABLE_CLASSES = new Set(['08', '28', '53', '57', '58']);
const UNAVAILABLE_CODES = new Set(['3D000', '55P03', '25P03', '40001', '40P01']);

/** Errors node-postgres raises without a code when the socket or the pool fails. */
const DRIVER_FAILURE =
  /connection terminated|timeout exceeded when trying to connect|not queryable|pool after calling end|connection timeout|query read timeout/i;

export const errorCode = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
};

export const isRetryableTransactionError = (error: unknown): boolean => {
  const code = errorCode(error);
  return code === '40001' || code === '40P01';
};

export const isUnavailableError = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false;
  const code = errorCode(error);
  if (code === undefined) return DRIVER_FAILURE.test(error.message);
  if (SYSTEM_ERROR.test(code)) return true; // ECONNREFUSED, ECONNRESET, ETIMEDOUT, EPIPE, ENOTFOUND, ...
  if (!SQLSTATE.test(code)) return false;
  return UNAVAILABLE_CLASSES.has(code.slice(0, 2)) || UNAVAILABLE_CODES.has(code);
};

/**
 * Turns a driver error into the core's error, or returns it unchanged when it is a programming error
 * (bad SQL, a broken invariant) that no caller should branch on.
 */
export const translateError = (error: unknown): unknown => {
  if (isMdStoreError(error)) return error;
  if (errorCode(error) === '23505') {
    const constraint = (error as { constraint?: string }).constraint;
    const rule = constraint === undefined ? undefined : RULE_BY_CONSTRAINT[constraint];
    return rule === undefined ? error : new RecordConflictError(rule, { cause: error });
  }
  if (isUnavailableError(error)) {
    const detail = error instanceof Error ? error.message : String(error);
    return new StoreUnavailableError(`PostgreSQL unavailable: ${detail}`, { cause: error });
  }
  return error;
};
