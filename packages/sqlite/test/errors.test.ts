import { RecordConflictError, StoreUnavailableError } from '@mdstore/core';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { toStoreError } from '../src/errors.js';

const sqliteError = (message: string, code: string) => new Database.SqliteError(message, code);

describe('toStoreError', () => {
  it.each([
    ['accounts.name', 'account_name'],
    ['projects.account_id, projects.name', 'project_name'],
    ['files.project_id, files.filename', 'filename'],
  ])('maps a unique violation on %s to rule %s', (columns, rule) => {
    const cause = sqliteError(`UNIQUE constraint failed: ${columns}`, 'SQLITE_CONSTRAINT_UNIQUE');
    const mapped = toStoreError(cause);
    expect(mapped).toBeInstanceOf(RecordConflictError);
    expect(mapped).toMatchObject({ rule, cause });
  });

  it.each([
    'SQLITE_BUSY',
    'SQLITE_BUSY_SNAPSHOT',
    'SQLITE_LOCKED',
    'SQLITE_IOERR_WRITE',
    'SQLITE_FULL',
    'SQLITE_CANTOPEN',
  ])('maps %s to StoreUnavailableError, keeping the cause', (code) => {
    const cause = sqliteError('database is locked', code);
    const mapped = toStoreError(cause);
    expect(mapped).toBeInstanceOf(StoreUnavailableError);
    expect((mapped as Error).cause).toBe(cause);
  });

  it('leaves other errors alone', () => {
    const unknownUnique = sqliteError(
      'UNIQUE constraint failed: api_keys.key_hash',
      'SQLITE_CONSTRAINT_UNIQUE',
    );
    const syntax = sqliteError('near "SELEC": syntax error', 'SQLITE_ERROR');
    const plain = new Error('boom');
    for (const error of [unknownUnique, syntax, plain]) expect(toStoreError(error)).toBe(error);
  });
});
