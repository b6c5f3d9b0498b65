import { RecordConflictError, StoreUnavailableError } from '@mdstore/core';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { translateError } from '../src/errors.js';
import { runTransaction } from '../src/transaction.js';

const pgError = (code: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(`pg ${code}`), { code, ...extra });

describe('postgres error translation', () => {
  it('maps unique violations to the rule of their constraint', () => {
    const rules = {
      accounts_name_key: 'account_name',
      projects_active_name_key: 'project_name',
      files_project_filename_key: 'filename',
    };
    for (const [constraint, rule] of Object.entries(rules)) {
      const source = pgError('23505', { constraint });
      const error = translateError(source);
      expect(error).toBeInstanceOf(RecordConflictError);
      expect(error).toMatchObject({ rule, cause: source });
    }
    const primaryKey = pgError('23505', { constraint: 'accounts_pkey' });
    expect(translateError(primaryKey)).toBe(primaryKey);
  });

  it('maps connection failures and timeouts to StoreUnavailableError, keeping the cause', () => {
    const sources = [
      pgError('ECONNREFUSED'),
      pgError('57014'),
      pgError('57P01'),
      pgError('08006'),
      pgError('53300'),
      pgError('25P03'),
      new Error('timeout exceeded when trying to connect'),
      new Error('Connection terminated unexpectedly'),
    ];
    for (const source of sources) {
      const error = translateError(source);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as Error).cause).toBe(source);
    }
  });

  it('leaves programming errors and the core errors alone', () => {
    const syntax = pgError('42601');
    expect(translateError(syntax)).toBe(syntax);
    const typeError = Object.assign(new TypeError('bad'), { code: 'ERR_INVALID_ARG_TYPE' });
    expect(translateError(typeError)).toBe(typeError);
    const core = new StoreUnavailableError('already translated');
    expect(translateError(core)).toBe(core);
  });
});

/** A pool whose every COMMIT fails with `commitError`, recording what happened to its clients. */
const fakePool = (commitError: Error) => {
  const log: string[] = [];
  const client = {
    on: () => undefined,
    removeListener: () => undefined,
    query: async (text: string) => {
      log.push(text);
      if (text === 'COMMIT') throw commitError;
      return { rows: [], rowCount: 0 };
    },
    release: (error?: Error) => log.push(error ? 'destroy' : 'release'),
  };
  return { pool: { connect: async () => client } as unknown as pg.Pool, log };
};

describe('postgres transaction retries', () => {
  it('runs work four times at most on serialization failures, then reports the store unavailable', async () => {
    const { pool, log } = fakePool(pgError('40001'));
    let runs = 0;
    const error = await runTransaction(pool, async ({ query }) => {
      runs += 1;
      await query('SELECT 1');
    }).catch((e: unknown) => e);
    expect(runs).toBe(4);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(log.filter((entry) => entry === 'ROLLBACK')).toHaveLength(4);
    expect(log.filter((entry) => entry === 'release')).toHaveLength(4);
  });

  it('does not retry other failures', async () => {
    const { pool } = fakePool(pgError('23505', { constraint: 'files_project_filename_key' }));
    let runs = 0;
    const error = await runTransaction(pool, async ({ query }) => {
      runs += 1;
      await query('SELECT 1');
    }).catch((e: unknown) => e);
    expect(runs).toBe(1);
    expect(error).toMatchObject({ code: 'RECORD_CONFLICT', rule: 'filename' });
  });
});
