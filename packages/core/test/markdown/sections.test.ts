import { EditConflictError, findSection, type HeadingPath, outline } from '@mdstore/core';
import { describe, expect, it } from 'vitest';

const LOC = ['query', 'section'];

function conflict(content: string, path: HeadingPath, mdx = false) {
  try {
    findSection(content, path, { mdx, loc: LOC });
  } catch (error) {
    if (error instanceof EditConflictError) {
      expect(error.code).toBe('EDIT_CONFLICT');
      expect(error.issues).toHaveLength(1);
      return error.issues[0]!;
    }
    throw error;
  }
  throw new Error('expected an EditConflictError');
}

const section = (content: string, path: HeadingPath) => {
  const found = findSection(content, path, { mdx: false, loc: LOC });
  return {
    ...found,
    text: content.slice(found.start, found.end),
    body: content.slice(found.bodyStart, found.end),
  };
};

describe('outline', () => {
  it('paths follow the section rule, whatever levels are skipped', () => {
    const content = '# A\n### B\n## C\n#### D\n## E\n# F\n### G\n';
    expect(outline(content, { mdx: false }).headings).toEqual([
      { level: 1, text: 'A', line: 1, path: ['A'] },
      { level: 3, text: 'B', line: 2, path: ['A', 'B'] },
      { level: 2, text: 'C', line: 3, path: ['A', 'C'] },
      { level: 4, text: 'D', line: 4, path: ['A', 'C', 'D'] },
      { level: 2, text: 'E', line: 5, path: ['A', 'E'] },
      { level: 1, text: 'F', line: 6, path: ['F'] },
      { level: 3, text: 'G', line: 7, path: ['F', 'G'] },
    ]);
  });

  it('a document may start below level 1 and go up', () => {
    expect(outline('### a\n## b\n### c\n', { mdx: false }).headings.map((heading) => heading.path)).toEqual([
      ['a'],
      ['b'],
      ['b', 'c'],
    ]);
  });

  it('links carry target, text and line only', () => {
    expect(outline('x [a](b)\n[[w|t]]', { mdx: false }).links).toEqual([
      { target: 'b', text: 'a', line: 1 },
      { target: 'w', text: 't', line: 2 },
    ]);
  });

  it('an empty document has an empty outline', () => {
    expect(outline('', { mdx: true })).toEqual({ headings: [], links: [] });
  });
});

describe('findSection: extent', () => {
  const content = [
    '# Guide', // 1
    'intro', // 2
    '## Setup', // 3
    'setup text', // 4
    '### Linux', // 5
    'apt', // 6
    '### Mac', // 7
    'brew', // 8
    '## Use', // 9
    'use it', // 10
    '', // 11
    'Notes', // 12
    '-----', // 13
    'end', // 14
  ].join('\n');

  it('runs from the heading line to the next heading of the same or a lower level number', () => {
    expect(section(content, ['Setup']).text).toBe('## Setup\nsetup text\n### Linux\napt\n### Mac\nbrew\n');
    expect(section(content, ['Linux']).text).toBe('### Linux\napt\n');
    expect(section(content, ['Mac']).text).toBe('### Mac\nbrew\n');
    expect(section(content, ['Guide']).text).toBe(content);
  });

  it('a setext heading: the body starts after its underline; the last section runs to the end', () => {
    const notes = section(content, 'Notes');
    expect(notes.text).toBe('Notes\n-----\nend');
    expect(notes.body).toBe('end');
    expect(notes.heading).toEqual({ level: 2, text: 'Notes', line: 12, path: ['Guide', 'Notes'] });
    expect(section(content, 'Use').body).toBe('use it\n\n');
  });

  it('offsets are into the content as given', () => {
    const found = findSection('\uFEFF# A\r\nbody\r\n# B\r\n', 'A', { mdx: false, loc: LOC });
    expect({ start: found.start, bodyStart: found.bodyStart, end: found.end }).toEqual({
      start: 1,
      bodyStart: 6,
      end: 12,
    });
  });

  it('a heading on the last line without LF has an empty body at the end', () => {
    const found = findSection('x\n## Last', 'Last', { mdx: false, loc: LOC });
    expect({ start: found.start, bodyStart: found.bodyStart, end: found.end }).toEqual({
      start: 2,
      bodyStart: 9,
      end: 9,
    });
  });
});

