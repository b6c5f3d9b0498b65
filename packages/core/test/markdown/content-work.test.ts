import { describe, expect, it } from 'vitest';
import { INLINE_WORK_LIMITS, inlineContentWork, markdownParserCalls } from '../../src/index.js';
import { outlineWithin } from '../../src/markdown/content-work.js';
import type { ContentWork } from '../../src/ports/content-work.js';
import { describeContentWorkContract } from '../../src/testing/content-work-contract.js';

describeContentWorkContract('inline', async () => ({ work: inlineContentWork, close: async () => {} }));

/** A `ContentWork` that records what it was given and answers like the inline one with larger limits. */
function recording(): ContentWork & { seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    limits: { stepWork: 3_000_000_000, mdx: INLINE_WORK_LIMITS.mdx, answerItems: 20_000 },
    outline: async (task) => {
      seen.push(`outline:${task.text.length}`);
      return { headings: [], links: [] };
    },
    headings: async (task) => {
      seen.push(`headings:${task.text.length}`);
      return [];
    },
    render: async (task) => {
      seen.push(`render:${task.text.length}`);
      return '';
    },
  };
}

describe('the rule: inline under one step, in ContentWork above it, refused past its limits', () => {
  it('a small outline runs inline, never sent', async () => {
    const work = recording();
    const before = markdownParserCalls().commonMark;
    const found = await outlineWithin(work, { text: '# A\n', mdx: false });
    expect(found.headings.map((heading) => heading.text)).toEqual(['A']);
    expect(work.seen).toEqual([]);
    expect(markdownParserCalls().commonMark).toBe(before + 1);
  });

  it('an outline above the inline bound is sent (no parse here); past the limits, 413 and not sent', async () => {
    const work = recording();
    const before = markdownParserCalls().commonMark;
    const large = 'Some prose with [a](b) link.\n\n'.repeat(15_000);
    await outlineWithin(work, { text: large, mdx: false });
    expect(work.seen).toEqual([`outline:${large.length}`]);
    await expect(outlineWithin(work, { text: '## h\n'.repeat(700_000), mdx: false })).rejects.toMatchObject({
      code: 'OUTLINE_TOO_LARGE',
    });
    await expect(
      outlineWithin(work, { text: 'x'.repeat(3 * 1024 * 1024 + 1), mdx: false }),
    ).rejects.toMatchObject({ code: 'OUTLINE_TOO_LARGE' });
    // Within the work bound, but more links than an answer may bring back to this thread.
    const links = 'a [b](c)\n'.repeat(25_000);
    await expect(outlineWithin(work, { text: links, mdx: false })).rejects.toMatchObject({
      code: 'OUTLINE_TOO_LARGE',
    });
    expect(work.seen).toHaveLength(1);
    expect(markdownParserCalls().commonMark).toBe(before);
  });

  it('a pool that stops a task (deadline, memory) is answered as the step past its bound', async () => {
    const failing: ContentWork = {
      ...recording(),
      outline: async () => {
        throw Object.assign(new Error('stopped'), { code: 'WORK_LIMIT_EXCEEDED' });
      },
    };
    const large = 'Some prose with [a](b) link.\n\n'.repeat(15_000);
    // Recognised by code, as any copy of the core's errors: a plain object with the mark is not one.
    await expect(outlineWithin(failing, { text: large, mdx: false })).rejects.toThrow('stopped');
  });
});
