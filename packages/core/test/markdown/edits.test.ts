import {
  applyEdits,
  EditConflictError,
  InputError,
  InvalidInputError,
  type MarkdownEdit,
  outline,
} from '@mdstore/core';
import { describe, expect, it } from 'vitest';

const apply = (content: string, ...edits: MarkdownEdit[]) => applyEdits(content, edits, { mdx: false });
const applyMdx = (content: string, ...edits: MarkdownEdit[]) => applyEdits(content, edits, { mdx: true });

function failure(run: () => unknown) {
  try {
    run();
  } catch (error) {
    if (error instanceof InputError) return { code: error.code, issues: error.issues };
    throw error;
  }
  throw new Error('expected an InputError');
}

const replace = (old: string, replacement: string, count: number | 'all' = 1): MarkdownEdit => ({
  op: 'replace',
  old,
  new: replacement,
  count,
});

describe('replace', () => {
  it('replaces exactly `count` occurrences', () => {
    expect(apply('a b a', replace('b', 'X'))).toBe('a X a');
    expect(apply('a b a', replace('a', 'X', 2))).toBe('X b X');
    expect(apply('a b a a', replace('a', 'X', 'all'))).toBe('X b X X');
    expect(apply('one\n', replace('one', 'two\nlines'))).toBe('two\nlines\n');
  });

  it('counts without overlaps, left to right', () => {
    expect(apply('aaaa', replace('aa', 'X', 2))).toBe('XX');
    expect(apply('aaa', replace('aa', 'X', 1))).toBe('Xa');
    expect(apply('aaaaa', replace('aa', 'b', 'all'))).toBe('bba');
  });

  it('found twice but expected once: 409 match_count naming the count and the lines', () => {
    expect(failure(() => apply('x\nfoo\ny\nfoo\n', replace('foo', 'bar')))).toEqual({
      code: 'EDIT_CONFLICT',
      issues: [
        {
          loc: ['body', 'edits', 0, 'old'],
          msg: 'The old text was found 2 times (expected 1), on lines 2, 4',
          type: 'match_count',
        },
      ],
    });
  });

  it('found nowhere: 409 naming the count 0', () => {
    expect(failure(() => apply('abc', replace('x', 'y'))).issues).toEqual([
      {
        loc: ['body', 'edits', 0, 'old'],
        msg: 'The old text was found 0 times (expected 1)',
        type: 'match_count',
      },
    ]);
    expect(failure(() => apply('abc', replace('x', 'y', 'all'))).issues[0]!.msg).toBe(
      'The old text was found 0 times (expected at least 1)',
    );
  });

  it('found once but expected more', () => {
    expect(failure(() => apply('a\nb', replace('b', 'c', 2))).issues[0]!.msg).toBe(
      'The old text was found 1 times (expected 2), on lines 2',
    );
    expect(failure(() => apply('a a a', replace('a', 'c', 2))).issues[0]!.msg).toBe(
      'The old text was found 3 times (expected 2), on lines 1',
    );
  });

  it('a line holding several occurrences is named once; a multi-line match by its first line', () => {
    expect(failure(() => apply('a x x\nb x\nc', replace('x', 'y'))).issues[0]!.msg).toBe(
      'The old text was found 3 times (expected 1), on lines 1, 2',
    );
    expect(failure(() => apply('p\nq\np\nq', replace('p\nq', 'y'))).issues[0]!.msg).toBe(
      'The old text was found 2 times (expected 1), on lines 1, 3',
    );
  });

  it('the first 100 occurrences are located, the rest counted', () => {
    const content = Array.from({ length: 101 }, () => 'x').join('\n');
    const { msg } = failure(() => apply(content, replace('x', 'y'))).issues[0]!;
    expect(msg).toMatch(
      /^The old text was found 101 times \(expected 1\), on lines 1, 2, .*, 99, 100 and more$/,
    );
    const hundred = Array.from({ length: 100 }, () => 'x').join('\n');
    expect(failure(() => apply(hundred, replace('x', 'y'))).issues[0]!.msg).toMatch(/, 99, 100$/);
  });

  it('the loc names the failing edit', () => {
    expect(failure(() => apply('abc', replace('a', 'A'), replace('a', 'B'))).issues[0]!.loc).toEqual([
      'body',
      'edits',
      1,
      'old',
    ]);
    expect(
      failure(() => applyEdits('abc', [replace('x', 'y')], { mdx: false, loc: ['arguments', 'edits'] }))
        .issues[0]!.loc,
    ).toEqual(['arguments', 'edits', 0, 'old']);
  });

  it('uses the replacement as given and adds no line break', () => {
    expect(apply('a\r\nb\r\n', replace('a', 'x\ny'))).toBe('x\ny\r\nb\r\n');
    expect(apply('# A\nb', replace('b', ''))).toBe('# A\n');
  });

  it('an empty old text is refused even when the body schema was skipped', () => {
    expect(failure(() => apply('abc', replace('', 'x'))).issues).toEqual([
      {
        loc: ['body', 'edits', 0, 'old'],
        msg: 'String should have at least 1 character',
        type: 'string_too_short',
      },
    ]);
  });

  it('cannot see the BOM, which stays first', () => {
    expect(failure(() => apply('\uFEFFa', replace('\uFEFFa', 'b'))).code).toBe('EDIT_CONFLICT');
    expect(apply('\uFEFFa', replace('a', 'b'))).toBe('\uFEFFb');
  });
});

