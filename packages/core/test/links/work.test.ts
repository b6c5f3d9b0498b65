import { describe, expect, it } from 'vitest';
import { ContentWorkBusyError } from '../../src/errors.js';
import { extractLinksParsed, linksCost } from '../../src/links/extract.js';
import { scanCommonMarkLinks } from '../../src/links/scan.js';
import { contentLinks } from '../../src/links/work.js';
import { inlineContentWork } from '../../src/markdown/content-work.js';
import { INLINE_WORK_LIMITS, POOL_ANSWER_ITEMS, POOL_WORK_LIMITS } from '../../src/markdown/limits.js';
import { STEP_WORK_LIMIT } from '../../src/markdown/work-limits.js';
import type { ContentWork } from '../../src/ports/content-work.js';

/** Link extraction is bounded before it runs (extensions §9, the rule of work on user content). */
describe('contentLinks', () => {
  const small = '# A\n\n[b](b.md)\n';
  // Above one inline step's estimate, under the pool's; its block quote is outside the scanner's
  // subset (links/scan.ts), so it takes the estimate and the pool.
  const large = `${'> Some [link](x.md) and *prose*.\n\n'.repeat(15_000)}`;
  // The same size in the scanner's subset: read here, once, whatever its estimate.
  const scannable = `${'Some [link](x.md) and *prose*.\n\n'.repeat(15_000)}`;
  const noPool: ContentWork = {
    limits: POOL_WORK_LIMITS,
    outline: () => Promise.reject(new Error('unused')),
    headings: () => Promise.reject(new Error('unused')),
    render: () => Promise.reject(new Error('unused')),
    links: () => Promise.reject(new Error('must not be called')),
  };

  it('a small text is read inline', async () => {
    const found = await contentLinks(inlineContentWork, { text: small, truncated: false, filename: 'a.md' });
    expect(found).toMatchObject({ links: [{ raw: 'b.md', line: 3 }], headings: ['A'] });
  });

  it('a text the scanner reads is read here, whatever its size: no estimate, no pool, the parse’s answer', async () => {
    expect(linksCost(scannable, false)).toBeGreaterThan(STEP_WORK_LIMIT);
    expect(scanCommonMarkLinks(large)).toBeNull();
    const found = await contentLinks(noPool, { text: scannable, truncated: false, filename: 'a.md' });
    expect(found).toEqual(extractLinksParsed(scannable, { mdx: false }));
    expect(found).toMatchObject({ links: { length: 15_000 } });
  });

  it('a text that may hold more links and headings than an answer may (`[` and heading-like lines) is not indexed (too_large)', async () => {
    const many = '[a](a.md)\n\n'.repeat(POOL_ANSWER_ITEMS + 1);
    expect(await contentLinks(noPool, { text: many, truncated: false, filename: 'a.md' })).toBe('too_large');
    const enough = '[a](a.md)\n\n'.repeat(POOL_ANSWER_ITEMS);
    expect(await contentLinks(noPool, { text: enough, truncated: false, filename: 'a.md' })).toMatchObject({
      links: { length: POOL_ANSWER_ITEMS },
    });
  });

  it('MDX is never scanned: a large .mdx text goes to the pool', async () => {
    const calls: string[] = [];
    const pool: ContentWork = {
      ...noPool,
      links: async (task) => {
        calls.push(task.mdx ? 'mdx' : 'md');
        return { links: [], slugs: [], headings: [] };
      },
    };
    await contentLinks(pool, { text: scannable, truncated: false, filename: 'a.mdx' });
    expect(calls).toEqual(['mdx']);
  });

  it('a text above one inline step goes to the pool, within its limits', async () => {
    expect(linksCost(large, false)).toBeGreaterThan(STEP_WORK_LIMIT);
    expect(linksCost(large, false)).toBeLessThan(POOL_WORK_LIMITS.stepWork);
    const calls: string[] = [];
    const pool: ContentWork = {
      limits: POOL_WORK_LIMITS,
      outline: () => Promise.reject(new Error('unused')),
      headings: () => Promise.reject(new Error('unused')),
      render: () => Promise.reject(new Error('unused')),
      links: async (task) => {
        calls.push(task.text.slice(0, 4));
        return { links: [], slugs: [], headings: [] };
      },
    };
    expect(await contentLinks(pool, { text: large, truncated: false, filename: 'a.md' })).toEqual({
      links: [],
      slugs: [],
      headings: [],
    });
    expect(calls).toEqual(['> So']);
  });

  it('past every bound, truncated, without a pool, or with the pool busy: not indexed (too_large), no work', async () => {
    const refusing: ContentWork = {
      limits: POOL_WORK_LIMITS,
      outline: () => Promise.reject(new Error('unused')),
      headings: () => Promise.reject(new Error('unused')),
      render: () => Promise.reject(new Error('unused')),
      links: () => Promise.reject(new ContentWorkBusyError()),
    };
    expect(await contentLinks(refusing, { text: large, truncated: false, filename: 'a.md' })).toBe(
      'too_large',
    );
    const inlineOnly: ContentWork = { ...inlineContentWork, limits: INLINE_WORK_LIMITS, links: undefined };
    expect(await contentLinks(inlineOnly, { text: large, truncated: false, filename: 'a.md' })).toBe(
      'too_large',
    );
    expect(await contentLinks(inlineContentWork, { text: small, truncated: true, filename: 'a.md' })).toBe(
      'too_large',
    );
    const untouched: ContentWork = {
      limits: INLINE_WORK_LIMITS,
      outline: () => Promise.reject(new Error('unused')),
      headings: () => Promise.reject(new Error('unused')),
      render: () => Promise.reject(new Error('unused')),
      links: () => Promise.reject(new Error('must not be called')),
    };
    expect(await contentLinks(untouched, { text: large, truncated: false, filename: 'a.md' })).toBe(
      'too_large',
    );
  });
});
