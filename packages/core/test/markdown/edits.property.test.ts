import { applyEdits, EditConflictError, findSection, type MarkdownEdit, outline } from '@mdstore/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/** The model of `replace`: occurrences as `split` counts them (non-overlapping, left to right). */
function modelReplace(content: string, edits: readonly Extract<MarkdownEdit, { op: 'replace' }>[]) {
  let text = content;
  for (const [index, edit] of edits.entries()) {
    const found = text.split(edit.old).length - 1;
    if (edit.count === 'all' ? found === 0 : found !== edit.count) return { failedAt: index, found };
    text = text.split(edit.old).join(edit.new);
  }
  return { text };
}

const unit = fc.constantFrom('a', 'b', 'ab', '\n', '\r\n', ' ', '#');
const replaceEdit = fc.record({
  op: fc.constant('replace' as const),
  old: fc.string({ unit, minLength: 1, maxLength: 3 }),
  new: fc.string({ unit, maxLength: 4 }),
  count: fc.oneof(fc.constant('all' as const), fc.integer({ min: 1, max: 4 })),
});

describe('replace edits against a plain model', () => {
  it('equal split/join with non-overlapping counting, or fail at the same edit with the same count', () => {
    fc.assert(
      fc.property(
        fc.string({ unit, maxLength: 40 }),
        fc.array(replaceEdit, { minLength: 1, maxLength: 5 }),
        (content, edits) => {
          const expected = modelReplace(content, edits);
          if ('text' in expected) {
            expect(applyEdits(content, edits, { mdx: false })).toBe(expected.text);
          } else {
            const run = () => applyEdits(content, edits, { mdx: false });
            expect(run).toThrow(EditConflictError);
            try {
              run();
            } catch (error) {
              const [issue] = (error as EditConflictError).issues;
              expect(issue!.loc).toEqual(['body', 'edits', expected.failedAt, 'old']);
              expect(issue!.type).toBe('match_count');
              expect(issue!.msg).toContain(`found ${expected.found} times`);
            }
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});

/** Generated documents: headings, paragraphs with odd spacing, code with `#` lines, in LF or CRLF. */
const block = fc.oneof(
  fc
    .tuple(fc.integer({ min: 1, max: 3 }), fc.constantFrom('Setup', 'Linux', 'Use', 'Notes'))
    .map(([level, text]) => `${'#'.repeat(level)} ${text}`),
  fc.constantFrom('Title\n=====', 'Sub\n---'),
  fc.constantFrom('text  ', 'two\nlines', '- item\n- item 2', '> quote', '', '\t tab'),
  fc.constantFrom('```\n# not a heading\n```', '    # indented code', '<div>\n# html\n</div>\n'),
);

const documentArbitrary = fc
  .tuple(fc.array(block, { minLength: 1, maxLength: 12 }), fc.boolean(), fc.boolean(), fc.boolean())
  .map(([blocks, crlf, finalNewline, frontMatter]) => {
    const eol = crlf ? '\r\n' : '\n';
    const body = blocks.join('\n\n').replace(/\n/g, eol);
    const head = frontMatter ? `---  ${eol}# fm: x${eol}...${eol}` : '';
    const content = head + body + (finalNewline ? eol : '');
    // The style of the file is that of its first LF; a file without one gets LF.
    return { content, eol: content.includes('\n') ? eol : '\n' };
  });

const sectionEdit = fc.record({
  op: fc.constantFrom('append' as const, 'prepend' as const, 'replace_section' as const),
  text: fc.constantFrom('', 'new', 'new\n', 'a\nb', 'x\r\n\r\n'),
  pick: fc.nat(),
});

describe('section edits on generated documents', () => {
  it('keep every byte outside the edited span and insert the text with at most two line breaks added', () => {
    fc.assert(
      fc.property(documentArbitrary, sectionEdit, ({ content, eol }, { op, text, pick }) => {
        const headings = outline(content, { mdx: false }).headings;
        fc.pre(headings.length > 0);
        const path = headings[pick % headings.length]!.path;
        let span: { from: number; to: number };
        try {
          const found = findSection(content, path, { mdx: false, loc: ['x'] });
          const at = op === 'prepend' ? found.bodyStart : found.end;
          span = op === 'replace_section' ? { from: found.bodyStart, to: found.end } : { from: at, to: at };
        } catch (error) {
          // Two headings with the same full path: the edit must refuse too.
          expect(error).toBeInstanceOf(EditConflictError);
          expect(() => applyEdits(content, [{ op, section: path, text }], { mdx: false })).toThrow(
            EditConflictError,
          );
          return;
        }
        const result = applyEdits(content, [{ op, section: path, text }], { mdx: false });
        const before = content.slice(0, span.from);
        const after = content.slice(span.to);
        expect(result.startsWith(before)).toBe(true);
        expect(result.endsWith(after)).toBe(true);
        const inserted = result.slice(before.length, result.length - after.length);
        if (text === '') {
          expect(inserted).toBe('');
        } else {
          // Only line breaks in the file's style are added, one before and up to two after.
          const match = new RegExp(`^(${eol})?${escapeRegExp(text)}((?:${eol}){0,2})$`).exec(inserted);
          expect(match).not.toBeNull();
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('never change the headings outside the edited span', () => {
    fc.assert(
      fc.property(documentArbitrary, sectionEdit, ({ content }, { op, text, pick }) => {
        const headings = outline(content, { mdx: false }).headings;
        fc.pre(headings.length > 0);
        // Text spliced in before a heading nested in a list item or block quote gets no container
        // markers, so it may end that container: the guarantee holds for headings at the top level.
        const lines = content.split('\n');
        fc.pre(headings.every((heading) => /^[#A-Za-z]/.test(lines[heading.line - 1]!)));
        const target = headings[pick % headings.length]!;
        let result: string;
        try {
          result = applyEdits(content, [{ op, section: target.path, text }], { mdx: false });
        } catch {
          return;
        }
        const found = findSection(content, target.path, { mdx: false, loc: ['x'] });
        // Headings before the section, its own heading, and those after it are all still there; only
        // replace_section removes the subsections in the body it replaces.
        const replaced = (line: number) =>
          op === 'replace_section' &&
          found.bodyStart < found.end &&
          line >= lineOf(content, found.bodyStart) &&
          line <= lineOf(content, found.end - 1);
        const after = outline(result, { mdx: false }).headings.map((heading) => heading.path);
        for (const heading of headings) {
          if (!replaced(heading.line)) expect(after).toContainEqual(heading.path);
        }
        expect(after.length).toBeGreaterThanOrEqual(
          headings.filter((heading) => !replaced(heading.line)).length,
        );
      }),
      { numRuns: 500 },
    );
  });
});

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The 1-based line holding the character at `offset`. */
const lineOf = (content: string, offset: number) => content.slice(0, offset).split('\n').length;
