import { RecordConflictError, StoreUnavailableError, type UniqueRule } from '@mdstore/core';

interface SqliteErrorLike {
  readonly code: string;
  readonly message: string;
}

const isSqliteError = (error: unknown): error is SqliteErrorLike =>
  error instanceof Error &&
  typeof (error as { code?: unknown }).code === 'string' &&
  error.name === 'SqliteError';

/**
 * The unique rules of the port, keyed by the columns SQLite names in its message
 * (`UNIQUE constraint failed: projects.account_id, projects.name`).
 */
const UNIQUE_RULES: ReadonlyMap<string, UniqueRule> = new Map([
  ['accounts.name', 'account_name'],
  ['projects.account_id, projects.name', 'project_name'],
  ['files.project_id, files.filename', 'filename'],
  ['attachments.project_id, attachments.path', 'attachment_path'],
]);

/** Result codes that mean "the database cannot serve now", as opposed to a bug or a bad request. */
const UNAVAILABLE_CODES = [
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_IOERR',
  'SQLITE_FULL',
  'SQLITE_CANTOPEN',
  'SQLITE_PROTOCOL',
  'SQLITE_NOLFS',
  'SQLITE_READONLY',
];

export const isBusyError = (error: unknown): boolean =>
  isSqliteError(error) && (error.code === 'SQLITE_BUSY' || error.code.startsWith('SQLITE_BUSY_'));

const uniqueRuleOf = (error: SqliteErrorLike): UniqueRule | undefined => {
  if (error.code !== 'SQLITE_CONSTRAINT_UNIQUE') return undefined;
  const columns = error.message.replace(/^UNIQUE constraint failed: /, '');
  return UNIQUE_RULES.get(columns);
};

const isUnavailable = (error: SqliteErrorLike): boolean =>
  UNAVAILABLE_CODES.some((code) => error.code === code || error.code.startsWith(`${code}_`));

/**
 * Translates a driver error into the core's vocabulary. Anything else (a foreign-key or primary-key
 * violation, a syntax error) is a bug in the caller or here, and is returned unchanged.
 */
export function toStoreError(error: unknown): unknown {
  if (!isSqliteError(error)) return error;
  const rule = uniqueRuleOf(error);
  if (rule) return new RecordConflictError(rule, { cause: error });
  if (isUnavailable(error)) return new StoreUnavailableError(`SQLite: ${error.message}`, { cause: error });
  return error;
}

/** Runs a synchronous database call, translating its errors. */
export function translated<T>(call: () => T): T {
  try {
    return call();
  } catch (error) {
    throw toStoreError(error);
  }
}
