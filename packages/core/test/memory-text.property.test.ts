import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MEMORY_MAX_LINES } from '../src/defaults/memory.js';
import { judgeMemoryPath, memoryFilename, memoryFolder, shownName } from '../src/use-cases/memory/paths.js';
import {
  formatFileSize,
  insertText,
  occurrenceLines,
  strReplaceText,
  viewFileText,
} from '../src/use-cases/memory/text.js';

/**
 * The memory tool's text rules (extensions §14) as properties: `str_replace` changes exactly the one
 * occurrence and nothing else, refuses zero or several (naming their lines) and leaves the text as it
 * was; `insert` adds exactly one line at the place asked and keeps every other line in order; a path
 * never resolves above `/memories`. The exact strings are checked against the SDK's reference backend
 * in apps/server/test/http/memory.test.ts.
 */

const P = '/memories/f.txt';
const line = fc.string({ unit: fc.constantFrom('a', 'b', 'c', ' ', 'é') });
const text = fc.array(line, { minLength: 1, maxLength: 12 }).map((lines) => lines.join('\n'));

describe('str_replace', () => {
  it('replaces the one occurrence and keeps every other character', () => {
    fc.assert(
      fc.property(
        text,
        text,
        fc.string({ unit: fc.constantFrom('x', 'y', '\n') }),
        (before, after, replacement) => {
          const content = `${before}<<OLD>>${after}`;
          const outcome = strReplaceText(P, content, '<<OLD>>', replacement);
          expect(outcome.ok).toBe(true);
          if (outcome.ok) expect(outcome.text).toBe(`${before}${replacement}${after}`);
        },
      ),
    );
  });

  it('refuses a string that occurs on no line or on several, naming the lines, and changes nothing', () => {
    fc.assert(
      fc.property(text, fc.constantFrom('a', 'b', 'ab', 'c c'), (content, old) => {
        const lines = content.split('\n');
        const expected = lines.flatMap((l, i) => (l.includes(old) ? [i + 1] : []));
        expect(occurrenceLines(content, old)).toEqual(expected);
        const outcome = strReplaceText(P, content, old, 'Z');
        expect(outcome.ok).toBe(expected.length === 1);
        if (!outcome.ok && expected.length === 0)
          expect(outcome.error).toBe(
            `No replacement was performed, old_str \`${old}\` did not appear verbatim in ${P}.`,
          );
        if (!outcome.ok && expected.length > 1)
          expect(outcome.error).toContain(`in lines: ${expected.join(', ')}. Please ensure it is unique`);
        if (outcome.ok) expect(outcome.text).toBe(content.replace(old, 'Z'));
      }),
    );
  });

  it('shows the changed line with two lines of context either side, numbered', () => {
    const outcome = strReplaceText(P, '1\n2\n3\n4\n5\n6\n7', '4', 'four');
    expect(outcome).toMatchObject({
      ok: true,
      result:
        'The memory file has been edited. Here is the snippet showing the change (with line numbers):\n' +
        '     2\t2\n     3\t3\n     4\tfour\n     5\t5\n     6\t6',
    });
  });

  it('takes $ patterns in new_str literally', () => {
    expect(strReplaceText(P, 'a b', 'b', "$& $' $1 $$")).toMatchObject({ ok: true, text: "a $& $' $1 $$" });
  });
});

describe('insert', () => {
  it('adds exactly one line at insert_line and keeps the others in order', () => {
    fc.assert(
      fc.property(text, fc.nat({ max: 20 }), line, fc.boolean(), (content, at, added, trailing) => {
        const lines = content.split('\n');
        const outcome = insertText(P, content, at, trailing ? `${added}\n` : added);
        if (at > lines.length) {
          expect(outcome).toEqual({
            ok: false,
            error: `Invalid \`insert_line\` parameter: ${at}. It should be within the range of lines of the file: [0, ${lines.length}]`,
          });
          return;
        }
        expect(outcome.ok).toBe(true);
        if (!outcome.ok) return;
        const after = outcome.text.split('\n');
        expect(after).toHaveLength(lines.length + 1);
        expect(after[at]).toBe(added);
        expect([...after.slice(0, at), ...after.slice(at + 1)]).toEqual(lines);
        expect(outcome.result).toBe(`The file ${P} has been edited.`);
      }),
    );
  });

  it('refuses a negative line', () => {
    expect(insertText(P, 'a', -1, 'x').ok).toBe(false);
  });
});

describe('view', () => {
  it('numbers lines right-aligned in six columns, with view_range and -1', () => {
    expect(viewFileText(P, 'a\nb\nc', [2, -1])).toMatchObject({
      result: `Here's the content of ${P} with line numbers:\n     2\tb\n     3\tc`,
    });
    expect(viewFileText(P, 'a\nb\nc', [0, 1])).toMatchObject({
      result: `Here's the content of ${P} with line numbers:\n     1\ta`,
    });
  });

  it('refuses a file of more lines than the reference allows', () => {
    const outcome = viewFileText(P, '\n'.repeat(MEMORY_MAX_LINES));
    expect(outcome).toEqual({
      ok: false,
      error: `File ${P} has too many lines (1000000). Maximum is 999,999 lines.`,
    });
  });

  it('formats sizes as the reference does', () => {
    expect([0, 5, 1024, 1536, 4096, 1024 * 1024, 3 * 1024 * 1024 + 1].map(formatFileSize)).toEqual([
      '0B',
      '5B',
      '1K',
      '1.5K',
      '4K',
      '1M',
      '3.0M',
    ]);
  });
});

describe('paths', () => {
  const segment = fc.constantFrom('a', 'b', '..', '.', '', 'c.txt', '%2e%2e', 'x\\y', 'n\u0000');
  it('never resolve above /memories; what they name is always under memories/', () => {
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 8 }), (segments) => {
        const path = `/memories/${segments.join('/')}`;
        const judged = judgeMemoryPath(path);
        if (!judged.ok) {
          expect(judged.error).toBe(`Path ${path} would escape /memories directory`);
          return;
        }
        for (const s of judged.segments) expect(['a', 'b', 'c.txt']).toContain(s);
        expect(memoryFilename(judged.segments).startsWith('memories/')).toBe(true);
        expect(memoryFolder(judged.segments).startsWith('memories/')).toBe(true);
      }),
    );
  });

  it('stores a name without .md/.mdx with .md added, and shows it without', () => {
    expect(memoryFilename(['notes.txt'])).toBe('memories/notes.txt.md');
    expect(memoryFilename(['a', 'plain'])).toBe('memories/a/plain.md');
    expect(memoryFilename(['page.md'])).toBe('memories/page.md');
    expect(memoryFilename(['deck.MDX'])).toBe('memories/deck.MDX');
    expect(shownName('notes.txt.md')).toBe('notes.txt');
    expect(shownName('deck.mdx')).toBe('deck.mdx');
    expect(judgeMemoryPath('/notes')).toEqual({
      ok: false,
      error: 'Path must start with /memories, got: /notes',
    });
  });
});