describe('append and prepend on the file', () => {
  it('append goes at the end, on a new line when the last line has no line ending', () => {
    expect(apply('a\n', { op: 'append', text: 'b' })).toBe('a\nb');
    expect(apply('a', { op: 'append', text: 'b\n' })).toBe('a\nb\n');
    expect(apply('a\r\nb', { op: 'append', text: 'c' })).toBe('a\r\nb\r\nc');
    expect(apply('', { op: 'append', text: 'x' })).toBe('x');
    expect(apply('a\r', { op: 'append', text: 'x' })).toBe('a\rx');
  });

  it('prepend goes first and ends its last line before the old first line', () => {
    expect(apply('a\n', { op: 'prepend', text: 'x' })).toBe('x\na\n');
    expect(apply('a\n', { op: 'prepend', text: 'x\n' })).toBe('x\na\n');
    expect(apply('a\r\n', { op: 'prepend', text: 'x' })).toBe('x\r\na\r\n');
    expect(apply('a\r\n', { op: 'prepend', text: 'x\n' })).toBe('x\na\r\n');
    expect(apply('', { op: 'prepend', text: 'x' })).toBe('x');
  });

  it('prepend goes after a BOM and after the front matter block, which must stay first', () => {
    expect(apply('\uFEFF---\na: 1\n---\nbody\n', { op: 'prepend', text: 'x' })).toBe(
      '\uFEFF---\na: 1\n---\nx\nbody\n',
    );
    expect(apply('---\r\na: 1\r\n...\r\n# T\r\n', { op: 'prepend', text: 'x' })).toBe(
      '---\r\na: 1\r\n...\r\nx\r\n# T\r\n',
    );
    // A block closed on the last line without a line ending: the text starts a new line after it.
    expect(apply('---\na: 1\n---', { op: 'prepend', text: 'x' })).toBe('---\na: 1\n---\nx');
    // An unclosed block is no front matter: prepend goes first.
    expect(apply('---\na: 1\n', { op: 'prepend', text: 'x' })).toBe('x\n---\na: 1\n');
    // Before a setext heading right after the block, the blank line rule still applies.
    expect(apply('---\na: 1\n---\nTitle\n===\n', { op: 'prepend', text: 'x' })).toBe(
      '---\na: 1\n---\nx\n\nTitle\n===\n',
    );
    // insert at line 1 is literal: before everything but the BOM.
    expect(apply('\uFEFF---\na: 1\n---\n', { op: 'insert', line: 1, text: 'x' })).toBe(
      '\uFEFFx\n---\na: 1\n---\n',
    );
  });

  it('empty text changes nothing, not even line endings', () => {
    expect(apply('a', { op: 'append', text: '' }, { op: 'prepend', text: '' })).toBe('a');
  });

  it('text before a setext heading ends with a blank line, so that it stays out of the heading', () => {
    expect(apply('Title\n=====\n', { op: 'prepend', text: 'Intro' })).toBe('Intro\n\nTitle\n=====\n');
    expect(apply('Title\r\n=====\r\n', { op: 'prepend', text: 'Intro\n' })).toBe(
      'Intro\n\r\nTitle\r\n=====\r\n',
    );
    expect(apply('Title\n=====\n', { op: 'prepend', text: 'Intro\n\n' })).toBe('Intro\n\nTitle\n=====\n');
    expect(apply('Title\n=====\n', { op: 'prepend', text: 'Intro\n \t\n' })).toBe(
      'Intro\n \t\nTitle\n=====\n',
    );
    // Not before an ATX heading, nor before a thematic break that only looks like an underline.
    expect(apply('# Title\n', { op: 'prepend', text: 'Intro' })).toBe('Intro\n# Title\n');
    expect(apply('para\n\n---\n', { op: 'prepend', text: 'Intro' })).toBe('Intro\npara\n\n---\n');
  });
});

