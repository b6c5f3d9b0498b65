import { markdownParserCalls } from '@mdstore/core';
import { afterAll, describe, expect } from 'vitest';
import { PiscinaContentWork } from '../../src/content-work/pool.js';
import { call, expectHealthy, type HostileContext, hostileTest } from './support.js';

/**
 * The server with its worker pool (content-work/pool.ts): the limits of before the inline bound are
 * back (an outline of a 3 MiB file, MDX read as MDX above 64 KiB, sections of files the inline bound
 * refuses), while the thread serving requests keeps answering: `/healthz` answers and this process's
 * timers fire while a large outline runs. The hostile inputs of issue 22 are refused as inline.
 */

const MiB = 1024 * 1024;
const pool = new PiscinaContentWork({ threads: 1, deadlineMs: 60_000, memoryMb: 512, queue: 8 }, (error) => {
  throw error;
});
afterAll(() => pool.close());

const test = hostileTest({ settings: { maxFileBytes: 10 * MiB }, contentWork: pool });

const hasty = new PiscinaContentWork({ threads: 1, deadlineMs: 1, memoryMb: 256, queue: 8 }, (error) => {
  throw error;
});
afterAll(() => hasty.close());
const hastyTest = hostileTest({ settings: { maxFileBytes: 10 * MiB }, contentWork: hasty });

const filePath = (ctx: HostileContext, filename: string) =>
  `/api/projects/${ctx.account.defaultProjectId}/files/${encodeURIComponent(filename)}`;

const upload = (ctx: HostileContext, filename: string, content: string) =>
  ctx.h.uploadFile(ctx.account.apiKey, ctx.account.defaultProjectId, filename, content);

/**
 * About 3 MiB of prose, a heading every 20 paragraphs, a link every 10: far above one inline step,
 * within the pool's (and its answer of ~10 000 items within `POOL_ANSWER_ITEMS`).
 */
const LARGE = Array.from(
  { length: 64_000 },
  (_, index) =>
    `${index % 20 === 0 ? `## Part ${index}\n\n` : ''}Some *prose*, ${index % 10 === 0 ? '[a](b.md)' : 'no'} link.\n\n`,
)
  .join('')
  .slice(0, 3 * MiB - 1024);

describe('the pool lifts the inline limits', () => {
  test('a 3 MiB outline is answered while /healthz answers and timers fire', async (ctx) => {
    await upload(ctx, 'large.md', LARGE);
    const parsesBefore = markdownParserCalls().commonMark;
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    let settled = false;
    const outline = call(ctx, `${filePath(ctx, 'large.md')}/outline`).finally(() => {
      settled = true;
    });
    let healthy = 0;
    try {
      while (!settled) {
        const health = await ctx.h.fetch('/healthz');
        await health.arrayBuffer();
        if (health.status === 200 && !settled) healthy++;
      }
    } finally {
      clearInterval(timer);
    }
    const answer = await outline;
    expect(answer.status).toBe(200);
    const headings = JSON.parse(answer.text).headings as Array<{ text: string }>;
    expect(headings[0]?.text).toBe('Part 0');
    expect(headings.length).toBeGreaterThan(1000);
    // The parse ran in a worker, not here; this thread answered meanwhile.
    expect(markdownParserCalls().commonMark).toBe(parsesBefore);
    expect(healthy).toBeGreaterThanOrEqual(3);
    expect(ticks).toBeGreaterThanOrEqual(3);
  }, 120_000);

  test('an MDX file of 100 KiB is read as MDX: a line in an MDX comment is no heading', async (ctx) => {
    const content = `# Page\n\n{/*\n# inside\n*/}\n\n${'Words of plain prose here. '.repeat(3_800)}\n\n## End\n`;
    await upload(ctx, 'page.mdx', content);
    const outline = await call(ctx, `${filePath(ctx, 'page.mdx')}/outline`);
    expect(outline.status).toBe(200);
    expect(JSON.parse(outline.text).headings.map((h: { text: string }) => h.text)).toEqual(['Page', 'End']);
  }, 60_000);

  test('?section= and a section edit of a file the inline bound refuses', async (ctx) => {
    const dense = Array.from({ length: 15_000 }, (_, index) => `## h${index}\n\ntext\n`).join('');
    await upload(ctx, 'dense.md', dense);
    const section = await call(ctx, `${filePath(ctx, 'dense.md')}?section=h7`);
    expect(section.status).toBe(200);
    expect(section.text).toBe('## h7\n\ntext\n');
    const edited = await call(ctx, filePath(ctx, 'dense.md'), {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ edits: [{ op: 'append', section: 'h9', text: 'more\n' }], dry_run: true }),
    });
    expect(edited.status).toBe(200);
    expect(JSON.parse(edited.text).diff).toContain('+more');
    await expectHealthy(ctx);
  }, 60_000);

  test('past the pool`s bounds: 300 000 headings still 413 and 409 work_budget, before any parse', async (ctx) => {
    const content = Array.from({ length: 300_000 }, (_, index) => `## h${index}\n`)
      .join('')
      .slice(0, 2_900_000);
    await upload(ctx, 'h.md', content);
    const before = markdownParserCalls().commonMark;
    const outline = await call(ctx, `${filePath(ctx, 'h.md')}/outline`);
    expect(outline.status).toBe(413);
    expect(JSON.parse(outline.text).detail).toMatch(/^File too large for an outline/);
    // Its headings parse fits the pool's work bound, but 300 000 headings are more than an answer may
    // bring back to the thread serving requests (POOL_ANSWER_ITEMS).
    const section = await call(ctx, `${filePath(ctx, 'h.md')}?section=h7`);
    expect(section.status).toBe(409);
    expect(JSON.parse(section.text).detail).toMatchObject([
      { loc: ['query', 'section'], type: 'work_budget' },
    ]);
    expect(markdownParserCalls().commonMark).toBe(before);
    await expectHealthy(ctx);
  }, 60_000);
});

describe('a step the pool stops', () => {
  hastyTest(
    'past its deadline: the outline is 413, a section 409 work_budget, the server healthy',
    async (ctx) => {
      await upload(ctx, 'large.md', LARGE);
      const outline = await call(ctx, `${filePath(ctx, 'large.md')}/outline`);
      expect(outline.status).toBe(413);
      expect(JSON.parse(outline.text).detail).toMatch(/^File too large for an outline/);
      const dense = Array.from({ length: 15_000 }, (_, index) => `## h${index}\n\ntext\n`).join('');
      await upload(ctx, 'dense.md', dense);
      const section = await call(ctx, `${filePath(ctx, 'dense.md')}?section=h7`);
      expect(section.status).toBe(409);
      expect(JSON.parse(section.text).detail).toMatchObject([
        { loc: ['query', 'section'], type: 'work_budget' },
      ]);
      await expectHealthy(ctx);
    },
    60_000,
  );
});
