import { InvalidInputError, lineCount, parseLineRange, sliceLines } from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lineAt, lineStarts } from '../../src/markdown/lines.js';

function issuesOf(run: () => unknown) {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidInputError) return error.issues;
    throw error;
  }
  throw new Error('expected an InvalidInputError');
}

describe('lineCount: a line ends after LF, a final LF starts no new line', () => {
  it.each([
    ['', 0],
    ['a', 1],
    ['a\n', 1],
    ['\n', 1],
    ['\n\n', 2],
    ['a\nb', 2],
    ['a\nb\n', 2],
    ['a\r\nb\r\n', 2],
    ['a\rb\r', 1],
    ['\uFEFF', 1],
    ['a\n\n', 2],
  ])('%j has %i lines', (text, count) => {
    expect(lineCount(text)).toBe(count);
  });

  it('agrees with counting LFs, plus one for an unterminated last line', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '\n', '\r', ' ') }), (text) => {
        const lfs = text.split('\n').length - 1;
        expect(lineCount(text)).toBe(lfs + (text.length > 0 && !text.endsWith('\n') ? 1 : 0));
      }),
    );
  });
});

describe('lineAt', () => {
  it('finds the line of each offset', () => {
    const text = 'ab\ncd\n\nef';
    const starts = lineStarts(text);
    expect(starts).toEqual([0, 3, 6, 7]);
    expect([...text].map((_, offset) => lineAt(starts, offset))).toEqual([1, 1, 1, 2, 2, 2, 3, 4, 4]);
    expect(lineAt(starts, text.length)).toBe(4);
  });
});

describe('sliceLines', () => {
  const text = 'one\r\ntwo  \nthree\n\nfive';

  it('returns lines a..b with their own line endings, and the total', () => {
    expect(sliceLines(text, 1, 1)).toEqual({ text: 'one\r\n', first: 1, last: 1, total: 5 });
    expect(sliceLines(text, 2, 3)).toEqual({ text: 'two  \nthree\n', first: 2, last: 3, total: 5 });
    expect(sliceLines(text, 4, 4)).toEqual({ text: '\n', first: 4, last: 4, total: 5 });
    expect(sliceLines(text, 5, 5)).toEqual({ text: 'five', first: 5, last: 5, total: 5 });
    expect(sliceLines(text, 1, 5).text).toBe(text);
  });

  it('clips b past the end to the last line', () => {
    expect(sliceLines(text, 4, 6)).toEqual({ text: '\nfive', first: 4, last: 5, total: 5 });
    expect(sliceLines('a\nb\n', 2, 1_000_000)).toEqual({ text: 'b\n', first: 2, last: 2, total: 2 });
  });

  it('keeps a BOM in line 1: the slices of a text add up to it', () => {
    expect(sliceLines('\uFEFF# T\nx\n', 1, 1).text).toBe('\uFEFF# T\n');
  });

  it('concatenating consecutive slices gives the text back', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '\n', '\r') }), fc.nat(), (text, cut) => {
        const total = lineCount(text);
        fc.pre(total > 1);
        const split = 1 + (cut % (total - 1));
        expect(sliceLines(text, 1, split).text + sliceLines(text, split + 1, total).text).toBe(text);
      }),
    );
  });

  it.each([
    [0, 2, 'Value error, the first line is 1'],
    [-1, 2, 'Value error, the first line is 1'],
    [6, 6, 'Value error, line 6 is past the last line (5)'],
    [3, 2, 'Value error, the last line must not come before the first'],
    [1.5, 2, 'Value error, lines must be two integers a-b, such as 10-20'],
    [1, 2.5, 'Value error, lines must be two integers a-b, such as 10-20'],
  ])('%d-%d is a 422 at ["query","lines"]', (first, last, msg) => {
    expect(issuesOf(() => sliceLines(text, first, last))).toEqual([
      { loc: ['query', 'lines'], msg, type: 'value_error' },
    ]);
  });

  it('an empty text has no line 1', () => {
    expect(issuesOf(() => sliceLines('', 1, 1))[0]!.msg).toBe(
      'Value error, line 1 is past the last line (0)',
    );
  });

  it('takes another loc', () => {
    expect(issuesOf(() => sliceLines(text, 0, 1, ['arguments', 'lines']))[0]!.loc).toEqual([
      'arguments',
      'lines',
    ]);
  });
});

describe('parseLineRange', () => {
  it('reads a-b', () => {
    expect(parseLineRange('3-7')).toEqual({ first: 3, last: 7 });
    expect(parseLineRange('0-0')).toEqual({ first: 0, last: 0 });
    expect(parseLineRange('007-10')).toEqual({ first: 7, last: 10 });
  });

  it.each(['', '3', '3-', '-3', '3-7-9', ' 3-7', '3-7 ', '3.0-7', '1e2-300', 'a-b', '-1-2', '3–7', '3 - 7'])(
    '%j is malformed: 422 at ["query","lines"]',
    (raw) => {
      expect(issuesOf(() => parseLineRange(raw))).toEqual([
        {
          loc: ['query', 'lines'],
          msg: 'Value error, lines must be two integers a-b, such as 10-20',
          type: 'value_error',
        },
      ]);
    },
  );

  it('takes another loc', () => {
    expect(issuesOf(() => parseLineRange('x', ['arguments', 'lines']))[0]!.loc).toEqual([
      'arguments',
      'lines',
    ]);
  });
});
