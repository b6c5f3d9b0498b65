import { type InputError, isMdStoreError, type ValidationIssue } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import { HISTORY_LIMITS } from '../src/defaults/history.js';
import {
  parseCopyBody,
  parseMoveBody,
  parseRestoreBody,
  parseRevisionParam,
  parseRevisionsLimit,
} from '../src/validation/history.js';

/** Where the history bodies and parameters report their problems (survivors of the mutation run). */
function failure(run: () => unknown): { code: string; issues: readonly ValidationIssue[] } {
  try {
    run();
  } catch (error) {
    if (!isMdStoreError(error)) throw error;
    return { code: error.code, issues: (error as Partial<InputError>).issues ?? [] };
  }
  throw new Error('expected the call to fail');
}

const ID = '0f8fad5b-d9cb-469f-a165-70867728950e';

describe('move and copy bodies', () => {
  it('a missing or non-string to is 422 at body.to; a bad filename is 400 at body.to', () => {
    for (const parse of [parseMoveBody, parseCopyBody]) {
      expect(failure(() => parse({}))).toEqual({
        code: 'INVALID_INPUT',
        issues: [{ loc: ['body', 'to'], msg: 'Field required', type: 'missing' }],
      });
      expect(failure(() => parse({ to: 3 }))).toEqual({
        code: 'INVALID_INPUT',
        issues: [{ loc: ['body', 'to'], msg: 'Input should be a valid string', type: 'string_type' }],
      });
      const bad = failure(() => parse({ to: 'a/../b.md' }));
      expect(bad.code).toBe('MALFORMED_INPUT');
      expect(bad.issues[0]?.loc).toEqual(['body', 'to']);
    }
  });

  it('copy: project_id absent or null is this project, a UUID is kept in lower case, else 422', () => {
    expect(parseCopyBody({ to: 'b.md' })).toEqual({ to: 'b.md', projectId: null });
    expect(parseCopyBody({ to: 'b.md', project_id: null })).toEqual({ to: 'b.md', projectId: null });
    expect(parseCopyBody({ to: 'b.md', project_id: ID.toUpperCase() })).toEqual({
      to: 'b.md',
      projectId: ID,
    });
    expect(failure(() => parseCopyBody({ to: 'b.md', project_id: `${ID}x` }))).toEqual({
      code: 'INVALID_INPUT',
      issues: [{ loc: ['body', 'project_id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing' }],
    });
  });
});

describe('revision parameters', () => {
  it('takes 1 and above in decimal; 0, signs, fractions and huge values are 422 at the loc given', () => {
    expect(parseRevisionParam('1', ['query', 'from'])).toBe(1);
    expect(parseRevisionParam('007', ['query', 'from'])).toBe(7);
    for (const absent of [undefined, '']) {
      expect(failure(() => parseRevisionParam(absent, ['path', 'revision'])).issues).toEqual([
        { loc: ['path', 'revision'], msg: 'Field required', type: 'missing' },
      ]);
    }
    for (const bad of ['0', '-1', '+1', '1.0', '1e3', ' 1', '9999999999999999']) {
      const { code, issues } = failure(() => parseRevisionParam(bad, ['query', 'from']));
      expect(code).toBe('INVALID_INPUT');
      expect(issues).toEqual([
        {
          loc: ['query', 'from'],
          msg: 'Input should be a valid integer greater than or equal to 1',
          type: 'int_parsing',
        },
      ]);
    }
  });
});

describe('the limit of the revision list', () => {
  const LOC = ['query', 'limit'];

  it('is the default when absent, and 1 to the maximum in decimal', () => {
    expect(parseRevisionsLimit(undefined)).toBe(HISTORY_LIMITS.revisionsPageDefault);
    expect(parseRevisionsLimit('1')).toBe(1);
    expect(parseRevisionsLimit(String(HISTORY_LIMITS.revisionsPageMax))).toBe(
      HISTORY_LIMITS.revisionsPageMax,
    );
  });

  it('refuses each wrong value with its own message, at ["query", "limit"]', () => {
    const cases: [string, string, string][] = [
      ['x', 'Input should be a valid integer', 'int_parsing'],
      ['-1', 'Input should be a valid integer', 'int_parsing'],
      ['0', 'Input should be greater than or equal to 1', 'greater_than_equal'],
      [
        String(HISTORY_LIMITS.revisionsPageMax + 1),
        `Input should be less than or equal to ${HISTORY_LIMITS.revisionsPageMax}`,
        'less_than_equal',
      ],
    ];
    for (const [raw, msg, type] of cases) {
      const { code, issues } = failure(() => parseRevisionsLimit(raw));
      expect(code).toBe('INVALID_INPUT');
      expect(issues).toEqual([{ loc: LOC, msg, type }]);
    }
  });
});

describe('bodies that are not objects', () => {
  it('restore, move and copy refuse them at ["body"]', () => {
    for (const parse of [parseRestoreBody, parseMoveBody, parseCopyBody]) {
      for (const body of [null, [], 'a.md', 3]) {
        const { code, issues } = failure(() => parse(body));
        expect(code).toBe('INVALID_INPUT');
        expect(issues).toEqual([
          {
            loc: ['body'],
            msg: 'Input should be a valid dictionary or object',
            type: 'model_attributes_type',
          },
        ]);
      }
    }
  });
});
