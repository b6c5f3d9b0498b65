import { markdownParserCalls, parseDocument } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import {
  braceNesting,
  MDX_MAX_LENGTH,
  MDX_WORK_BUDGET,
  mdxStructureEstimate,
  mdxWithinBudget,
  mdxWorkEstimate,
} from '../../src/markdown/mdx-budget.js';
import { STEP_WORK_LIMIT } from '../../src/markdown/work-limits.js';

describe('the MDX structure estimate', () => {
  it.each([
    ['', 0],
    ['plain text', 0],
    // Delimiters: the square of their count per run of non-blank lines.
    ['a *b* c', 4],
    ['a *b*\nc _d_', 16],
    ['a *b*\n\nc _d_', 8],
    ['a *b*\r\n \t\r\nc _d_', 8],
    ['`x` [y]', 16],
    // Container prefix beyond 8 characters: its square, plus the run's deepest excess on every line.
    [`${' '.repeat(8)}x`, 0],
    [`${' '.repeat(10)}x`, 6],
    [`${' '.repeat(10)}x\ny`, 8],
    [`${' '.repeat(10)}x\n\ny`, 6],
    [`${'>'.repeat(10)} x`, 12],
    ['1.1.1.1.1) x', 12],
    [`${'*'.repeat(9)}x`, 83],
    // Expression nesting: each `{` pays the depth it opens at.
    ['{1}', 0],
    ['{{1}}', 1],
    ['{{{1}}}', 3],
    ['{1} {1}', 0],
  ])('%j costs %i', (text, work) => {
    expect(mdxStructureEstimate(text)).toBe(work);
  });

  it('counts nesting in O(n): 5 000 nested braces are 12 497 500 units', () => {
    const nested = `${'{'.repeat(5000)}1${'}'.repeat(5000)}`;
    expect(braceNesting(nested)).toBe((5000 * 4999) / 2);
    expect(braceNesting('}}}{')).toBe(0);
  });
});

describe('the MDX work estimate', () => {
  it('is linear in length, lines, punctuation and expressions, plus 200 per structure unit', () => {
    expect(mdxWorkEstimate('')).toBe(50_000);
    expect(mdxWorkEstimate('ab')).toBe(2 * 1_500 + 50_000);
    expect(mdxWorkEstimate('a\nb')).toBe(3 * 1_500 + 2 * 50_000);
    expect(mdxWorkEstimate('*')).toBe(1_500 + 50_000 + 25_000 + 200);
    expect(mdxWorkEstimate('{{')).toBe(2 * 1_500 + 50_000 + 2 * 25_000 + 2 * 60_000 + 200);
  });

  it('has a length limit and a work budget of one step', () => {
    expect(MDX_MAX_LENGTH).toBe(65_536);
    expect(MDX_WORK_BUDGET).toBe(STEP_WORK_LIMIT);
    expect(mdxWithinBudget('a'.repeat(MDX_MAX_LENGTH + 1))).toBe(false);
    expect(mdxWithinBudget('a'.repeat(60_000))).toBe(true);
    expect(mdxWithinBudget('a_'.repeat(400))).toBe(true);
    expect(mdxWithinBudget('a_'.repeat(700))).toBe(false);
  });

  it('finding 3: 5 000 nested expressions (10 KB) are read as CommonMark, without micromark', () => {
    const nested = `${'{'.repeat(5000)}1${'}'.repeat(5000)}`;
    expect(mdxWithinBudget(nested)).toBe(false);
    const before = markdownParserCalls();
    expect(parseDocument(nested, { mdx: true })).toMatchObject({ mdxFallback: 'too_complex' });
    expect(markdownParserCalls()).toEqual({ ...before, commonMark: before.commonMark + 1 });
  });
});

// micromark is never started on these (its cost is what the budget bounds): the counters show it, not a
// clock (speed lives in `npm run bench`).
describe('hostile MDX is read as CommonMark, in linear time', () => {
  const hostile = {
    'nested emphasis': `${'*a **a '.repeat(2000)}b${' a** a*'.repeat(2000)}`,
    'mismatched delimiters': '*a_ '.repeat(4000),
    'brackets and parentheses': '[ (]('.repeat(4000),
    'nested lists': Array.from({ length: 1000 }, (_, index) => `${'  '.repeat(index)}* a\n`).join(''),
    'list markers on one line': `${'- '.repeat(2000)}a\n`,
    'block quote with lazy lines': `${'> '.repeat(600)}a\n${'lazy\n'.repeat(5000)}`,
  };

  it.each(Object.entries(hostile))('%s', (_, text) => {
    const before = markdownParserCalls();
    const parsed = parseDocument(text, { mdx: true });
    expect(parsed.syntax).toBe('commonmark');
    expect(parsed.mdxFallback).toBe('too_complex');
    expect(markdownParserCalls()).toEqual({ ...before, commonMark: before.commonMark + 1 });
  });

  it('a large MDX file is read as CommonMark', () => {
    const large = `# Title\n\n${'Some text with a <Component prop="x" /> in it.\n\n'.repeat(6000)}`;
    expect(large.length).toBeGreaterThan(MDX_MAX_LENGTH);
    expect(parseDocument(large, { mdx: true })).toMatchObject({
      syntax: 'commonmark',
      mdxFallback: 'too_complex',
    });
  });

  it('an ordinary MDX page stays MDX', () => {
    const page = [
      "import { Tabs } from './tabs.js'",
      '',
      '# Guide',
      '',
      ...Array.from(
        { length: 200 },
        (_, index) => `Para ${index} with *emphasis*, \`code\` and [a link](./${index}.md).\n`,
      ),
      '<Tabs items={["npm", "pnpm"]}>',
      '  - one',
      '    - two',
      '</Tabs>',
    ].join('\n');
    expect(parseDocument(page, { mdx: true })).toMatchObject({ syntax: 'mdx', mdxFallback: null });
  });

  it('just within the budget, micromark still answers quickly', () => {
    // micromark is cubic on this shape: the largest that fits the budget.
    let repetitions = 1;
    while (mdxWithinBudget(`${'*a **a '.repeat(repetitions + 1)}b${' a** a*'.repeat(repetitions + 1)}`)) {
      repetitions++;
    }
    const text = `${'*a **a '.repeat(repetitions)}b${' a** a*'.repeat(repetitions)}`;
    expect(mdxWorkEstimate(text)).toBeLessThanOrEqual(MDX_WORK_BUDGET);
    expect(parseDocument(text, { mdx: true }).syntax).toBe('mdx');
  });
});
