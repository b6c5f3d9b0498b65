import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  applyEdits,
  applyEditsInTurns,
  EditConflictError,
  frontMatterLength,
  headingsParseCost,
  type MarkdownEdit,
  newWorkBudget,
  OCCURRENCE_COST,
  outline,
  parseDocument,
  SCAN_COST,
} from '@mdstore/core';
import { tests } from 'commonmark-spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/**
 * What editing saves on parsing must not change a result: a headings-only parse finds exactly the
 * headings of a whole parse; the cheap setext test before an insertion never skips a parse that
 * mattered; the work budget refuses before the work; the stepwise application equals the plain one.
 */

const modules = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../node_modules');

function readmes(limit: number): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(modules).sort()) {
    const file = path.join(modules, entry, 'README.md');
    try {
      if (statSync(file).size <= 65_536) found.push(readFileSync(file, 'utf8'));
    } catch {
      // no README at the top of this package
    }
    if (found.length === limit) break;
  }
  return found;
}

const headingsOf = (content: string, mdx: boolean, links: boolean) =>
  parseDocument(content, { mdx, links }).headings;

describe('headings-only parsing', () => {
  const examples = tests.map((example) => example.markdown.replace(/→/g, '\t'));

  it('finds the same headings as a whole parse on every CommonMark spec example', () => {
    for (const markdown of examples) {
      expect(headingsOf(markdown, false, false), markdown).toEqual(headingsOf(markdown, false, true));
    }
  });

  it('finds the same headings on real READMEs, and no links', () => {
    const corpus = readmes(40);
    expect(corpus.length).toBe(40);
    for (const content of corpus) {
      const cheap = parseDocument(content, { mdx: false, links: false });
      expect(cheap.headings).toEqual(headingsOf(content, false, true));
      expect(cheap.links).toEqual([]);
    }
  });

  it('agrees for MDX too, on headings and the fallback', () => {
    const mdx = '# Title\n\n<Box>\n# not a heading\n</Box>\n\n## [Linked](x) heading\n';
    expect(parseDocument(mdx, { mdx: true, links: false })).toEqual({
      ...parseDocument(mdx, { mdx: true }),
      links: [],
    });
    expect(headingsOf(mdx, true, false).map((h) => h.text)).toEqual(['Title', 'Linked heading']);
  });

  it('resolves link reference definitions in heading text as a whole parse does', () => {
    const content = '# [ref] here\n\n[ref]: /target\n';
    expect(headingsOf(content, false, false)[0]!.text).toBe('ref here');
    expect(headingsOf('# [nodef]\n', false, false)[0]!.text).toBe('[nodef]');
  });
});