describe('findSection: matching a heading path', () => {
  const content = [
    '# Guide',
    '## Setup',
    '### Linux',
    '## Deploy',
    '### Linux',
    '# Setup',
    '## Linux',
    '# Install **now**',
  ].join('\n');

  it('an array matches headings whose path ends with it', () => {
    expect(section(content, ['Deploy', 'Linux']).heading.line).toBe(5);
    expect(section(content, ['Guide', 'Deploy', 'Linux']).heading.line).toBe(5);
    expect(section(content, ['Guide', 'Setup', 'Linux']).heading.line).toBe(3);
  });

  it('of several matches, the one whose whole path it is wins', () => {
    // ["Setup","Linux"] ends both # Guide > ## Setup > ### Linux and # Setup > ## Linux.
    expect(section(content, ['Setup', 'Linux']).heading).toEqual({
      level: 2,
      text: 'Linux',
      line: 7,
      path: ['Setup', 'Linux'],
    });
  });

  it('texts compare after trimming and collapsing white space, on both sides', () => {
    expect(section(content, ['  Install   now ']).heading.line).toBe(8);
    expect(section('#   Two   words  \n', 'Two words').heading.line).toBe(1);
    expect(section('# Two\u00a0words\n', 'Two words').heading.line).toBe(1);
  });

  it('a single text must be unique, as a string or an array of one', () => {
    for (const path of ['Linux', ['Linux']]) {
      expect(conflict(content, path)).toEqual({
        loc: LOC,
        msg:
          'Section ["Linux"] is ambiguous: it matches 3 headings: ["Guide","Setup","Linux"] (line 3), ' +
          '["Guide","Deploy","Linux"] (line 5), ["Setup","Linux"] (line 7). ' +
          'Name it with more of its enclosing headings',
        type: 'section_ambiguous',
      });
    }
    expect(conflict(content, 'Setup').type).toBe('section_ambiguous');
    expect(section(content, 'Deploy').heading.line).toBe(4);
  });

  it('a single text (a string) is never resolved by position, even when one match is at the top level', () => {
    expect(conflict('# Linux\n# Setup\n## Linux\n', 'Linux').type).toBe('section_ambiguous');
    expect(section('# Linux\n# Setup\n## Linux\n', ['Setup', 'Linux']).heading.line).toBe(3);
  });

  it('a one-element path names the top-level heading with that text when there is exactly one', () => {
    // The outline's path of `# Linux` is ["Linux"]: that path must reach it.
    expect(section('# Linux\n# Setup\n## Linux\n', ['Linux']).heading).toEqual({
      level: 1,
      text: 'Linux',
      line: 1,
      path: ['Linux'],
    });
    expect(section('## Linux\n# Setup\n## Linux\n', ['Linux']).heading.line).toBe(1);
    // Two at the top, or none at the top and several deeper: still ambiguous.
    expect(conflict('# Linux\n# Linux\n## Linux\n', ['Linux']).type).toBe('section_ambiguous');
    expect(conflict('# A\n## Linux\n# B\n## Linux\n', ['Linux']).type).toBe('section_ambiguous');
  });

  it('several headings with the very same path stay ambiguous', () => {
    expect(conflict('# A\n## B\n# A\n## B\n', ['A', 'B'])).toEqual({
      loc: LOC,
      msg:
        'Section ["A","B"] is ambiguous: it matches 2 headings: ["A","B"] (line 2), ["A","B"] (line 4). ' +
        'Name it with more of its enclosing headings',
      type: 'section_ambiguous',
    });
  });

  it('a suffix that matches several headings, none of them from the top, is ambiguous', () => {
    expect(conflict('# X\n## A\n### B\n# Y\n## A\n### B\n', ['A', 'B']).type).toBe('section_ambiguous');
  });

  it('elements must be consecutive', () => {
    expect(conflict(content, ['Guide', 'Linux']).type).toBe('section_not_found');
  });

  it('no match: section_not_found, naming headings with that text in any case', () => {
    expect(conflict(content, ['Other', 'linux'])).toEqual({
      loc: LOC,
      msg:
        'No heading matches section ["Other","linux"]; headings with that text: ["Guide","Setup","Linux"] (line 3), ' +
        '["Guide","Deploy","Linux"] (line 5), ["Setup","Linux"] (line 7)',
      type: 'section_not_found',
    });
  });

  it("no heading with that text: the file's headings are the candidates", () => {
    expect(conflict('# A\n## B\n', 'C').msg).toBe(
      'No heading matches section ["C"]; the file\'s headings: ["A"] (line 1), ["A","B"] (line 2)',
    );
    expect(conflict('no headings\n', 'C').msg).toBe(
      'No heading matches section ["C"]: the file has no headings',
    );
    expect(conflict('# A\n', []).msg).toBe(
      'No heading matches section []; the file\'s headings: ["A"] (line 1)',
    );
  });

  it('at most 20 candidates are listed', () => {
    const many = Array.from({ length: 23 }, (_, index) => `# H${index + 1}\n`).join('');
    const { msg } = conflict(many, 'nope');
    expect(msg).toContain('["H20"] (line 20) and 3 more');
    expect(msg).not.toContain('["H21"]');
    const exactly20 = Array.from({ length: 20 }, (_, index) => `# H${index + 1}\n`).join('');
    expect(conflict(exactly20, 'nope').msg.endsWith('["H20"] (line 20)')).toBe(true);
  });

  it('headings in code, HTML blocks, front matter and JSX are never sections', () => {
    const content = '---\n# fm\n---\n```\n# code\n```\n    # indented\n<div>\n# html\n</div>\n';
    for (const text of ['fm', 'code', 'indented', 'html']) {
      expect(conflict(content, text).type).toBe('section_not_found');
    }
    expect(conflict('<Note>\n# jsx\n</Note>\n', 'jsx', true).type).toBe('section_not_found');
  });
});
