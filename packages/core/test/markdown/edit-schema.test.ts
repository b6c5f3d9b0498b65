import { InvalidInputError, MAX_EDITS, parseEditRequest } from '@mdstore/core';
import { describe, expect, it } from 'vitest';

function issues(body: unknown) {
  try {
    parseEditRequest(body);
  } catch (error) {
    if (error instanceof InvalidInputError) {
      expect(error.code).toBe('INVALID_INPUT');
      return error.issues;
    }
    throw error;
  }
  throw new Error('expected an InvalidInputError');
}

const MISSING = { msg: 'Field required', type: 'missing' };
const STRING = { msg: 'Input should be a valid string', type: 'string_type' };
const OBJECT = { msg: 'Input should be a valid dictionary or object', type: 'model_attributes_type' };
const EXTRA = { msg: 'Extra inputs are not permitted', type: 'extra_forbidden' };
const SECTION = {
  msg: 'Value error, section must be a heading text or a non-empty array of heading texts',
  type: 'value_error',
};
const COUNT = { msg: 'Value error, count must be a positive integer or "all"', type: 'value_error' };
const UNICODE = { msg: 'Value error, must be valid Unicode text', type: 'value_error' };

describe('parseEditRequest: valid bodies', () => {
  it('reads every op, with count 1 and dry_run false by default', () => {
    expect(
      parseEditRequest({
        edits: [
          { op: 'replace', old: 'a', new: '' },
          { op: 'replace', old: 'a', new: 'b', count: 3 },
          { op: 'replace', old: 'a', new: 'b', count: 'all' },
          { op: 'append', text: 'x' },
          { op: 'prepend', text: '', section: 'Setup' },
          { op: 'append', text: 'x', section: ['Setup', 'Linux'] },
          { op: 'replace_section', section: [''], text: 'y' },
          { op: 'insert', line: 1, text: 'z' },
        ],
      }),
    ).toEqual({
      edits: [
        { op: 'replace', old: 'a', new: '', count: 1 },
        { op: 'replace', old: 'a', new: 'b', count: 3 },
        { op: 'replace', old: 'a', new: 'b', count: 'all' },
        { op: 'append', text: 'x' },
        { op: 'prepend', text: '', section: 'Setup' },
        { op: 'append', text: 'x', section: ['Setup', 'Linux'] },
        { op: 'replace_section', section: [''], text: 'y' },
        { op: 'insert', line: 1, text: 'z' },
      ],
      dryRun: false,
    });
  });

  it('reads dry_run', () => {
    expect(parseEditRequest({ edits: [{ op: 'append', text: 'x' }], dry_run: true }).dryRun).toBe(true);
    expect(parseEditRequest({ edits: [{ op: 'append', text: 'x' }], dry_run: false }).dryRun).toBe(false);
  });

  it(`takes 1 to ${MAX_EDITS} edits`, () => {
    const edit = { op: 'append', text: 'x' };
    expect(parseEditRequest({ edits: [edit] }).edits).toHaveLength(1);
    expect(parseEditRequest({ edits: Array.from({ length: 100 }, () => edit) }).edits).toHaveLength(100);
    expect(MAX_EDITS).toBe(100);
  });
});