describe('insert', () => {
  const content = 'one\ntwo\nthree';

  it('goes before line n, n = lines + 1 appending', () => {
    expect(apply(content, { op: 'insert', line: 1, text: 'zero\n' })).toBe('zero\none\ntwo\nthree');
    expect(apply(content, { op: 'insert', line: 2, text: 'x' })).toBe('one\nx\ntwo\nthree');
    expect(apply(content, { op: 'insert', line: 3, text: 'x\n' })).toBe('one\ntwo\nx\nthree');
    expect(apply(content, { op: 'insert', line: 4, text: 'four' })).toBe('one\ntwo\nthree\nfour');
    expect(apply('one\n', { op: 'insert', line: 2, text: 'two' })).toBe('one\ntwo');
    expect(apply('', { op: 'insert', line: 1, text: 'x' })).toBe('x');
    expect(apply('\uFEFFa\n', { op: 'insert', line: 1, text: 'x' })).toBe('\uFEFFx\na\n');
  });

  it('counts lines at LF only', () => {
    expect(apply('a\rb\nc', { op: 'insert', line: 2, text: 'x' })).toBe('a\rb\nx\nc');
  });

  it.each([
    [0, 'Value error, line must be from 1 to 4: the file has 3 lines'],
    [5, 'Value error, line must be from 1 to 4: the file has 3 lines'],
  ])('line %i is out of range: 422', (line, msg) => {
    expect(failure(() => apply(content, replace('one', 'ONE'), { op: 'insert', line, text: 'x' }))).toEqual({
      code: 'INVALID_INPUT',
      issues: [{ loc: ['body', 'edits', 1, 'line'], msg, type: 'value_error' }],
    });
  });

  it('a line that is not an integer is out of range', () => {
    expect(failure(() => apply(content, { op: 'insert', line: 1.5, text: 'x' })).issues[0]!.loc).toEqual([
      'body',
      'edits',
      0,
      'line',
    ]);
  });

  it('an empty file has only line 1', () => {
    expect(failure(() => apply('', { op: 'insert', line: 2, text: 'x' })).issues[0]!.msg).toBe(
      'Value error, line must be from 1 to 1: the file has 0 lines',
    );
  });

  it('before a setext heading, adds the blank line', () => {
    expect(apply('a\n\nT\n-\n', { op: 'insert', line: 3, text: 'x' })).toBe('a\n\nx\n\nT\n-\n');
    expect(apply('a\n\nT\n-\n', { op: 'insert', line: 2, text: 'x' })).toBe('a\nx\n\nT\n-\n');
  });
});