describe('the setext test before an insertion', () => {
  // Documents full of what makes or breaks a setext heading: underlines in and out of paragraphs,
  // containers, thematic breaks, code, CR/CRLF/LF.
  const line = fc.constantFrom(
    'Title',
    '===',
    '---',
    '- item',
    '> quote',
    '> ===',
    '  - nested',
    '',
    '   ',
    '```',
    '# atx',
    'text -',
    '* * *',
    '=',
  );
  const document = fc
    .tuple(fc.array(line, { minLength: 1, maxLength: 12 }), fc.constantFrom('\n', '\r\n', '\r'))
    .map(([lines, eol]) => lines.join(eol) + eol);
  const insertion = fc.record({ line: fc.nat(), text: fc.constantFrom('x', 'Intro\n', 'a\nb') });

  it('inserted text never becomes part of a setext heading that starts right after it', () => {
    fc.assert(
      fc.property(document, insertion, (content, { line, text }) => {
        const lines = content.split('\n').length - (content.endsWith('\n') ? 1 : 0);
        const at = (line % (lines + 1)) + 1;
        // Text inserted at line 1 goes before a front matter block, which then is no longer one (the
        // test below): its lines become Markdown, so headings after it may change. That is the edit.
        fc.pre(!(at === 1 && frontMatterLength(content) > 0));
        const result = applyEdits(content, [{ op: 'insert', line: at, text }], { mdx: false });
        // Every setext heading of the original that starts at or after the insertion is still one, with
        // the same text (one that starts before it may take the text in: that is an edit of it).
        const before = parseDocument(content, { mdx: false }).headings.filter(
          (h) => h.setext && h.line >= at,
        );
        const after = parseDocument(result, { mdx: false }).headings.filter((h) => h.setext);
        expect(after.map((h) => h.text)).toEqual(expect.arrayContaining(before.map((h) => h.text)));
        // The bytes outside the insertion are kept.
        const offset =
          content
            .split('\n')
            .slice(0, at - 1)
            .join('\n').length + (at > 1 ? 1 : 0);
        expect(result.startsWith(content.slice(0, offset))).toBe(true);
        expect(result.endsWith(content.slice(offset))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('text inserted at line 1 goes before the front matter, which is then Markdown', () => {
    const content = '---\n```\n---\nTitle\n=\n';
    expect(parseDocument(content, { mdx: false }).headings.map((h) => h.text)).toEqual(['Title']);
    const result = applyEdits(content, [{ op: 'insert', line: 1, text: 'x' }], { mdx: false });
    expect(result).toBe(`x\n${content}`);
    // "x" over "---" is a heading now, and the fence that was front matter runs to the end.
    expect(parseDocument(result, { mdx: false }).headings.map((h) => h.text)).toEqual(['x']);
  });
});

describe('insert on a large text', () => {
  /** Insert as defined on the interface's lines: before `lineStarts[n - 1]`, or at the end for n = lines + 1. */
  function reference(text: string, line: number): string | 'invalid' {
    const starts: number[] = [];
    if (text.length > 0) starts.push(0);
    for (let at = text.indexOf('\n'); at !== -1 && at + 1 < text.length; at = text.indexOf('\n', at + 1)) {
      starts.push(at + 1);
    }
    if (line < 1 || line > starts.length + 1) return 'invalid';
    const at = starts[line - 1] ?? text.length;
    const eol = /\r\n/.test(text.slice(0, text.indexOf('\n') + 1)) && text.indexOf('\n') > 0 ? '\r\n' : '\n';
    const glue = at > 0 && !/[\r\n]$/.test(text.slice(0, at)) ? eol : '';
    return `${text.slice(0, at)}${glue}X\n${text.slice(at)}`;
  }

  it('scans only to the line, and agrees with the line rule everywhere (edges included)', () => {
    const unit = fc.constantFrom('a', 'b', '\n', '\r\n', '\r', ' ');
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 30 }), fc.integer({ min: -1, max: 12 }), (text, line) => {
        const expected = reference(text, line);
        const run = () => applyEdits(text, [{ op: 'insert', line, text: 'X\n' }], { mdx: false });
        if (expected === 'invalid') expect(run).toThrow(/line must be from 1 to/);
        else expect(run()).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('the work budget', () => {
  const content = `# A\n\n${'text\n'.repeat(200)}## B\n\nend\n`;
  const L = content.length;
  const parseCost = (text: string) => headingsParseCost(text, false);
  const sectionEdits: MarkdownEdit[] = [
    { op: 'append', section: 'A', text: 'one' },
    { op: 'append', section: 'B', text: 'two' },
    { op: 'append', section: 'A', text: 'three' },
  ];

  it('every edit pays its pass and each parse before working; the edit it cannot pay is refused', () => {
    // Enough for two edits with their parses, not a third.
    const budget = newWorkBudget(2 * (parseCost(`${content}one\ntwo\n`) + SCAN_COST * (L + 20)));
    let caught: unknown;
    try {
      applyEdits(content, sectionEdits, { mdx: false, budget });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(EditConflictError);
    const [issue] = (caught as EditConflictError).issues;
    expect(issue!.type).toBe('work_budget');
    expect(issue!.loc.slice(0, 3)).toEqual(['body', 'edits', 2]);
    expect(budget.remaining).toBeGreaterThanOrEqual(0);
    expect(budget.remaining).toBeLessThan(parseCost(content) + SCAN_COST * L);
  });

  it('a text is parsed once, edits without sections parse nothing, occurrences are paid', () => {
    const budget = newWorkBudget();
    const result = applyEdits(
      content,
      [
        { op: 'append', section: 'A', text: '' },
        { op: 'prepend', section: 'B', text: '' },
        { op: 'replace', old: 'end', new: 'END', count: 1 },
        { op: 'append', text: 'tail' },
        { op: 'insert', line: 3, text: 'x' },
      ],
      { mdx: false, budget },
    );
    expect(result).toContain('END\ntail');
    // One parse of the first text; five passes (the last over the text grown by `tail`); one occurrence.
    expect(budget.total - budget.remaining).toBe(
      parseCost(content) + SCAN_COST * (4 * L + (L + 4)) + OCCURRENCE_COST + SCAN_COST * L,
    );
  });

  it('a replace of very many occurrences costs more than its pass', () => {
    const many = 'e'.repeat(10_000);
    const passes = newWorkBudget(10 * SCAN_COST * many.length);
    expect(() =>
      applyEdits(many, [{ op: 'replace', old: 'e', new: 'E', count: 'all' }], { mdx: false, budget: passes }),
    ).toThrow(EditConflictError);
    // The pass, then each occurrence and the result's length.
    const enough = newWorkBudget(2 * SCAN_COST * many.length + OCCURRENCE_COST * many.length);
    expect(
      applyEdits(many, [{ op: 'replace', old: 'e', new: 'E', count: 'all' }], { mdx: false, budget: enough }),
    ).toBe('E'.repeat(10_000));
    expect(enough.remaining).toBe(0);
  });

  it('without a budget only a step past its bound is refused', () => {
    expect(() => applyEdits(content, sectionEdits, { mdx: false })).not.toThrow();
  });
});

describe('applyEditsInTurns', () => {
  it('gives the same result as applyEdits, and lets timers run between parsing edits', async () => {
    const content = '# A\n\nbody\n\n# B\n\nmore\n';
    const edits: MarkdownEdit[] = [
      { op: 'append', section: 'A', text: 'a1' },
      { op: 'replace_section', section: 'B', text: 'new\n' },
      { op: 'prepend', text: 'top' },
    ];
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    try {
      const stepwise = await applyEditsInTurns(content, edits, { mdx: false });
      expect(stepwise).toBe(applyEdits(content, edits, { mdx: false }));
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThan(0);
  });

  it('gives timers a turn between edits of a large text even when nothing is parsed', async () => {
    const content = `${'line of text\n'.repeat(100_000)}end\n`;
    const edits: MarkdownEdit[] = [
      { op: 'replace', old: 'end', new: 'END', count: 1 },
      { op: 'insert', line: 2, text: 'x' },
    ];
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    let result: string;
    try {
      result = await applyEditsInTurns(content, edits, { mdx: false });
    } finally {
      clearInterval(timer);
    }
    expect(result).toBe(applyEdits(content, edits, { mdx: false }));
    expect(ticks).toBeGreaterThan(0);
    // A small text is edited in one go.
    ticks = 0;
    const small = setInterval(() => ticks++, 0);
    try {
      await applyEditsInTurns('a\n', [{ op: 'append', text: 'b' }], { mdx: false });
    } finally {
      clearInterval(small);
    }
    expect(ticks).toBe(0);
  });

  it('fails as applyEdits does', async () => {
    await expect(
      applyEditsInTurns('# A\n', [{ op: 'append', section: 'Z', text: 'x' }], { mdx: false }),
    ).rejects.toMatchObject({ code: 'EDIT_CONFLICT' });
  });

  it('outline still reports links (whole parse)', () => {
    expect(outline('# A\n[x](y)\n', { mdx: false }).links).toEqual([{ target: 'y', text: 'x', line: 2 }]);
  });
});
