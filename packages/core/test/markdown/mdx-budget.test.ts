import { parseDocument } from '@mdstore/core';
import { describe, expect, it } from 'vitest';
import {
  MDX_MAX_LENGTH,
  MDX_WORK_BUDGET,
  mdxWithinBudget,
  mdxWorkEstimate,
} from '../../src/markdown/mdx-budget.js';

describe('the MDX work estimate', () => {
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
  ])('%j costs %i', (text, work) => {
    expect(mdxWorkEstimate(text)).toBe(work);
  });

  it('has a length limit and a work budget', () => {
    expect(MDX_MAX_LENGTH).toBe(262_144);
    expect(MDX_WORK_BUDGET).toBe(2_000_000);
    expect(mdxWithinBudget('a'.repeat(MDX_MAX_LENGTH))).toBe(true);
    expect(mdxWithinBudget('a'.repeat(MDX_MAX_LENGTH + 1))).toBe(false);
    expect(mdxWithinBudget('a_'.repeat(1414))).toBe(true); // 1 999 396
    expect(mdxWithinBudget('a_'.repeat(1415))).toBe(false); // 2 002 225
  });
});

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
    const started = performance.now();
    const parsed = parseDocument(text, { mdx: true });
    expect(parsed.syntax).toBe('commonmark');
    expect(parsed.mdxFallback).toBe('too_complex');
    expect(performance.now() - started).toBeLessThan(3_000);
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
    // 235 repetitions: 1410 delimiters, 1 988 100 of work; micromark is cubic on this shape.
    const text = `${'*a **a '.repeat(235)}b${' a** a*'.repeat(235)}`;
    expect(mdxWorkEstimate(text)).toBeLessThanOrEqual(MDX_WORK_BUDGET);
    const started = performance.now();
    expect(parseDocument(text, { mdx: true }).syntax).toBe('mdx');
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