describe('section edits', () => {
  const content = '# Guide\nintro\n\n## Setup\nsetup\n\n### Linux\napt\n\n## Use\nuse\n';

  it('prepend goes right after the heading line', () => {
    expect(apply(content, { op: 'prepend', section: ['Setup'], text: 'first' })).toBe(
      '# Guide\nintro\n\n## Setup\nfirst\nsetup\n\n### Linux\napt\n\n## Use\nuse\n',
    );
  });

  it('append goes at the end of the section, after its subsections', () => {
    expect(apply(content, { op: 'append', section: 'Setup', text: 'last' })).toBe(
      '# Guide\nintro\n\n## Setup\nsetup\n\n### Linux\napt\n\nlast\n## Use\nuse\n',
    );
    expect(apply(content, { op: 'append', section: ['Guide'], text: 'end\n' })).toBe(`${content}end\n`);
  });

  it('replace_section replaces the body and keeps the heading', () => {
    expect(apply(content, { op: 'replace_section', section: ['Guide', 'Setup'], text: 'new body\n\n' })).toBe(
      '# Guide\nintro\n\n## Setup\nnew body\n\n## Use\nuse\n',
    );
    expect(apply(content, { op: 'replace_section', section: 'Linux', text: 'brew' })).toBe(
      '# Guide\nintro\n\n## Setup\nsetup\n\n### Linux\nbrew\n## Use\nuse\n',
    );
    expect(apply(content, { op: 'replace_section', section: 'Use', text: '' })).toBe(
      '# Guide\nintro\n\n## Setup\nsetup\n\n### Linux\napt\n\n## Use\n',
    );
  });

  it('a heading on the last line without a line ending gets one before the text', () => {
    expect(apply('x\n# End', { op: 'prepend', section: 'End', text: 'a' })).toBe('x\n# End\na');
    expect(apply('x\n# End', { op: 'append', section: 'End', text: 'a' })).toBe('x\n# End\na');
    expect(apply('x\n# End', { op: 'replace_section', section: 'End', text: 'a' })).toBe('x\n# End\na');
    expect(apply('# End\r\nx', { op: 'append', section: 'End', text: 'a' })).toBe('# End\r\nx\r\na');
  });

  it('appending before a setext heading keeps that heading intact', () => {
    const setext = '## A\ntext\n\nNext\n----\nbody\n';
    const result = apply(setext, { op: 'append', section: 'A', text: 'more' });
    expect(result).toBe('## A\ntext\n\nmore\n\nNext\n----\nbody\n');
    expect(outline(result, { mdx: false }).headings.map((heading) => heading.text)).toEqual(['A', 'Next']);
    // Appending at the same place with no protection would have made the heading `more Next`.
    expect(outline('## A\nmore\nNext\n----\n', { mdx: false }).headings[1]!.text).toBe('more Next');
  });

  it('replace_section and prepend protect a following setext heading too', () => {
    expect(apply('# A\nold\n\nSub\n===\n', { op: 'replace_section', section: 'A', text: 'new' })).toBe(
      '# A\nnew\n\nSub\n===\n',
    );
    expect(apply('# A\nSub\n---\n', { op: 'prepend', section: 'A', text: 'x' })).toBe('# A\nx\n\nSub\n---\n');
    expect(apply('Top\n===\nSub\n---\n', { op: 'prepend', section: 'Top', text: 'x' })).toBe(
      'Top\n===\nx\n\nSub\n---\n',
    );
  });

  it('a CRLF file gets CRLF line breaks; the text itself is used as given', () => {
    const crlf = '# A\r\nbody\r\n# B\r\n';
    expect(apply(crlf, { op: 'append', section: 'A', text: 'x' })).toBe('# A\r\nbody\r\nx\r\n# B\r\n');
    expect(apply(crlf, { op: 'append', section: 'A', text: 'x\ny' })).toBe('# A\r\nbody\r\nx\ny\r\n# B\r\n');
  });

  it('the line-ending style is that of the content before the edits', () => {
    expect(apply('a\r\n# B\nc', { op: 'prepend', text: 'x' })).toBe('x\r\na\r\n# B\nc');
    expect(apply('a\n# B\r\nc', { op: 'prepend', text: 'x' })).toBe('x\na\n# B\r\nc');
    expect(apply('a', { op: 'prepend', text: 'x\r\n' }, { op: 'append', text: 'y' })).toBe('x\r\na\ny');
  });

  it('a missing or ambiguous section is a 409 at the edit’s section', () => {
    expect(failure(() => apply(content, { op: 'append', section: 'Nope', text: 'x' }))).toMatchObject({
      code: 'EDIT_CONFLICT',
      issues: [{ loc: ['body', 'edits', 0, 'section'], type: 'section_not_found' }],
    });
    expect(
      failure(() =>
        apply('# A\n# A\n', replace('x', 'x', 'all'), { op: 'prepend', section: 'A', text: 'x' }),
      ),
    ).toMatchObject({ code: 'EDIT_CONFLICT' });
    expect(
      failure(() => apply('# A\n# A\nx', replace('x', 'y'), { op: 'prepend', section: 'A', text: 'x' }))
        .issues,
    ).toMatchObject([{ loc: ['body', 'edits', 1, 'section'], type: 'section_ambiguous' }]);
  });

  it('each edit sees the result of the previous one', () => {
    expect(
      apply(
        '# Old\nbody\n',
        replace('# Old', '## New'),
        { op: 'append', section: 'New', text: 'more\n' },
        { op: 'insert', line: 1, text: '# Top\n' },
        { op: 'replace_section', section: ['Top', 'New'], text: 'all new\n' },
      ),
    ).toBe('# Top\n## New\nall new\n');
  });

  it('all or nothing: a failing edit throws and returns no partial result', () => {
    expect(() => apply(content, { op: 'append', text: 'x' }, replace('missing', 'y'))).toThrow(
      EditConflictError,
    );
    expect(() => apply(content, { op: 'append', text: 'x' }, { op: 'insert', line: 99, text: 'y' })).toThrow(
      InvalidInputError,
    );
  });
});