describe('parseEditRequest: every problem is a 422 with its loc', () => {
  it.each([
    ['a list', []],
    ['null', null],
    ['a string', 'edits'],
  ])('the body is %s', (_, body) => {
    expect(issues(body)).toEqual([{ loc: ['body'], ...OBJECT }]);
  });

  it('edits missing, not a list, empty, or too many', () => {
    expect(issues({})).toEqual([{ loc: ['body', 'edits'], ...MISSING }]);
    expect(issues({ edits: {} })).toEqual([
      { loc: ['body', 'edits'], msg: 'Input should be a valid list', type: 'list_type' },
    ]);
    expect(issues({ edits: [] })).toEqual([
      {
        loc: ['body', 'edits'],
        msg: 'List should have at least 1 item after validation, not 0',
        type: 'too_short',
      },
    ]);
    expect(issues({ edits: Array.from({ length: 101 }, () => ({ op: 'append', text: 'x' })) })).toEqual([
      {
        loc: ['body', 'edits'],
        msg: 'List should have at most 100 items after validation',
        type: 'too_long',
      },
    ]);
  });

  it('an edit that is not an object', () => {
    expect(issues({ edits: [{ op: 'append', text: 'x' }, 'append', [], null] })).toEqual([
      { loc: ['body', 'edits', 1], ...OBJECT },
      { loc: ['body', 'edits', 2], ...OBJECT },
      { loc: ['body', 'edits', 3], ...OBJECT },
    ]);
  });

  it('a missing or unknown op', () => {
    const literal = {
      msg: "Input should be 'replace', 'append', 'prepend', 'replace_section' or 'insert'",
      type: 'literal_error',
    };
    expect(
      issues({ edits: [{ text: 'x' }, { op: 'delete' }, { op: 1 }, { op: 'Append', text: 'x' }] }),
    ).toEqual([
      { loc: ['body', 'edits', 0, 'op'], ...MISSING },
      { loc: ['body', 'edits', 1, 'op'], ...literal },
      { loc: ['body', 'edits', 2, 'op'], ...literal },
      { loc: ['body', 'edits', 3, 'op'], ...literal },
    ]);
  });

  it('missing fields, per op', () => {
    expect(
      issues({
        edits: [
          { op: 'replace' },
          { op: 'append' },
          { op: 'prepend' },
          { op: 'replace_section', text: 'x' },
          { op: 'replace_section', section: 'x' },
          { op: 'insert', text: 'x' },
          { op: 'insert', line: 1 },
        ],
      }),
    ).toEqual([
      { loc: ['body', 'edits', 0, 'old'], ...MISSING },
      { loc: ['body', 'edits', 0, 'new'], ...MISSING },
      { loc: ['body', 'edits', 1, 'text'], ...MISSING },
      { loc: ['body', 'edits', 2, 'text'], ...MISSING },
      { loc: ['body', 'edits', 3, 'section'], ...MISSING },
      { loc: ['body', 'edits', 4, 'text'], ...MISSING },
      { loc: ['body', 'edits', 5, 'line'], ...MISSING },
      { loc: ['body', 'edits', 6, 'text'], ...MISSING },
    ]);
  });

  it('wrong types and values', () => {
    expect(
      issues({
        edits: [
          { op: 'replace', old: '', new: 1 },
          { op: 'append', text: null },
          { op: 'prepend', text: 'x', section: null },
          { op: 'replace_section', section: [], text: 'x' },
          { op: 'replace_section', section: ['a', 2], text: 'x' },
          { op: 'replace_section', section: 7, text: 'x' },
        ],
      }),
    ).toEqual([
      {
        loc: ['body', 'edits', 0, 'old'],
        msg: 'String should have at least 1 character',
        type: 'string_too_short',
      },
      { loc: ['body', 'edits', 0, 'new'], ...STRING },
      { loc: ['body', 'edits', 1, 'text'], ...STRING },
      { loc: ['body', 'edits', 2, 'section'], ...SECTION },
      { loc: ['body', 'edits', 3, 'section'], ...SECTION },
      { loc: ['body', 'edits', 4, 'section'], ...SECTION },
      { loc: ['body', 'edits', 5, 'section'], ...SECTION },
    ]);
  });

  it.each([0, -1, 1.5, '1', null, 'ALL', true, 2 ** 53, 1e300])('count %j', (count) => {
    expect(issues({ edits: [{ op: 'replace', old: 'a', new: 'b', count }] })).toEqual([
      { loc: ['body', 'edits', 0, 'count'], ...COUNT },
    ]);
  });

  it.each([
    [0, { msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal' }],
    [-3, { msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal' }],
    [1.5, { msg: 'Input should be a valid integer', type: 'int_type' }],
    ['2', { msg: 'Input should be a valid integer', type: 'int_type' }],
    [null, { msg: 'Input should be a valid integer', type: 'int_type' }],
    // Beyond a safe integer a number no longer counts lines exactly (issue 22, finding 9).
    [2 ** 53, { msg: 'Input should be a valid integer', type: 'int_type' }],
    [1e300, { msg: 'Input should be a valid integer', type: 'int_type' }],
  ])('insert line %j', (line, issue) => {
    expect(issues({ edits: [{ op: 'insert', line, text: 'x' }] })).toEqual([
      { loc: ['body', 'edits', 0, 'line'], ...issue },
    ]);
  });

  it('dry_run must be a boolean', () => {
    expect(issues({ edits: [{ op: 'append', text: 'x' }], dry_run: 'yes' })).toEqual([
      { loc: ['body', 'dry_run'], msg: 'Input should be a valid boolean', type: 'bool_type' },
    ]);
  });

  it('unknown fields are refused, in the body and in an edit', () => {
    expect(issues({ edits: [{ op: 'append', text: 'x', sectoin: 'A' }], dryrun: true })).toEqual([
      { loc: ['body', 'edits', 0, 'sectoin'], ...EXTRA },
      { loc: ['body', 'dryrun'], ...EXTRA },
    ]);
    expect(issues({ edits: [{ op: 'insert', line: 1, text: 'x', count: 1 }] })).toEqual([
      { loc: ['body', 'edits', 0, 'count'], ...EXTRA },
    ]);
  });

  it('text that has no UTF-8 form (a lone surrogate) is refused', () => {
    expect(
      issues({
        edits: [
          { op: 'replace', old: 'a\ud800', new: '\udc00' },
          { op: 'append', text: 'x', section: ['ok', '\ud800'] },
        ],
      }),
    ).toEqual([
      { loc: ['body', 'edits', 0, 'old'], ...UNICODE },
      { loc: ['body', 'edits', 0, 'new'], ...UNICODE },
      { loc: ['body', 'edits', 1, 'section', 1], ...UNICODE },
    ]);
  });

  it('reports the problems of every edit at once, valid edits in between', () => {
    expect(
      issues({
        edits: [{ op: 'append' }, { op: 'append', text: 'fine' }, { op: 'insert', line: 0, text: 'x' }],
      }).map((issue) => issue.loc),
    ).toEqual([
      ['body', 'edits', 0, 'text'],
      ['body', 'edits', 2, 'line'],
    ]);
  });
});