describe('bytes outside the edited span are kept', () => {
  it('front matter with odd formatting, trailing spaces and CRLF stay byte for byte', () => {
    const content =
      '\uFEFF---  \r\ntitle:   "x"  \r\nlist: [ a,b ]\t\r\n...\r\n# A  \r\nbody  \r\n\r\n# B\r\nend';
    const result = apply(content, { op: 'append', section: 'A', text: 'new' });
    expect(result).toBe(
      '\uFEFF---  \r\ntitle:   "x"  \r\nlist: [ a,b ]\t\r\n...\r\n# A  \r\nbody  \r\n\r\nnew\r\n# B\r\nend',
    );
  });

  it('headings in fenced code, indented code and HTML blocks do not end a section', () => {
    const content = '# A\n```\n# not B\n```\n\n    # not C\n\n<div>\n# not D\n</div>\n\n# E\n';
    expect(apply(content, { op: 'append', section: 'A', text: 'x\n' })).toBe(
      '# A\n```\n# not B\n```\n\n    # not C\n\n<div>\n# not D\n</div>\n\nx\n# E\n',
    );
  });

  it('MDX: JSX with # lines and import/export lines are kept and never sections', () => {
    const content = [
      "import { Note } from './note.js'",
      'export const x = 1',
      '',
      '# Title',
      '',
      '<Note>',
      '# inside',
      '</Note>',
      '',
      '# Next',
      '',
    ].join('\n');
    expect(applyMdx(content, { op: 'append', section: 'Title', text: 'added\n' })).toBe(
      content.replace('# Next', 'added\n# Next'),
    );
    expect(applyMdx(content, { op: 'prepend', section: 'Next', text: 'p' })).toBe(`${content}p`);
    expect(() => applyMdx(content, { op: 'append', section: 'inside', text: 'x' })).toThrow(
      EditConflictError,
    );
    // As CommonMark, `<Note>` opens an HTML block that hides `# inside` too, but `export` is text.
    expect(apply(content, { op: 'append', section: 'Title', text: 'added\n' })).toBe(
      content.replace('# Next', 'added\n# Next'),
    );
  });
});
